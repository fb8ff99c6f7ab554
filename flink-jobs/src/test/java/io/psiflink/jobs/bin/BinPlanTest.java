package io.psiflink.jobs.bin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BinPlanTest {
  @Test
  void matchesThePapersWorkedExample() {
    // Section 3.1: n = 10^9, σ = 80, m = 64 gives δ0 ≈ 0.0034 and bins of ≈ 15.68 million.
    assertEquals(0.0034, BinPlan.delta(1_000_000_000L, 64, 80), 0.00005);
    assertEquals(15.68e6, BinPlan.bound(1_000_000_000L, 64, 80), 0.01e6);
  }

  @Test
  void smallBinsUseTheGeneralChernoffForm() {
    double d = BinPlan.delta(100, 10, 40);
    assertTrue(d > 1, "δ0 for 10 elements per bin is above 1: " + d);
    // The bound must still hold: P[X > bound] ≤ m·exp(-δ²μ/(2+δ)) = 2^-40.
    double mu = 10;
    double tail = 10 * Math.exp(-d * d * mu / (2 + d));
    assertEquals(Math.pow(2, -40), tail, Math.pow(2, -40) * 1e-6);
    assertTrue(BinPlan.bound(0, 8, 40) > 0);
  }

  @Test
  void observedMaxBinStaysUnderTheBound() {
    // 200 trials of 100,000 balls into 64 bins: the maximum never comes near the 2^-40 bound.
    SplittableRandom r = new SplittableRandom(1);
    long bound = BinPlan.bound(100_000, 64, 40);
    for (int t = 0; t < 200; t++) {
      int[] c = new int[64];
      for (int i = 0; i < 100_000; i++) {
        c[r.nextInt(64)]++;
      }
      for (int x : c) {
        assertTrue(x <= bound);
      }
    }
  }

  @Test
  void autoBinsFollowsTheDocumentedRule() {
    assertEquals(4, BinPlan.autoBins(1_000, 2));
    assertEquals(4, BinPlan.autoBins(1_000_000, 2));
    assertEquals(16, BinPlan.autoBins(10_000_000, 2));
    assertEquals(128, BinPlan.autoBins(100_000_000, 2));
    assertEquals(32, BinPlan.autoBins(1_000, 16));
  }

  @Test
  void rejectsBadArguments() {
    assertThrows(IllegalArgumentException.class, () -> BinPlan.bound(-1, 4, 40));
    assertThrows(IllegalArgumentException.class, () -> BinPlan.bound(10, 0, 40));
    assertThrows(IllegalArgumentException.class, () -> BinPlan.bound(10, 4, 0));
    assertThrows(IllegalArgumentException.class, () -> BinPlan.bound(1L << 40, 1, 40));
  }
}
