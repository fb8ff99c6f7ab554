package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.flink.streaming.api.functions.sink.filesystem.PartFileInfo;
import org.junit.jupiter.api.Test;

class SizeRollingPolicyTest {
  /** A part whose size the test sets, counting how often it is asked. */
  private static final class Part implements PartFileInfo<String> {
    long size;
    int asked;

    @Override
    public String getBucketId() {
      return "";
    }

    @Override
    public long getCreationTime() {
      return 0;
    }

    @Override
    public long getSize() {
      asked++;
      return size;
    }

    @Override
    public long getLastUpdateTime() {
      return 0;
    }
  }

  @Test
  void rollsAtTheFirstCheckAtOrPastTheLimitAndAsksTheSizeOncePerStride() throws Exception {
    SizeRollingPolicy<String> policy = new SizeRollingPolicy<>(1000);
    Part part = new Part();
    int events = 0;
    boolean rolled = false;
    while (!rolled) {
      part.size = 10L * events; // ten bytes a row
      rolled = policy.shouldRollOnEvent(part, "row");
      events++;
      assertTrue(events <= 100 + SizeRollingPolicy.CHECK_EVERY, "never rolled");
    }
    // the first look at or past 1000 bytes: at most one stride of rows late
    assertTrue(part.size >= 1000 && part.size < 1000 + 10L * SizeRollingPolicy.CHECK_EVERY);
    assertEquals(events / SizeRollingPolicy.CHECK_EVERY, part.asked);
    assertEquals(0, events % SizeRollingPolicy.CHECK_EVERY);
  }

  @Test
  void neverRollsBelowTheLimitNorOnTime() throws Exception {
    SizeRollingPolicy<String> policy = new SizeRollingPolicy<>(1000);
    Part part = new Part();
    part.size = 999;
    for (int i = 0; i < 10 * SizeRollingPolicy.CHECK_EVERY; i++) {
      assertFalse(policy.shouldRollOnEvent(part, "row"));
    }
    assertEquals(10, part.asked);
    assertFalse(policy.shouldRollOnProcessingTime(part, Long.MAX_VALUE));
  }

  @Test
  void rejectsANonPositiveLimit() {
    assertThrows(IllegalArgumentException.class, () -> new SizeRollingPolicy<String>(0));
  }
}
