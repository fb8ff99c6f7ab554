package io.psiflink.jobs.bin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BinRoutingTest {
  @ParameterizedTest
  @CsvSource({"4, 2", "4, 4", "64, 2", "1024, 8", "3, 5", "65536, 16"})
  void everySubtaskGetsItsShareAndFlinkRoutesEachBinThere(int bins, int p) {
    int max = KeyGroupRangeAssignment.computeDefaultMaxParallelism(p);
    BinRouting r = new BinRouting(bins, max, p);
    Set<Integer> keys = new HashSet<>();
    List<Integer> all = new ArrayList<>();
    for (int s = 0; s < p; s++) {
      List<Integer> owned = r.binsOf(s);
      // b mod p, computed independently
      assertEquals(bins / p + (s < bins % p ? 1 : 0), owned.size());
      for (int b : owned) {
        assertEquals(s, b % p);
        assertEquals(s, KeyGroupRangeAssignment.assignKeyToParallelOperator(r.key(b), max, p));
        keys.add(r.key(b));
        all.add(b);
      }
    }
    assertEquals(bins, keys.size(), "routing keys are distinct");
    assertEquals(bins, new HashSet<>(all).size());
  }
}
