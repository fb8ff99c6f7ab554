package io.psiflink.bridge;

import static io.psiflink.bridge.TimeoutTest.assertMentions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;
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
class SecurityTest {
  @TempDir static Path dir;
  @TempDir static Path otherDir;
  private static ThrowawayPki pki;

  /** Another CA, unknown to the relay. */
  private static ThrowawayPki stranger;

  private final ExecutorService pool = Executors.newCachedThreadPool();

  @BeforeAll
  static void createPki() {
    pki = TestBed.pki(dir);
    stranger = ThrowawayPki.create(otherDir, TestBed.A);
  }

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  @Test
  void clientCertificateFromAnUntrustedCaIsRejected() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      // Same CN as an allowed party, but signed by another CA; it does trust the relay's CA.
      PartyCredentials impostor =
          PartyCredentials.load(
              otherDir.resolve("party-a.pem"),
              otherDir.resolve("party-a.key"),
              pki.caCertificate());
      BridgeClient client =
          bed.client(impostor, c -> c.withPairTimeout(java.time.Duration.ofSeconds(5)));
      BridgeException e = assertThrows(BridgeException.class, () -> client.open("s", "c"));
      System.out.println("untrusted client certificate: " + e.getMessage());
      assertTrue(mentionsTls(e), e.getMessage());
      assertEquals(0, bed.relay.stats().streamsOpened());
    }
  }

  @Test
  void relayCertificateFromAnUntrustedCaIsRejected() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      // A genuine party-a certificate, but the client only trusts the other CA.
      PartyCredentials self =
          PartyCredentials.load(
              dir.resolve("party-a.pem"), dir.resolve("party-a.key"), stranger.caCertificate());
      BridgeClient client = bed.client(self, c -> c);
      BridgeException e = assertThrows(BridgeException.class, () -> client.open("s", "c"));
      System.out.println("untrusted relay certificate: " + e.getMessage());
      assertTrue(mentionsTls(e), e.getMessage());
    }
  }

  @Test
  void trustedPartyNotInAllowedPartiesIsRefused() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient x = bed.client(TestBed.X);
      BridgeException e = assertThrows(BridgeException.class, () -> x.open("s", "c"));
      System.out.println("party not allowed: " + e.getMessage());
      assertMentions(e, "party 'party-x' is not allowed on this bridge", "'s'", "'c'");
      assertEquals(0, bed.relay.stats().streamsOpened());
    }
  }

  @Test
  void garbageOnTheRelayPortDoesNotDisturbAGoodStream() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      BridgeClient a = bed.client(TestBed.A);
      BridgeClient b = bed.client(TestBed.B);
      BridgeStream[] s = StreamIo.openPair(pool, a, b, "good", "bin-1");
      int frames = 64;
      int size = 64 * 1024;
      Future<String> sent = pool.submit(StreamIo.sender(s[0], 11, frames, size));
      Future<String> received = pool.submit(StreamIo.receiver(s[1], 11, frames, size));

      // Meanwhile: random bytes and an HTTP/1 request (the relay must hang up), and a truncated TLS
      // record (the relay waits for the rest until its handshake timeout) on raw connections.
      try (Socket random = junkConnection(bed, randomBytes(64 * 1024));
          Socket http =
              junkConnection(
                  bed, "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          Socket truncated =
              junkConnection(bed, new byte[] {0x16, 0x03, 0x01, 0x7f, (byte) 0xff, 1, 2, 3})) {
        assertClosedByRelay(random.getInputStream());
        assertClosedByRelay(http.getInputStream());
        assertEquals(sent.get(20, TimeUnit.SECONDS), received.get(20, TimeUnit.SECONDS));
        assertTrue(!truncated.isClosed());
      }
      s[1].finish();
      assertEquals(null, s[0].receive());
      s[0].close();
      s[1].close();

      BridgeStream[] again = StreamIo.openPair(pool, a, b, "good", "bin-2"); // still serving
      again[0].finish();
      again[1].finish();
      assertEquals(null, again[0].receive());
      assertEquals(null, again[1].receive());
      again[0].close();
      again[1].close();
    }
  }

  @Test
  void plaintextGrpcClientFailsCleanly() throws Exception {
    try (TestBed bed = new TestBed(pki)) {
      ManagedChannel plain =
          NettyChannelBuilder.forAddress("127.0.0.1", bed.relay.port()).usePlaintext().build();
      try {
        ClientCall<byte[], byte[]> call = plain.newCall(TestBed.RAW_EXCHANGE, CallOptions.DEFAULT);
        CompletableFuture<Status> closed = new CompletableFuture<>();
        Metadata headers = new Metadata();
        headers.put(BridgeProtocol.SESSION, "s");
        headers.put(BridgeProtocol.CHANNEL, "c");
        call.start(
            new ClientCall.Listener<>() {
              @Override
              public void onClose(Status status, Metadata trailers) {
                closed.complete(status);
              }
            },
            headers);
        call.request(1);
        call.sendMessage(Frames.data(new byte[] {1, 2, 3}, 0, 3).toByteArray());
        Status status = closed.get(10, TimeUnit.SECONDS);
        System.out.println("plaintext client: " + status);
        assertNotEquals(Status.Code.OK, status.getCode());
        assertEquals(Status.Code.UNAVAILABLE, status.getCode());
      } finally {
        plain.shutdownNow();
      }
      assertEquals(0, bed.relay.stats().streamsOpened());
      BridgeStream[] s =
          StreamIo.openPair(pool, bed.client(TestBed.A), bed.client(TestBed.B), "s", "c");
      assertEquals(0, s[0].attempt());
      s[0].close();
      s[1].close();
    }
  }

  private static Socket junkConnection(TestBed bed, byte[] junk) throws Exception {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", bed.relay.port()), 2000);
    socket.setSoTimeout(5000);
    try {
      OutputStream out = socket.getOutputStream();
      out.write(junk);
      out.flush();
    } catch (SocketException e) {
      // the relay may hang up before reading everything: fine
    }
    return socket;
  }

  private static boolean mentionsTls(Exception e) {
    String m = e.getMessage().toLowerCase(Locale.ROOT);
    return m.contains("tls") || m.contains("certificate");
  }

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    new SplittableRandom(5).nextBytes(b);
    return b;
  }

  /**
   * The relay must hang up on garbage rather than keep the connection (it may first send a TLS
   * alert).
   */
  private static void assertClosedByRelay(InputStream in) throws Exception {
    byte[] buf = new byte[4096];
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    try {
      while (System.nanoTime() < deadline) {
        if (in.read(buf) < 0) {
          return;
        }
      }
    } catch (SocketException e) {
      return; // connection reset: closed as well
    }
    throw new AssertionError("relay kept a garbage connection open");
  }
}
