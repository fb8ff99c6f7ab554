package io.psiflink.api;

import java.io.Serializable;
import java.util.Objects;

/**
 * Who an organisation is in a join: party {@code i} of {@code n}, the helper of server-aided
 * filtering, or the outsourcing provider of a multiparty join. One type for all of them, so code
 * that is written for two parties today does not need a second vocabulary when a third role
 * arrives.
 *
 * <p>Text form ({@link #label()}, stored in databases, printed on command lines): {@code A} and
 * {@code B} for the two parties of a two-party join (they are also the table qualifiers of its
 * SQL), {@code P1}…{@code Pn} for party {@code i} of {@code n ≥ 3} (1-based), {@code helper},
 * {@code provider}.
 */
public record Role(Kind kind, int index, int parties) implements Serializable {

  /** The kinds of organisation a session can have. */
  public enum Kind {
    PARTY,
    HELPER,
    PROVIDER
  }

  /** The first party of a two-party join (table {@code a}); the receiver of the PSI by default. */
  public static final Role A = new Role(Kind.PARTY, 0, 2);

  /** The second party of a two-party join (table {@code b}). */
  public static final Role B = new Role(Kind.PARTY, 1, 2);

  /** The helper of server-aided filtering. */
  public static final Role HELPER = new Role(Kind.HELPER, 0, 0);

  /** The outsourcing provider of a multiparty join. */
  public static final Role PROVIDER = new Role(Kind.PROVIDER, 0, 0);

  public Role {
    Objects.requireNonNull(kind, "kind");
    if (kind == Kind.PARTY) {
      if (parties < 2 || index < 0 || index >= parties) {
        throw new IllegalArgumentException(
            "a party is party i of n with n >= 2 and 0 <= i < n, not " + index + " of " + parties);
      }
    } else if (index != 0 || parties != 0) {
      throw new IllegalArgumentException("the " + kind + " role has no index");
    }
  }

  /** Party {@code index} (0-based) of {@code parties}. */
  public static Role party(int index, int parties) {
    return new Role(Kind.PARTY, index, parties);
  }

  public boolean isParty() {
    return kind == Kind.PARTY;
  }

  /** The other party of a two-party join; only defined for {@link #A} and {@link #B}. */
  public Role peer() {
    if (!isParty() || parties != 2) {
      throw new IllegalStateException(label() + " has no single peer");
    }
    return index == 0 ? B : A;
  }

  /** This party's table qualifier in a two-party query: {@code a} or {@code b}. */
  public String table() {
    if (!isParty() || parties != 2) {
      throw new IllegalStateException(label() + " has no table of a two-party query");
    }
    return index == 0 ? "a" : "b";
  }

  /** The text form described on the type: A, B, P1…Pn, helper, provider. */
  public String label() {
    return switch (kind) {
      case PARTY -> parties == 2 ? (index == 0 ? "A" : "B") : "P" + (index + 1);
      case HELPER -> "helper";
      case PROVIDER -> "provider";
    };
  }

  /**
   * Parses {@link #label()} (case-insensitive for A/B and the words). A {@code Pi} label needs the
   * number of parties, so this form reads it as party i of {@code parties}.
   *
   * @throws IllegalArgumentException naming the text when it is not a role
   */
  public static Role parse(String text, int parties) {
    Objects.requireNonNull(text, "role");
    String t = text.trim();
    if (t.equalsIgnoreCase("A")) {
      return A;
    }
    if (t.equalsIgnoreCase("B")) {
      return B;
    }
    if (t.equalsIgnoreCase("helper")) {
      return HELPER;
    }
    if (t.equalsIgnoreCase("provider")) {
      return PROVIDER;
    }
    if (t.length() > 1 && (t.charAt(0) == 'P' || t.charAt(0) == 'p')) {
      try {
        int i = Integer.parseInt(t.substring(1));
        if (i >= 1 && i <= parties && parties >= 3) {
          return party(i - 1, parties);
        }
      } catch (NumberFormatException e) {
        // falls through to the error below
      }
    }
    throw new IllegalArgumentException(
        "not a role: '" + t + "' (expected A or B, P1..Pn of n >= 3 parties, helper or provider)");
  }

  /**
   * A party of a two-party join: {@link #A} or {@link #B} as {@link #parse(String)} reads them.
   *
   * @throws IllegalArgumentException {@code must be A or B, not '<text>'} for anything else
   */
  public static Role twoParty(String text) {
    Role r;
    try {
      r = parse(text);
    } catch (IllegalArgumentException e) {
      r = null;
    }
    if (r == null || !r.isParty()) {
      throw new IllegalArgumentException("must be A or B, not '" + text + "'");
    }
    return r;
  }

  /** {@link #parse(String, int)} for the two-party world: A, B, helper, provider. */
  public static Role parse(String text) {
    return parse(text, 2);
  }

  /** A deserialized A, B, helper or provider is the constant itself (validated on the way in). */
  private Object readResolve() {
    for (Role r : new Role[] {A, B, HELPER, PROVIDER}) {
      if (r.equals(this)) {
        return r;
      }
    }
    return this;
  }

  @Override
  public String toString() {
    return label();
  }
}
