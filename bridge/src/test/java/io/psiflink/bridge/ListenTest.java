package io.psiflink.bridge;

import static io.psiflink.bridge.TimeoutTest.assertMentions;
import static io.psiflink.bridge.TimeoutTest.elapsedMs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The relay's Listen facility: a caller's stream naming a callee reaches the listening callee. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ListenTest {
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

  /** A, B and X allowed on the relay. */
  private static TestBed threeParties() throws BridgeException {
    return new TestBed(
        pki,
        c ->
            new RelayConfig(
                c.bindHost(),
                c.port(),
                c.server(),
                Set.of(TestBed.A, TestBed.B, TestBed.X),
                c.pairTimeout(),
                c.maxFrameBytes()));
  }

  @Test
  void theCallReachesTheListenerAndTheStreamsPair() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient callee = bed.client(TestBed.B);
      BlockingQueue<IncomingCall> calls = new LinkedBlockingQueue<>();
      Listening listening = callee.listen(calls::add);
      assertEquals(1, bed.relay.listeningParties());
      BridgeClient caller = bed.client(TestBed.A);
      Future<BridgeStream> opened = pool.submit(() -> caller.open("s-1", "helper-A", TestBed.B));
      IncomingCall call = calls.poll(10, TimeUnit.SECONDS);
      assertEquals(new IncomingCall("s-1", "helper-A", TestBed.A), call);
      try (BridgeStream b = callee.open(call.session(), call.channel());
          BridgeStream a = opened.get(10, TimeUnit.SECONDS)) {
        assertEquals(TestBed.B, a.peerParty());
        assertEquals(TestBed.A, b.peerParty());
        a.send(new byte[] {1, 2, 3});
        b.send(new byte[] {4});
        assertArrayEquals(new byte[] {1, 2, 3}, b.receive());
        assertArrayEquals(new byte[] {4}, a.receive());
        a.finish();
        b.finish();
        assertNull(a.receive());
        assertNull(b.receive());
      }
      assertTrue(listening.isOpen(), "the Listen call serves more than one caller");
      assertNull(calls.poll(), "one call per caller");
      listening.close();
      assertFalse(listening.isOpen());
      assertNull(listening.dropped(), "closing is not a drop");
    }
  }

  @Test
  void aCallerFindingAWaitingStreamPairsWithoutACall() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient callee = bed.client(TestBed.B);
      BlockingQueue<IncomingCall> calls = new LinkedBlockingQueue<>();
      callee.listen(calls::add);
      Future<BridgeStream> early = pool.submit(() -> callee.open("s-2", "c"));
      TestBed.awaitWaiting(bed.relay, 1);
      try (BridgeStream a = bed.client(TestBed.A).open("s-2", "c", TestBed.B);
          BridgeStream b = early.get(10, TimeUnit.SECONDS)) {
        assertEquals(TestBed.B, a.peerParty());
        assertEquals(TestBed.A, b.peerParty());
      }
      assertNull(calls.poll(200, TimeUnit.MILLISECONDS), "the callee was there already");
    }
  }

  @Test
  void noListenerFailsTheCallerAtOnceNamingTheCallee() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      long start = System.nanoTime();
      BridgeException e =
          assertThrows(
              BridgeException.class, () -> bed.client(TestBed.A).open("s-3", "c", TestBed.B));
      assertMentions(e, "'party-b' is not connected to the relay", "s-3");
      assertTrue(elapsedMs(start) < 5000, "at once, not after the pair timeout");
      TestBed.awaitWaiting(bed.relay, 0);
    }
  }

  @Test
  void aListenerThatDropsLeavesLaterCallersWithTheError() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient callee = bed.client(TestBed.B);
      callee.listen(c -> {});
      assertEquals(1, bed.relay.listeningParties());
      callee.terminateAbruptly(); // as a crash would
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (bed.relay.listeningParties() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertEquals(0, bed.relay.listeningParties(), "the relay noticed the drop");
      BridgeException e =
          assertThrows(
              BridgeException.class, () -> bed.client(TestBed.A).open("s-4", "c", TestBed.B));
      assertMentions(e, "'party-b' is not connected to the relay");
    }
  }

  @Test
  void aDroppedListenCallIsReported() throws Exception {
    CompletableFuture<BridgeException> dropped = new CompletableFuture<>();
    try (TestBed bed = new TestBed(pki)) {
      Listening listening = bed.client(TestBed.B).listen(c -> {}, dropped::complete);
      bed.relay.close(); // the relay shuts down under the listener
      BridgeException e = dropped.get(10, TimeUnit.SECONDS);
      assertMentions(e, "party-b", "Listen call", "relay shutting down");
      assertFalse(listening.isOpen());
      assertNotNull(listening.dropped());
    }
  }

  @Test
  void aNewerListenCallReplacesTheOlderOne() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient callee = bed.client(TestBed.B);
      CompletableFuture<BridgeException> dropped = new CompletableFuture<>();
      BlockingQueue<IncomingCall> older = new LinkedBlockingQueue<>();
      BlockingQueue<IncomingCall> newer = new LinkedBlockingQueue<>();
      callee.listen(older::add, dropped::complete);
      bed.client(TestBed.B).listen(newer::add);
      assertMentions(dropped.get(10, TimeUnit.SECONDS), "superseded");
      assertEquals(1, bed.relay.listeningParties());
      pool.submit(() -> bed.client(TestBed.A).open("s-5", "c", TestBed.B));
      assertEquals("s-5", newer.poll(10, TimeUnit.SECONDS).session());
      assertNull(older.poll());
    }
  }

  @Test
  void aThirdPartyCannotTakeTheCalleesPlace() throws Exception {
    try (TestBed bed = threeParties()) {
      BlockingQueue<IncomingCall> calls = new LinkedBlockingQueue<>();
      bed.client(TestBed.B).listen(calls::add);
      BridgeClient caller = bed.client(TestBed.A, c -> c.withPairTimeout(Duration.ofSeconds(3)));
      Future<BridgeStream> waiting = pool.submit(() -> caller.open("s-6", "c", TestBed.B));
      assertNotNull(calls.poll(10, TimeUnit.SECONDS));
      BridgeException e =
          assertThrows(BridgeException.class, () -> bed.client(TestBed.X).open("s-6", "c"));
      assertMentions(e, "is not for party 'party-x'");
      // the caller still waits for its callee, which does not come
      Exception timedOut = assertThrows(Exception.class, () -> waiting.get(10, TimeUnit.SECONDS));
      assertTrue(timedOut.getCause() instanceof BridgeTimeoutException, timedOut.toString());
    }
  }

  @Test
  void theCalleeHeaderIsValidated() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient a = bed.client(TestBed.A);
      assertThrows(IllegalArgumentException.class, () -> a.open("s", "c", "bad name"));
      assertThrows(IllegalArgumentException.class, () -> a.open("s", "c", "x".repeat(201)));
      assertThrows(IllegalArgumentException.class, () -> a.open("s", "c", TestBed.A));
      // the relay checks it too, for clients that do not
      for (String callee : new String[] {"x".repeat(201), "a b", TestBed.A}) {
        Status status = bed.rawCall(TestBed.A, "s-7", "c", callee).status();
        assertEquals(Status.Code.INVALID_ARGUMENT, status.getCode(), callee);
        assertTrue(status.getDescription().contains("psi-callee"), status.getDescription());
      }
      TestBed.awaitWaiting(bed.relay, 0);
    }
  }
}
