package io.psiflink.bridge;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TimeoutTest {
  @TempDir static Path dir;
  private static ThrowawayPki pki;
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @BeforeAll
  static void createPki() {
    pki = TestBed.pki(dir);
  }

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  @Test
  void clientGivesUpWhenThePeerNeverOpens() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient a = bed.client(TestBed.A, c -> c.withPairTimeout(Duration.ofMillis(800)));
      long start = System.nanoTime();
      BridgeTimeoutException e =
          assertThrows(BridgeTimeoutException.class, () -> a.open("lonely", "bin-4"));
      long ms = elapsedMs(start);
      assertTrue(ms >= 750 && ms < 5000, "took " + ms + " ms");
      assertMentions(e, "lonely", "bin-4", "800 ms");
      TestBed.awaitWaiting(bed.relay, 0); // the relay forgot the abandoned stream
    }
  }

  @Test
  void relayGivesUpWhenThePeerNeverOpens() throws Exception {
    try (TestBed bed = new TestBed(pki, c -> c.withPairTimeout(Duration.ofMillis(700)))) {
      BridgeClient a = bed.client(TestBed.A);
      long start = System.nanoTime();
      BridgeTimeoutException e =
          assertThrows(BridgeTimeoutException.class, () -> a.open("lonely", "bin-5"));
      long ms = elapsedMs(start);
      assertTrue(ms >= 650 && ms < 5000, "took " + ms + " ms");
      assertMentions(e, "peer did not open stream", "lonely", "bin-5", "700 ms");
      TestBed.awaitWaiting(bed.relay, 0);
    }
  }

  @Test
  void receiveTimesOutWhenThePairedPeerSendsNothing() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient a = bed.client(TestBed.A, c -> c.withIdleTimeout(Duration.ofMillis(500)));
      BridgeClient b = bed.client(TestBed.B);
      BridgeStream[] s = StreamIo.openPair(pool, a, b, "quiet", "bin-6");
      long start = System.nanoTime();
      BridgeTimeoutException e = assertThrows(BridgeTimeoutException.class, s[0]::receive);
      long ms = elapsedMs(start);
      assertTrue(ms >= 480 && ms < 5000, "took " + ms + " ms");
      assertMentions(e, "party-b", "quiet", "bin-6", "attempt 0", "500 ms");
      // A timeout is not fatal: the stream still works when data comes.
      s[1].send(new byte[] {42});
      assertTrue(s[0].receive()[0] == 42);
      s[0].close();
      s[1].close();
    }
  }

  static long elapsedMs(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  static void assertMentions(Exception e, String... parts) {
    for (String part : parts) {
      assertTrue(
          e.getMessage() != null && e.getMessage().contains(part),
          "message should mention '" + part + "': " + e.getMessage());
    }
  }
}
