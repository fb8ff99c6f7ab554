package io.psiflink.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BackPressureTest {
  private static final int MIB = 1 << 20;

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
  void senderBlocksWithBoundedDataInFlightThenTimesOut() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      Duration idle = Duration.ofMillis(1500);
      BridgeClient a = bed.client(TestBed.A, c -> c.withIdleTimeout(idle));
      BridgeClient b = bed.client(TestBed.B);
      BridgeStream[] s = StreamIo.openPair(pool, a, b, "bp", "bin-1");
      byte[] frame = new byte[MIB];
      int sent = 0;
      long blockedAt = 0;
      BridgeTimeoutException timeout = null;
      while (sent < 200) { // b never reads
        long before = System.nanoTime();
        try {
          s[0].send(frame);
          sent++;
        } catch (BridgeTimeoutException e) {
          blockedAt = System.nanoTime() - before;
          timeout = e;
          break;
        }
      }
      System.out.printf("sender blocked after %d MiB in flight%n", sent);
      assertTrue(
          timeout != null,
          "send() never blocked although the receiver does not read (" + sent + " MiB sent)");
      assertTrue(
          sent >= 1 && sent < 32,
          "data in flight before blocking must be bounded, was " + sent + " MiB");
      assertTrue(
          blockedAt >= idle.toNanos() - TimeUnit.MILLISECONDS.toNanos(50),
          "send() gave up before the idle timeout: " + blockedAt / 1_000_000 + " ms");
      assertTrue(
          timeout.getMessage().contains("bin-1") && timeout.getMessage().contains("party-b"),
          timeout.getMessage());
      assertEquals((long) sent * MIB, s[0].bytesSent());
      s[0].close();
      s[1].close();
    }
  }

  @Test
  void everythingArrivesOnceTheReaderStarts() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient a = bed.client(TestBed.A);
      BridgeClient b = bed.client(TestBed.B);
      BridgeStream[] s = StreamIo.openPair(pool, a, b, "bp", "bin-2");
      int frames = 48;
      AtomicInteger progress = new AtomicInteger();
      Future<String> sent =
          pool.submit(
              () -> {
                String sha = StreamIo.sender(s[0], 7, frames, MIB).call();
                progress.set(frames);
                return sha;
              });
      Thread.sleep(
          1000); // the reader is late: the sender must stall, not fail or buffer everything
      assertTrue(!sent.isDone(), "the sender should be stalled by back-pressure");
      String received = StreamIo.receiver(s[1], 7, frames, MIB).call();
      assertEquals(sent.get(30, TimeUnit.SECONDS), received);
      s[1].finish();
      assertEquals(null, s[0].receive());
      s[0].close();
      s[1].close();
    }
  }

  @Test
  void framesLargerThanTheLimitAreRefusedLocally() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient a = bed.client(TestBed.A, c -> c.withMaxFrameBytes(1024));
      BridgeClient b = bed.client(TestBed.B);
      BridgeStream[] s = StreamIo.openPair(pool, a, b, "big", "bin-1");
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> s[0].send(new byte[1025]));
      assertTrue(e.getMessage().contains("maxFrameBytes"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> s[0].send(new byte[2000], 0, 1025));
      assertEquals(0, s[0].bytesSent());
      s[0].send(new byte[1024]); // the stream is still fine
      assertEquals(1024, s[1].receive().length);
      s[0].finish();
      s[1].finish();
      assertEquals(null, s[1].receive());
      assertEquals(null, s[0].receive());
      s[0].close();
      s[1].close();
    }
  }
}
