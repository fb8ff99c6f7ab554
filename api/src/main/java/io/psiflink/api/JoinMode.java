package io.psiflink.api;

import java.util.Locale;

/**
 * Who learns the intersection of a two-party join. The output party (A) always learns its own
 * matching rows; the mode says what the party that supplies columns (B) learns.
 */
public enum JoinMode {
  /** Both parties learn the intersecting keys; B sends the columns of its matching rows. */
  BOTH,
  /**
   * B learns nothing about the intersection, not even its size: it sends, for every one of its
   * keys, its rows encrypted under a key only a party holding that key can derive (labelled PSI),
   * each label padded to the public {@code --label-bytes}.
   */
  LABELED;

  /** Whether the party playing {@code role} learns the intersection: all but B of LABELED. */
  public boolean revealsIntersectionTo(Role role) {
    return this != LABELED || !role.equals(Role.B);
  }

  /** {@code both} or {@code labeled} (any case). */
  public static JoinMode parse(String text) {
    try {
      return valueOf(text.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("must be both or labeled, not '" + text + "'");
    }
  }

  /** The form {@link #parse} reads: the lower-case name. */
  public String text() {
    return name().toLowerCase(Locale.ROOT);
  }
}
