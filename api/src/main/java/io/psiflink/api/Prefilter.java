package io.psiflink.api;

import java.util.Locale;

/**
 * Whether the parties shrink their sets before the PSI. {@link #HELPER}: the server-aided sample
 * filter (Chen et al., "A Secure and Efficient Sample Filtering Protocol for Massive Data"): a
 * third organisation, the helper, deals the random correlations with which both parties compute the
 * AND of their Bloom filters of their tokens (it receives no data), and each party runs the PSI
 * only on its candidates, a superset of the intersection. The join's output is the same; what each
 * role learns in addition is in docs/security.md.
 */
public enum Prefilter {
  /** Every token of both parties goes to the PSI. */
  NONE,
  /** A helper pre-filters both sets ({@code --helper} names it). */
  HELPER,
  /**
   * The helper pre-filters both sets when the cost model expects that to save time, from both
   * parties' public sizes and the overlap the query expects ({@code --expected-overlap}); else
   * {@link #NONE}. Both jobs decide alike at their handshake (docs/benchmarks.md, "The automatic
   * choice").
   */
  AUTO;

  /** {@code none}, {@code helper} or {@code auto} (any case). */
  public static Prefilter parse(String text) {
    try {
      return valueOf(text.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("must be none, helper or auto, not '" + text + "'");
    }
  }

  /** Whether a helper takes part, or may: {@link #HELPER} and {@link #AUTO} name one. */
  public boolean namesHelper() {
    return this != NONE;
  }

  /** The form {@link #parse} reads: the lower-case name. */
  public String text() {
    return name().toLowerCase(Locale.ROOT);
  }
}
