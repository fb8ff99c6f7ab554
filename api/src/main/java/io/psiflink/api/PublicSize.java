package io.psiflink.api;

import java.io.Serializable;
import java.util.Locale;

/**
 * What a party discloses to its peer about the size of its set: the n that its padding bound is
 * computed from and that its bin HELLO announces (and the size estimate of the session handshake).
 * The peer learns n, never more: every bin is padded to the bound of n. Immutable.
 *
 * <ul>
 *   <li>{@code rounded} (default): the table's unfiltered record count (every record read, before
 *       WHERE and quarantine) rounded up to keep its 3 leading binary digits. It does not depend on
 *       the WHERE, so no query can learn a COUNT(*) under a predicate of its choosing; it costs at
 *       most +25 % padding over the unfiltered count (average about +9 %), and tells the peer only
 *       the table's size class, which changes only when the table itself crosses a bucket;
 *   <li>{@code declared:N}: the owner declares N (when registering the dataset); the job fails
 *       before any PSI message if more rows than N pass its WHERE;
 *   <li>{@code exact}: opt-in, the exact row count after WHERE (smallest padding, fastest; the peer
 *       learns COUNT(*) of the filtered table).
 * </ul>
 *
 * @param policy which of the three
 * @param declared N of {@code declared:N}, else 0
 */
public record PublicSize(Policy policy, long declared) implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Leading binary digits that {@code rounded} keeps. */
  public static final int ROUNDED_BITS = 3;

  public static final PublicSize ROUNDED = new PublicSize(Policy.ROUNDED, 0);
  public static final PublicSize EXACT = new PublicSize(Policy.EXACT, 0);
  public static final PublicSize DEFAULT = ROUNDED;

  /** The three policies. */
  public enum Policy {
    ROUNDED,
    DECLARED,
    EXACT
  }

  public PublicSize {
    if (policy == null) {
      throw new IllegalArgumentException("a public size policy is required");
    }
    if (policy == Policy.DECLARED ? declared < 0 : declared != 0) {
      throw new IllegalArgumentException("only declared:N has a size, N >= 0");
    }
  }

  public static PublicSize declared(long n) {
    return new PublicSize(Policy.DECLARED, n);
  }

  /** {@code rounded}, {@code exact} or {@code declared:N} (N an integer, 1_000_000 and 1e6 too). */
  public static PublicSize parse(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("rounded")) {
      return ROUNDED;
    }
    if (t.equals("exact")) {
      return EXACT;
    }
    if (t.startsWith("declared:")) {
      String n = t.substring("declared:".length()).replace("_", "");
      try {
        long v;
        if (n.contains("e")) {
          double d = Double.parseDouble(n);
          if (d != Math.rint(d) || d < 0 || d > 9e18) {
            throw new NumberFormatException();
          }
          v = (long) d;
        } else {
          v = Long.parseLong(n);
        }
        if (v >= 0) {
          return new PublicSize(Policy.DECLARED, v);
        }
      } catch (NumberFormatException e) {
        // falls through to the error naming the forms
      }
    }
    throw new IllegalArgumentException(
        "public size must be rounded, exact or declared:N (N a row "
            + "count >= 0), not '"
            + text
            + "'");
  }

  /** The form {@link #parse} reads. */
  public String text() {
    return switch (policy) {
      case ROUNDED -> "rounded";
      case EXACT -> "exact";
      case DECLARED -> "declared:" + declared;
    };
  }

  @Override
  public String toString() {
    return text();
  }

  /**
   * The n this party announces.
   *
   * @param tokenized rows that passed the WHERE and reached tokenization (the rows to intersect)
   * @param records every record of the table read, before WHERE and quarantine
   * @throws IllegalStateException under {@code declared:N} when {@code tokenized > N}
   */
  public long announce(long tokenized, long records) {
    return switch (policy) {
      case EXACT -> tokenized;
      case ROUNDED -> roundUp(Math.max(records, tokenized));
      case DECLARED -> {
        if (tokenized > declared) {
          throw new IllegalStateException(
              String.format(
                  Locale.ROOT,
                  "%,d rows passed the WHERE, "
                      + "more than the %,d this party declared as its public size (declared:%d); the "
                      + "join was stopped before any PSI message: declare a larger size for the dataset "
                      + "(or use rounded)",
                  tokenized,
                  declared,
                  declared));
        }
        yield declared;
      }
    };
  }

  /**
   * What the session handshake tells the peer as this party's size estimate (it steers the bin
   * count): never more precise than what the policy discloses anyway.
   */
  public long estimate(long unfilteredEstimate) {
    return switch (policy) {
      case EXACT -> unfilteredEstimate;
      case ROUNDED -> roundUp(unfilteredEstimate);
      case DECLARED -> declared;
    };
  }

  /** {@code n} rounded up to keep its {@link #ROUNDED_BITS} leading binary digits. */
  public static long roundUp(long n) {
    if (n < 0) {
      throw new IllegalArgumentException("a row count is >= 0, not " + n);
    }
    int bits = 64 - Long.numberOfLeadingZeros(n);
    if (bits <= ROUNDED_BITS) {
      return n;
    }
    long unit = 1L << (bits - ROUNDED_BITS);
    return Math.multiplyExact((n + unit - 1) / unit, unit);
  }

  /** A plain-words description, for summaries and the approval. */
  public String describe() {
    return switch (policy) {
      case ROUNDED ->
          "its table's total row count rounded up to 3 significant binary digits "
              + "(independent of the WHERE)";
      case EXACT -> "its exact row count after its WHERE";
      case DECLARED -> String.format(Locale.ROOT, "the size %,d its owner declared", declared);
    };
  }
}
