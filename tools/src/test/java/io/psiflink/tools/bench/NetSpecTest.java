package io.psiflink.tools.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class NetSpecTest {
  @Test
  void parsesTcUnitsAndPrintsThemBack() {
    NetSpec n = NetSpec.parse("100mbit,10ms");
    assertEquals(100_000_000L, n.rateBitsPerSecond());
    assertEquals(Duration.ofMillis(10), n.delay());
    assertEquals("100mbit,10ms", n.text());
    assertEquals("100000000bit", n.tcRate());
    assertEquals(12_500_000L, n.rateBytesPerSecond());

    assertEquals(1_000_000_000L, NetSpec.parse("1gbit,0ms").rateBitsPerSecond());
    assertEquals(Duration.ZERO, NetSpec.parse("1gbit,0ms").delay());
    assertEquals("1500kbit,250us", NetSpec.parse("1.5mbit,250us").text());
    assertEquals(Duration.ofMillis(1500), NetSpec.parse("10MBIT, 1.5s").delay());
    assertEquals("8kbit,1ms", new NetSpec(8000, Duration.ofMillis(1)).text());
  }

  @Test
  void tbfBucketAndQueueFollowTheRate() {
    NetSpec slow = NetSpec.parse("1mbit,10ms");
    assertEquals(16 * 1024, slow.tbfBurstBytes());
    assertEquals(3 * 16 * 1024, slow.tbfLimitBytes());
    NetSpec fast = NetSpec.parse("1gbit,10ms");
    assertEquals(500_000, fast.tbfBurstBytes()); // 4 ms of 125 MB/s
    assertEquals(1_500_000, fast.tbfLimitBytes());
  }

  @Test
  void aWrongSpecIsOneClearMessage() {
    for (String[] c :
        new String[][] {
          {"100mbit", "RATE,DELAY"},
          {"100mbit,10ms,1", "RATE,DELAY"},
          {"100mbps,10ms", "tc's units"},
          {"fast,10ms", "'fast'"},
          {"100mbit,10", "us, ms or s"},
          {"100mbit,-1ms", "'-1ms'"},
          {"1kbit,10ms", "at least 8kbit"},
          {"100mbit,11s", "[0, 10s]"},
        }) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> NetSpec.parse(c[0]), c[0]);
      assertTrue(e.getMessage().contains(c[1]), c[0] + ": " + e.getMessage());
    }
  }
}
