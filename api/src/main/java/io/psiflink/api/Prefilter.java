package io.psiflink.api;

import java.util.Locale;

/**
 * Whether the parties shrink their sets before the PSI. {@link #HELPER}: the server-aided sample
 * filter (Chen et al., "A Secure and Efficient Sample Filtering Protocol for Massive Data"): a
 * third organisation, the helper, combines both parties' permuted, masked Bloom filters of their
 * tokens, and each party runs the PSI only on its candidates, a superset of the intersection. The
 * join's output is the same; what each role learns in addition is in docs/security.md.
 */
public enum Prefilter {
  /** Every token of both parties goes to the PSI. */
  NONE,
  /** A helper pre-filters both sets ({@code --helper} names it). */
  HELPER;

  /** {@code none} or {@code helper} (any case). */
  public static Prefilter parse(String text) {
    try {
      return valueOf(text.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("must be none or helper, not '" + text + "'");
    }
  }

  /** The form {@link #parse} reads: the lower-case name. */
  public String text() {
    return name().toLowerCase(Locale.ROOT);
  }
}
