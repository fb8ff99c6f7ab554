package io.psiflink.bridge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransferTest {
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
  void pairsAndTransfers32MiBEachWayConcurrently() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient a = bed.client(TestBed.A);
      BridgeClient b = bed.client(TestBed.B);
      BridgeStream[] s = StreamIo.openPair(pool, a, b, "session-1", "bin-17");
      BridgeStream sa = s[0];
      BridgeStream sb = s[1];
      assertEquals(0, sa.attempt());
      assertEquals(0, sb.attempt());
      assertEquals(TestBed.B, sa.peerParty());
      assertEquals(TestBed.A, sb.peerParty());
      assertEquals("session-1", sa.session());
      assertEquals("bin-17", sb.channel());

      int frames = 32;
      long start = System.nanoTime();
      Future<String> aSent = pool.submit(StreamIo.sender(sa, 1, frames, MIB));
      Future<String> bSent = pool.submit(StreamIo.sender(sb, 2, frames, MIB));
      Future<String> aReceived = pool.submit(StreamIo.receiver(sa, 2, frames, MIB));
      Future<String> bReceived = pool.submit(StreamIo.receiver(sb, 1, frames, MIB));
      assertEquals(aSent.get(), bReceived.get(), "a -> b content");
      assertEquals(bSent.get(), aReceived.get(), "b -> a content");
      assertEquals(StreamIo.expectedSha(1, frames, MIB), aSent.get());
      System.out.printf(
          "64 MiB relayed in %d ms%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));

      long total = (long) frames * MIB;
      assertEquals(total, sa.bytesSent());
      assertEquals(total, sa.bytesReceived());
      assertEquals(total, sb.bytesSent());
      assertEquals(total, sb.bytesReceived());
      sa.close();
      sb.close();
      RelayStats stats = bed.relay.stats();
      assertEquals(2, stats.streamsOpened());
      assertEquals(1, stats.pairsMade());
      assertEquals(2 * total, stats.bytesRelayed());
      TestBed.awaitNoActivePairs(bed.relay);
    }
  }

  @Test
  void emptyFramesAndEmptyStreamsKeepTheirMeaning() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeStream[] s =
          StreamIo.openPair(pool, bed.client(TestBed.A), bed.client(TestBed.B), "s", "control");
      s[0].send(new byte[0]);
      s[0].send(new byte[] {1, 2, 3}, 1, 2);
      s[0].finish();
      s[0].finish(); // idempotent
      assertArrayEquals(
          new byte[0], s[1].receive(), "an empty DATA frame is not the end of the stream");
      assertArrayEquals(new byte[] {2, 3}, s[1].receive());
      assertNull(s[1].receive());
      s[1].finish();
      assertNull(s[0].receive(), "a stream that sent nothing just finishes");
      s[0].close();
      s[1].close();
    }
  }

  @Test
  void sixtyFourConcurrentChannelsEachCarryTheirOwnData() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient a = bed.client(TestBed.A);
      BridgeClient b = bed.client(TestBed.B);
      int channels = 64;
      int frames = 8;
      int size = 32 * 1024;
      ExecutorService workers = Executors.newFixedThreadPool(2 * channels);
      try {
        List<Future<Integer>> results = new ArrayList<>();
        for (int c = 0; c < channels; c++) {
          String channel = "bin-" + c;
          long seedA = 1000 + c;
          long seedB = 2000 + c;
          results.add(workers.submit(() -> pingPong(a, channel, seedA, seedB, frames, size)));
          results.add(workers.submit(() -> pingPong(b, channel, seedB, seedA, frames, size)));
        }
        for (Future<Integer> r : results) {
          assertEquals(0, r.get(30, TimeUnit.SECONDS));
        }
      } finally {
        workers.shutdownNow();
      }
      RelayStats stats = bed.relay.stats();
      assertEquals(channels, stats.pairsMade());
      assertEquals(2L * channels * frames * size, stats.bytesRelayed());
      TestBed.awaitNoActivePairs(bed.relay);
    }
  }

  /** Sends frame i and reads the peer's frame i, both parties at once; returns the attempt. */
  private static int pingPong(
      BridgeClient client, String channel, long mySeed, long peerSeed, int frames, int size)
      throws Exception {
    try (BridgeStream s = client.open("many", channel)) {
      for (int i = 0; i < frames; i++) {
        s.send(TestBed.frame(mySeed, i, size));
        assertArrayEquals(TestBed.frame(peerSeed, i, size), s.receive(), channel + " frame " + i);
      }
      s.finish();
      assertNull(s.receive());
      assertEquals((long) frames * size, s.bytesReceived());
      return s.attempt();
    }
  }
}
