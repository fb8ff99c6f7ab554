package io.psiflink.jobs.prefilter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigInteger;
import org.junit.jupiter.api.Test;

class PrefilterPlanTest {
  /** The oracle: the least L with 2^L >= 2n, by BigInteger arithmetic rather than bit tricks. */
  private static int leastBits(long n) {
    BigInteger twoN = BigInteger.valueOf(n).shiftLeft(1);
    int l = 0;
    while (BigInteger.ONE.shiftLeft(l).compareTo(twoN) < 0) {
      l++;
    }
    return Math.max(16, Math.min(36, l));
  }

  @Test
  void autoBitsIsTheLeastFilterOfTwiceTheLargerSet() {
    long[] sizes = {
      0,
      1,
      2,
      3,
      1000,
      32_767,
      32_768,
      32_769,
      65_536,
      1_000_000,
      1L << 20,
      (1L << 20) + 1,
      100_000_000,
      1L << 34,
      (1L << 34) + 1,
      1L << 40,
      Long.MAX_VALUE / 2
    };
    for (long n : sizes) {
      assertEquals(leastBits(n), PrefilterPlan.autoBits(n), "n = " + n);
    }
    // the examples: 10^6 -> 2^21 (2^21 >= 2*10^6 > 2^20); 10^8 -> 2^28
    assertEquals(21, PrefilterPlan.choose(0, 0, 1_000_000, 100_000).filterBits());
    assertEquals(28, PrefilterPlan.choose(0, 0, 10_000, 100_000_000).filterBits());
    assertEquals(16, PrefilterPlan.choose(0, 0, 10, 20).filterBits());
    assertEquals(36, PrefilterPlan.choose(0, 0, 1L << 40, 1).filterBits());
  }

  @Test
  void requestsWinAndKDefaultsToTwo() {
    assertEquals(new PrefilterPlan(24, 2), PrefilterPlan.choose(24, 0, 5, 7));
    assertEquals(new PrefilterPlan(17, 5), PrefilterPlan.choose(0, 5, 40_000, 7));
    assertEquals(1L << 18, new PrefilterPlan(24, 1).words());
    assertEquals(1L << 21, new PrefilterPlan(24, 1).bytes());
  }

  @Test
  void outOfRangeIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new PrefilterPlan(15, 2));
    assertThrows(IllegalArgumentException.class, () -> new PrefilterPlan(37, 2));
    assertThrows(IllegalArgumentException.class, () -> new PrefilterPlan(20, 0));
    assertThrows(IllegalArgumentException.class, () -> new PrefilterPlan(20, 17));
    assertThrows(IllegalArgumentException.class, () -> PrefilterPlan.choose(0, 0, -1, 3));
  }
}
