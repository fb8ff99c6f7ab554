package io.psiflink.jobs.prefilter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PrefilterPlanTest {
  /**
   * The oracle of the false-positive formula: a Bloom filter of n keys whose k positions are
   * independent and uniform (what keyed positions of distinct tokens are), and the share of fresh
   * keys whose k positions are all set.
   */
  static double simulatedFalsePositive(int bits, int k, int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    long[] f = new long[1 << (bits - 6)];
    for (int i = 0; i < n * k; i++) {
      int p = r.nextInt(1 << bits);
      f[p >>> 6] |= 1L << p;
    }
    int trials = 200_000;
    int hits = 0;
    for (int t = 0; t < trials; t++) {
      boolean all = true;
      for (int j = 0; j < k; j++) {
        int p = r.nextInt(1 << bits);
        all &= (f[p >>> 6] & (1L << p)) != 0;
      }
      hits += all ? 1 : 0;
    }
    return hits / (double) trials;
  }

  @Test
  void theFalsePositiveRateIsTheSimulatedOne() {
    int[][] cases = {{16, 1, 30_000}, {16, 2, 30_000}, {18, 3, 40_000}, {20, 2, 800_000}};
    for (int[] c : cases) {
      PrefilterPlan p = new PrefilterPlan(c[0], c[1], Role.A);
      double expected = p.falsePositive(c[2]);
      double sim = simulatedFalsePositive(c[0], c[1], c[2], c[0] * 7L + c[1]);
      // 200,000 trials: 6 standard deviations of the binomial
      double sd = Math.sqrt(expected * (1 - expected) / 200_000);
      assertTrue(
          Math.abs(sim - expected) < 6 * sd + 1e-4,
          "L=" + c[0] + " k=" + c[1] + ": " + sim + " simulated, " + expected + " by the formula");
    }
  }

  @Test
  void autoFiltersWhenTheModelExpectsTimeSaved() {
    // 10^8 x 10^7: even if every key of the smaller table is common, A's 9 * 10^7 others leave
    // the PSI: 154 s by the model without the filter, 116 s with it
    PrefilterPlan unequal = PrefilterPlan.choose(0, 0, 100_000_000, 10_000_000);
    assertTrue(unequal.pays(100_000_000, 10_000_000, 1.0));
    assertTrue(unequal.pays(100_000_000, 10_000_000, 0.001));
    // 10^7 x 10^7: pays when few keys are common, not when most are
    PrefilterPlan equal = PrefilterPlan.choose(0, 0, 10_000_000, 10_000_000);
    assertTrue(equal.pays(10_000_000, 10_000_000, 0.01));
    assertTrue(equal.pays(10_000_000, 10_000_000, 0.1));
    assertFalse(equal.pays(10_000_000, 10_000_000, 0.5)); // measured: 3 s slower with it
    assertFalse(equal.pays(10_000_000, 10_000_000, 0.9));
    assertFalse(equal.pays(10_000_000, 10_000_000, 1.0));
    // small joins: the filter's fixed cost is more than the whole PSI
    PrefilterPlan small = PrefilterPlan.choose(0, 0, 1_000_000, 100_000);
    assertFalse(small.pays(1_000_000, 100_000, 0));
    // a break-even overlap: paying below it, not above (the candidates grow with the overlap)
    for (long n = 1_000_000; n <= 1_000_000_000L; n *= 10) {
      PrefilterPlan p = PrefilterPlan.choose(0, 0, n, n);
      boolean paid = true;
      for (int percent = 0; percent <= 100; percent++) {
        boolean pays = p.pays(n, n, percent / 100.0);
        assertTrue(paid || !pays, n + " pays at " + percent + " % after not paying below");
        paid = pays;
      }
    }
    assertTrue(unequal.describeChoice(100_000_000, 10_000_000, 1.0).contains("2^28 bits"));
  }

  @Test
  void theAutomaticChoiceMinimisesTheModelAndIsBounded() {
    // 10^8 x 10^7 (the benchmark): a filter of 2^28 bits, 2 hashes, by hand from the
    // model: 14 ns x 2^28 = 3.8 s of filter, and (with no key in common) A's 10^8 keys pass with
    // (1 - e^(-2/26.8))^2 = 0.52 %, B's 10^7 with (1 - e^(-2 * 0.373))^2 = 27.5 %: 3.27 * 10^6
    // false candidates, 4.6 s; 2^29 costs 3.8 s more in filter and saves 3.0 s of candidates
    assertEquals(
        new PrefilterPlan(28, 2, Role.B), PrefilterPlan.choose(0, 0, 100_000_000, 10_000_000));
    // small sets: the least filter
    assertEquals(16, PrefilterPlan.choose(0, 0, 1000, 1000).filterBits());
    // 10^9 x 10^9: the automatic cap, 3 hashes
    assertEquals(
        new PrefilterPlan(PrefilterPlan.AUTO_MAX_BITS, 3, Role.A),
        PrefilterPlan.choose(0, 0, 1_000_000_000, 1_000_000_000));
    // sets far beyond what any filter of the cap can tell apart: every filter passes everything,
    // so the cheapest one is taken (the model's answer; the user should not pre-filter these)
    assertEquals(16, PrefilterPlan.choose(0, 0, 1L << 40, 1L << 40).filterBits());
    // larger sets never get a smaller filter
    int last = 0;
    for (long n = 1_000; n <= 1_000_000_000L; n *= 10) {
      int bits = PrefilterPlan.choose(0, 0, n, n / 10).filterBits();
      assertTrue(bits >= last, n + ": " + bits + " after " + last);
      last = bits;
    }
  }

  /** The party with the smaller table has its filter first: it chooses; A on a tie. */
  @Test
  void theSmallerPartyChooses() {
    assertEquals(Role.B, PrefilterPlan.choose(0, 0, 100_000_000, 10_000_000).chooser());
    assertEquals(Role.A, PrefilterPlan.choose(0, 0, 10_000_000, 100_000_000).chooser());
    assertEquals(Role.A, PrefilterPlan.choose(24, 2, 1_000, 1_000).chooser());
  }

  @Test
  void requestsWin() {
    assertEquals(new PrefilterPlan(24, 2, Role.A), PrefilterPlan.choose(24, 2, 5, 7));
    assertEquals(5, PrefilterPlan.choose(0, 5, 40_000, 7).hashes());
    assertEquals(36, PrefilterPlan.choose(36, 0, 10, 10).filterBits());
    assertEquals(1L << 18, new PrefilterPlan(24, 1, Role.A).words());
    assertEquals(1L << 21, new PrefilterPlan(24, 1, Role.A).bytes());
  }

  @Test
  void theCandidateBoundHoldsTheIntersectionAndTheExpectedFalseCandidates() {
    PrefilterPlan p = new PrefilterPlan(28, 2, Role.A);
    long bound = p.candidateBound(100_000_000, 10_000_000);
    // B's 10^7 keys could all be common; A's other 9 * 10^7 keys add (1 - e^-(2/26.8))^2 each
    double fpA = Math.pow(1 - Math.exp(-2 * 1e7 / Math.pow(2, 28)), 2);
    assertEquals(1e7 + 9e7 * fpA, bound, 1);
    assertEquals(2 * 1000 + 0.0, p.expectedCandidates(1000, 1000, 1000), 1e-9);
  }

  @Test
  void outOfRangeIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new PrefilterPlan(15, 2, Role.A));
    assertThrows(IllegalArgumentException.class, () -> new PrefilterPlan(37, 2, Role.A));
    assertThrows(IllegalArgumentException.class, () -> new PrefilterPlan(20, 0, Role.A));
    assertThrows(IllegalArgumentException.class, () -> new PrefilterPlan(20, 17, Role.A));
    assertThrows(IllegalArgumentException.class, () -> new PrefilterPlan(20, 2, Role.HELPER));
    assertThrows(IllegalArgumentException.class, () -> PrefilterPlan.choose(0, 0, -1, 3));
  }
}
