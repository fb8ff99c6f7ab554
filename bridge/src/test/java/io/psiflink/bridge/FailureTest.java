package io.psiflink.bridge;

import static io.psiflink.bridge.TimeoutTest.assertMentions;
import static io.psiflink.bridge.TimeoutTest.elapsedMs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
class FailureTest {
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
  void abortReasonReachesTheBlockedReceiver() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeStream[] s =
          StreamIo.openPair(pool, bed.client(TestBed.A), bed.client(TestBed.B), "s", "bin-3");
      s[1].send(new byte[] {1});
      Future<Exception> blocked =
          pool.submit(
              () -> {
                assertArrayEquals(new byte[] {1}, s[0].receive());
                return assertThrows(
                    BridgePeerException.class, s[0]::receive); // blocks until the abort arrives
              });
      Thread.sleep(200);
      s[1].abort("bin 3 failed: xyz");
      Exception e = blocked.get(5, TimeUnit.SECONDS);
      assertMentions(e, "party-b", "aborted", "bin 3 failed: xyz", "bin-3", "attempt 0");
      // Sending fails the same way afterwards, and keeps failing.
      BridgePeerException onSend =
          assertThrows(BridgePeerException.class, () -> s[0].send(new byte[1]));
      assertMentions(onSend, "bin 3 failed: xyz");
      assertThrows(BridgePeerException.class, s[0]::receive);
      // The aborting side cannot use its stream either.
      BridgeException own = assertThrows(BridgeException.class, () -> s[1].send(new byte[1]));
      assertMentions(own, "aborted by this party");
      s[0].close();
      s[1].close();
      TestBed.awaitNoActivePairs(bed.relay);
    }
  }

  @Test
  void closingWithoutFinishingAbortsThePeer() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeStream[] s =
          StreamIo.openPair(pool, bed.client(TestBed.A), bed.client(TestBed.B), "s", "bin-4");
      s[0].send(new byte[] {1});
      s[0].finish();
      assertArrayEquals(new byte[] {1}, s[1].receive());
      assertNull(s[1].receive(), "b has read all of a's direction");
      s[0].close(); // but a never read b's direction: that is an abort
      BridgePeerException e =
          assertThrows(
              BridgePeerException.class,
              () -> {
                for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    System.nanoTime() < end; ) {
                  s[1].send(new byte[1]);
                  Thread.sleep(20);
                }
              });
      assertMentions(e, "peer 'party-a' aborted: closed by party-a", "bin-4");
      s[1].close();
    }
  }

  @Test
  void closingWithoutFinishingWakesABlockedReceiver() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeStream[] s =
          StreamIo.openPair(pool, bed.client(TestBed.A), bed.client(TestBed.B), "s", "bin-10");
      Future<Exception> blocked =
          pool.submit(() -> assertThrows(BridgePeerException.class, s[1]::receive));
      Thread.sleep(200);
      s[0].close();
      assertMentions(
          blocked.get(5, TimeUnit.SECONDS), "peer 'party-a' aborted: closed by party-a", "bin-10");
      s[1].close();
    }
  }

  @Test
  void peerCrashIsDetectedQuickly() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient b = bed.client(TestBed.B);
      BridgeStream[] s = StreamIo.openPair(pool, bed.client(TestBed.A), b, "s", "bin-5");
      s[1].send(new byte[1000]);
      s[0].receive();
      Future<Exception> blocked =
          pool.submit(() -> assertThrows(BridgePeerException.class, s[0]::receive));
      Thread.sleep(200);
      long start = System.nanoTime();
      b.terminateAbruptly(); // like a killed task manager: no ABORT, just a dropped connection
      Exception e = blocked.get(5, TimeUnit.SECONDS);
      long ms = elapsedMs(start);
      assertTrue(ms < 3000, "took " + ms + " ms to notice");
      assertMentions(e, "party-b", "disconnected", "bin-5");
      s[0].close();
      TestBed.awaitNoActivePairs(bed.relay);
    }
  }

  @Test
  void closingThePeersClientAbortsItsStreams() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient b = bed.client(TestBed.B);
      BridgeStream[] s = StreamIo.openPair(pool, bed.client(TestBed.A), b, "s", "bin-6");
      Future<Exception> blocked =
          pool.submit(() -> assertThrows(BridgePeerException.class, s[0]::receive));
      Thread.sleep(200);
      long start = System.nanoTime();
      b.close();
      Exception e = blocked.get(5, TimeUnit.SECONDS);
      assertTrue(elapsedMs(start) < 3000);
      assertMentions(e, "party-b", "client of party 'party-b' closed");
      BridgeException reopen = assertThrows(BridgeException.class, () -> b.open("s", "bin-7"));
      assertMentions(reopen, "closed");
      s[0].close();
    }
  }

  @Test
  void closingTheClientReleasesAStreamStillWaitingForItsPeer() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient a = bed.client(TestBed.A);
      Future<Exception> opening =
          pool.submit(() -> assertThrows(BridgeException.class, () -> a.open("s", "late")));
      TestBed.awaitWaiting(bed.relay, 1);
      long start = System.nanoTime();
      a.close();
      Exception e = opening.get(5, TimeUnit.SECONDS);
      assertTrue(elapsedMs(start) < 1500, "close took " + elapsedMs(start) + " ms");
      assertMentions(e, "aborted by this party", "client of party 'party-a' closed", "'late'");
      TestBed.awaitWaiting(bed.relay, 0);
    }
  }

  @Test
  void relayShutdownFailsStreamsWithAClearError() throws Exception {
    TestBed bed = new TestBed(pki);
    try {
      BridgeClient a = bed.client(TestBed.A);
      BridgeStream[] s = StreamIo.openPair(pool, a, bed.client(TestBed.B), "s", "bin-8");
      Future<Exception> blocked =
          pool.submit(() -> assertThrows(BridgeException.class, s[0]::receive));
      Thread.sleep(200);
      bed.relay.close();
      Exception e = blocked.get(5, TimeUnit.SECONDS);
      assertFalse(e instanceof BridgePeerException, "the relay, not the peer, went away: " + e);
      assertMentions(e, "relay", "shutting down", "bin-8");
      // a relay that stays down: dialled again until the pair timeout, then the clear error
      BridgeClient late =
          bed.client(TestBed.A, c -> c.withPairTimeout(java.time.Duration.ofSeconds(2)));
      long start = System.nanoTime();
      BridgeException reopen = assertThrows(BridgeException.class, () -> late.open("s", "bin-9"));
      assertMentions(reopen, "cannot reach relay 127.0.0.1:" + bed.relay.port());
      assertInstanceOf(BridgeUnreachableException.class, reopen);
      assertTrue(elapsedMs(start) >= 1000, "gave up after " + elapsedMs(start) + " ms");
    } finally {
      bed.close();
    }
  }

  /**
   * A relay that restarts (with its coordinator) while a party dials it: the stream opens once the
   * relay is back, within the pair timeout, and pairs and carries frames as ever.
   */
  @Test
  void aStreamOpenedWhileTheRelayRestartsOpensOnceItIsBack() throws Exception {
    TestBed bed = new TestBed(pki);
    int port = bed.relay.port();
    bed.relay.close();
    try {
      BridgeClient a =
          bed.client(TestBed.A, c -> c.withPairTimeout(java.time.Duration.ofSeconds(30)));
      BridgeClient b =
          bed.client(TestBed.B, c -> c.withPairTimeout(java.time.Duration.ofSeconds(30)));
      Future<BridgeStream> sa = pool.submit(() -> a.open("s", "bin-1"));
      Future<BridgeStream> sb = pool.submit(() -> b.open("s", "bin-1"));
      Thread.sleep(1500); // both dial a relay that is down
      try (BridgeRelay again =
          BridgeRelay.start(
              RelayConfig.defaults(
                      pki.credentials(TestBed.RELAY), java.util.Set.of(TestBed.A, TestBed.B))
                  .withPort(port),
              null)) {
        BridgeStream x = sa.get(20, TimeUnit.SECONDS);
        BridgeStream y = sb.get(20, TimeUnit.SECONDS);
        x.send(new byte[] {1, 2, 3});
        org.junit.jupiter.api.Assertions.assertArrayEquals(new byte[] {1, 2, 3}, y.receive());
      }
    } finally {
      bed.close();
    }
  }
}
