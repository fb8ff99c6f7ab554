package io.psiflink.bridge;

import static io.psiflink.bridge.TimeoutTest.assertMentions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.psiflink.bridge.proto.v1.Frame;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
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
class MalformedFrameTest {
  private static final int MAX = 1024;

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
  void unknownFrameKindFailsTheSenderAndTellsThePeer() throws Exception {
    // field 15, length-delimited, 2 bytes: a frame kind of a later version
    assertMalformed(new byte[] {0x7a, 2, 1, 2}, "unknown frame kind (field [15])");
  }

  @Test
  void bytesThatAreNoProtobufAreMalformed() throws Exception {
    assertMalformed(new byte[] {0x7f, 1, 2}, "not a psiflink.bridge.v1 frame");
  }

  @Test
  void unknownFieldInAKnownFrameIsRefused() throws Exception {
    // FINISH (field 3) whose body holds field 9 (varint 1): another version's FINISH
    assertMalformed(new byte[] {0x1a, 2, 0x48, 1}, "FINISH frame with unknown field(s) [9]");
  }

  @Test
  void abortReasonThatIsNotUtf8IsMalformed() throws Exception {
    // ABORT (field 4) whose reason (field 1) is the lone byte 0xc3
    assertMalformed(new byte[] {0x22, 3, 0x0a, 1, (byte) 0xc3}, "invalid UTF-8");
  }

  @Test
  void oversizedDataFrameIsRejectedByTheRelay() throws Exception {
    assertMalformed(
        Frames.data(new byte[MAX + 1], 0, MAX + 1).toByteArray(),
        "exceeds the limit of 1024 bytes");
  }

  @Test
  void messageBeyondTheTransportLimitFailsBothSides() throws Exception {
    try (TestBed bed = new TestBed(pki, c -> c.withMaxFrameBytes(MAX))) {
      Future<BridgeStream> peer = pool.submit(() -> bed.client(TestBed.B).open("s", "c"));
      TestBed.RawCall raw = bed.rawCall(TestBed.A, "s", "c");
      assertTrue(raw.next().hasPaired());
      BridgeStream b = peer.get(10, TimeUnit.SECONDS);
      int size = MAX + Frames.MAX_OVERHEAD + 100;
      raw.send(Frames.data(new byte[size], 0, size));
      Status status = raw.status();
      // gRPC itself rejects the message before the relay sees it: the sender's call is reset.
      assertTrue(
          status.getCode() == Status.Code.CANCELLED
              || status.getCode() == Status.Code.RESOURCE_EXHAUSTED,
          status.toString());
      BridgePeerException e = assertThrows(BridgePeerException.class, b::receive);
      assertMentions(
          e, "peer 'party-a' sent a malformed frame", "larger than maxFrameBytes (1024)");
      b.close();
      TestBed.awaitNoActivePairs(bed.relay);
    }
  }

  @Test
  void emptyMessageIsMalformed() throws Exception {
    assertMalformed(new byte[0], "empty frame");
  }

  @Test
  void pairedFrameFromAClientIsMalformed() throws Exception {
    assertMalformed(Frames.paired(3, "party-b").toByteArray(), "PAIRED frame sent by a client");
  }

  @Test
  void dataAfterFinishIsMalformed() throws Exception {
    try (TestBed bed = new TestBed(pki, c -> c.withMaxFrameBytes(MAX))) {
      Future<BridgeStream> peer = pool.submit(() -> bed.client(TestBed.B).open("s", "c"));
      TestBed.RawCall raw = bed.rawCall(TestBed.A, "s", "c");
      assertTrue(raw.next().hasPaired());
      BridgeStream b = peer.get(10, TimeUnit.SECONDS);
      raw.send(Frames.finish());
      assertEquals(null, b.receive());
      raw.send(Frames.data(new byte[1], 0, 1));
      Status status = raw.status();
      assertEquals(Status.Code.INVALID_ARGUMENT, status.getCode());
      assertTrue(status.getDescription().contains("DATA frame after FINISH"), status.toString());
      // The relay's ABORTED status reaches b asynchronously: sends succeed until it arrives.
      BridgePeerException e =
          assertThrows(
              BridgePeerException.class,
              () -> {
                while (true) {
                  b.send(new byte[1]);
                  Thread.sleep(5);
                }
              });
      assertMentions(e, "malformed");
      b.close();
    }
  }

  @Test
  void missingStreamHeadersAreRejected() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      ManagedChannel ch =
          NettyChannelBuilder.forAddress("127.0.0.1", bed.relay.port())
              .sslContext(TlsContexts.forClient(pki.credentials(TestBed.A)))
              .build();
      try {
        ClientCall<byte[], byte[]> call = ch.newCall(TestBed.RAW_EXCHANGE, CallOptions.DEFAULT);
        CompletableFuture<Status> closed = new CompletableFuture<>();
        call.start(
            new ClientCall.Listener<>() {
              @Override
              public void onClose(Status status, Metadata trailers) {
                closed.complete(status);
              }
            },
            new Metadata()); // no psi-session / psi-channel
        Status status = closed.get(10, TimeUnit.SECONDS);
        assertEquals(Status.Code.INVALID_ARGUMENT, status.getCode());
        assertTrue(
            status.getDescription().contains("missing header psi-session"), status.toString());
      } finally {
        ch.shutdownNow();
      }
    }
  }

  /** A raw party-a call pairs with a real party-b stream, then sends {@code frame}. */
  private void assertMalformed(byte[] frame, String problem) throws Exception {
    try (TestBed bed = new TestBed(pki, c -> c.withMaxFrameBytes(MAX))) {
      Future<BridgeStream> peer = pool.submit(() -> bed.client(TestBed.B).open("s", "c"));
      TestBed.RawCall raw = bed.rawCall(TestBed.A, "s", "c");
      Frame paired = raw.next();
      assertTrue(paired.hasPaired(), paired.toString());
      assertEquals(0, paired.getPaired().getAttempt());
      assertEquals(TestBed.B, paired.getPaired().getPeerParty());
      BridgeStream b = peer.get(10, TimeUnit.SECONDS);
      assertEquals(TestBed.A, b.peerParty());

      raw.send(frame);
      Status status = raw.status();
      assertEquals(Status.Code.INVALID_ARGUMENT, status.getCode(), status.toString());
      assertTrue(status.getDescription().contains(problem), status.toString());

      BridgePeerException e = assertThrows(BridgePeerException.class, b::receive);
      System.out.println("peer sees: " + e.getMessage());
      assertMentions(e, "peer 'party-a' sent a malformed frame", problem, "attempt 0");
      b.close();
      TestBed.awaitNoActivePairs(bed.relay);
    }
  }
}
