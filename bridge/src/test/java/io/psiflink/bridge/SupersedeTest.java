package io.psiflink.bridge;

import static io.psiflink.bridge.TimeoutTest.assertMentions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SupersedeTest {
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
  void newerStreamOfTheSamePartyReplacesAWaitingOne() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient a = bed.client(TestBed.A);
      BridgeClient b = bed.client(TestBed.B);
      Future<BridgeStream> first = pool.submit(() -> a.open("s", "c"));
      TestBed.awaitWaiting(bed.relay, 1);
      Future<BridgeStream> second = pool.submit(() -> a.open("s", "c"));
      Exception e = assertThrows(Exception.class, () -> first.get(5, TimeUnit.SECONDS));
      BridgeException cause = (BridgeException) e.getCause();
      assertFalse(cause instanceof BridgePeerException);
      assertMentions(cause, "superseded by a newer stream of the same party", "'s'", "'c'");

      BridgeStream sb = b.open("s", "c");
      BridgeStream sa = second.get(5, TimeUnit.SECONDS);
      assertEquals(0, sa.attempt(), "the superseded stream was never paired");
      assertEquals(0, sb.attempt());
      finishBoth(sa, sb);

      // The next pairing of the same key, after a finished pair, is attempt 1.
      BridgeStream[] again = StreamIo.openPair(pool, a, b, "s", "c");
      assertEquals(1, again[0].attempt());
      assertEquals(1, again[1].attempt());
      finishBoth(again[0], again[1]);
      assertEquals(2, bed.relay.stats().pairsMade());
    }
  }

  @Test
  void newerStreamOfTheSamePartyReplacesAPairedOne() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient a = bed.client(TestBed.A);
      BridgeClient b = bed.client(TestBed.B);
      BridgeStream[] old = StreamIo.openPair(pool, a, b, "s", "c");
      assertEquals(0, old[0].attempt());

      Future<BridgeStream> restarted =
          pool.submit(() -> a.open("s", "c")); // e.g. a's task restarted
      BridgeException own = assertThrows(BridgeException.class, old[0]::receive);
      assertFalse(own instanceof BridgePeerException);
      assertMentions(own, "superseded by a newer stream of the same party", "attempt 0");
      BridgePeerException peer = assertThrows(BridgePeerException.class, old[1]::receive);
      assertMentions(peer, "peer 'party-a' restarted the stream", "attempt 0");
      old[0].close();
      old[1].close();

      BridgeStream sb = b.open("s", "c");
      BridgeStream sa = restarted.get(5, TimeUnit.SECONDS);
      assertEquals(1, sa.attempt());
      assertEquals(1, sb.attempt());
      finishBoth(sa, sb);
    }
  }

  private static void finishBoth(BridgeStream x, BridgeStream y) throws BridgeException {
    x.send(new byte[] {1});
    x.finish();
    y.finish();
    assertEquals(1, y.receive().length);
    assertNull(y.receive());
    assertNull(x.receive());
    x.close();
    y.close();
  }
}
