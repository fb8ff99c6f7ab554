package io.psiflink.jobs.prefilter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.helper.CorrelationStreams;
import io.psiflink.helper.DealtAnd;
import io.psiflink.jobs.token.Tokens;
import io.psiflink.nativepsi.FilterPositions;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The filters the pre-filter builds, and what the peer sees of them. */
class FilterChunksTest {
  /**
   * What B sees of A's filter x is e = x ⊕ σ, σ from A's dealt seed: for a nearly empty and a
   * nearly full set alike its share of ones is within the Hoeffding bound at 2^-40 of 1/2, while
   * the filters themselves are far from it (so the test can fail). The helper sees neither.
   */
  @Test
  void whatThePeerSeesOfAFilterIsBalancedForNearlyEmptyAndNearlyFullSets() {
    int bits = 18;
    int words = 1 << (bits - 6);
    long len = 1L << bits;
    double bound = Math.sqrt(Math.log(2) * 41 / (2.0 * len));
    SplittableRandom r = new SplittableRandom(2026);
    long[] empty = filterOf(r, 5, 2, bits);
    long[] full = filterOf(r, 1 << 19, 4, bits); // n k / len = 8: 1 - e^-8 of the bits set
    byte[] seed = new byte[CorrelationStreams.SEED_BYTES];
    r.nextBytes(seed);
    for (long[] x : new long[][] {empty, full}) {
      double plain = FilterChunks.ones(x) / (double) len;
      assertTrue(Math.abs(plain - 0.5) > 0.4, "the filter itself is unbalanced: " + plain);
      long[] e = new long[words];
      new CorrelationStreams(seed).expand(CorrelationStreams.SIGMA, 0, e, words);
      DealtAnd.maskChoice(e, x, words);
      double seen = FilterChunks.ones(e) / (double) len;
      assertTrue(
          Math.abs(seen - 0.5) < bound,
          "the peer's view's share of ones " + seen + " is off 1/2 by more than " + bound);
    }
  }

  /** The filter of n random tokens, positions by the job's own FilterPositions (native FF1). */
  private static long[] filterOf(SplittableRandom r, int n, int k, int bits) {
    long[] f = new long[1 << (bits - 6)];
    byte[] key = new byte[32];
    r.nextBytes(key);
    byte[] tokens = new byte[n * Tokens.BYTES];
    r.nextBytes(tokens);
    long[] positions = new long[n * k];
    try (FilterPositions fp = FilterPositions.create(key, bits, k)) {
      fp.positions(tokens, n, Tokens.BYTES, positions);
    }
    FilterChunks.set(f, positions, positions.length);
    return f;
  }

  @Test
  void piecesRoundTripAndRefuseWhatDoesNotFit() {
    long[] filter = new long[FilterChunks.WORDS * 2];
    filter[FilterChunks.WORDS + 3] = 42;
    long[] piece = FilterChunks.of(filter, FilterChunks.WORDS, FilterChunks.WORDS);
    long[] other = new long[filter.length];
    FilterChunks.orInto(piece, other);
    assertArrayEquals(filter, other);
    long[] bad = {filter.length - 1, 1, 2};
    assertThrows(IllegalArgumentException.class, () -> FilterChunks.orInto(bad, other));
    long[] negative = {-1, 1};
    assertThrows(IllegalArgumentException.class, () -> FilterChunks.copyInto(negative, other));
  }
}
