package io.psiflink.bridge;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.psiflink.bridge.proto.v1.BridgeGrpc;
import io.psiflink.bridge.proto.v1.Frame;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A relay on loopback with mutual TLS from a throwaway PKI, plus the clients a test connects;
 * closes them all.
 */
final class TestBed implements AutoCloseable {
  static final String RELAY = "relay";
  static final String A = "party-a";
  static final String B = "party-b";

  /** Trusted by the CA, but not allowed on the relay. */
  static final String X = "party-x";

  final ThrowawayPki pki;
  final BridgeRelay relay;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  static ThrowawayPki pki(java.nio.file.Path dir) {
    return ThrowawayPki.create(dir, RELAY, A, B, X);
  }

  TestBed(ThrowawayPki pki) throws BridgeException {
    this(pki, c -> c);
  }

  TestBed(ThrowawayPki pki, UnaryOperator<RelayConfig> tweak) throws BridgeException {
    this(pki, tweak, null);
  }

  /** With the sessions' certificate pins the relay checks (null: none). */
  TestBed(ThrowawayPki pki, UnaryOperator<RelayConfig> tweak, SessionPins pins)
      throws BridgeException {
    this.pki = pki;
    this.relay =
        BridgeRelay.start(
            tweak.apply(RelayConfig.defaults(pki.credentials(RELAY), Set.of(A, B))), pins);
  }

  BridgeClient client(String party) throws BridgeException {
    return client(pki.credentials(party), c -> c);
  }

  BridgeClient client(String party, UnaryOperator<BridgeClientConfig> tweak)
      throws BridgeException {
    return client(pki.credentials(party), tweak);
  }

  BridgeClient client(PartyCredentials self, UnaryOperator<BridgeClientConfig> tweak)
      throws BridgeException {
    BridgeClient client =
        BridgeClient.connect(
            tweak.apply(BridgeClientConfig.defaults("127.0.0.1", relay.port(), self)));
    toClose.add(client);
    return client;
  }

  /** A raw gRPC call on the Exchange method, bypassing BridgeClient, to send arbitrary frames. */
  RawCall rawCall(String party, String session, String channel) throws BridgeException {
    return rawCall(party, session, channel, null);
  }

  /** As {@link #rawCall(String, String, String)} with a psi-callee header (null: none). */
  RawCall rawCall(String party, String session, String channel, String callee)
      throws BridgeException {
    ManagedChannel ch =
        NettyChannelBuilder.forAddress("127.0.0.1", relay.port())
            .sslContext(TlsContexts.forClient(pki.credentials(party)))
            .build();
    toClose.add(
        () -> {
          ch.shutdownNow();
          ch.awaitTermination(5, TimeUnit.SECONDS);
        });
    return new RawCall(ch, session, channel, callee);
  }

  @Override
  public void close() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
    relay.close();
  }

  /**
   * Waits (up to 5 s) until the relay's stats satisfy {@code condition}, instead of sleeping a
   * fixed time.
   */
  static void awaitStats(
      BridgeRelay relay, java.util.function.Predicate<RelayStats> condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!condition.test(relay.stats()) && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    if (!condition.test(relay.stats())) {
      throw new AssertionError("relay never reached: " + what + "; stats " + relay.stats());
    }
  }

  static void awaitNoActivePairs(BridgeRelay relay) throws InterruptedException {
    awaitStats(relay, s -> s.activePairs() == 0, "no active pairs");
  }

  static void awaitWaiting(BridgeRelay relay, int streams) throws InterruptedException {
    awaitStats(relay, s -> s.waitingStreams() == streams, streams + " waiting streams");
  }

  /** Deterministic content of frame {@code index} of a stream identified by {@code seed}. */
  static byte[] frame(long seed, int index, int size) {
    byte[] b = new byte[size];
    new SplittableRandom(seed * 1_000_003L + index).nextBytes(b);
    return b;
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  static String hex(byte[] digest) {
    return HexFormat.of().formatHex(digest);
  }

  /** Exchange with messages as raw bytes: lets a test send what no well-behaved client would. */
  static final MethodDescriptor<byte[], byte[]> RAW_EXCHANGE =
      BridgeGrpc.getExchangeMethod().toBuilder(Bytes.INSTANCE, Bytes.INSTANCE).build();

  private enum Bytes implements MethodDescriptor.Marshaller<byte[]> {
    INSTANCE;

    @Override
    public InputStream stream(byte[] value) {
      return new java.io.ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** A hand-driven Exchange call: sees raw frames and the final status. */
  static final class RawCall {
    final ClientCall<byte[], byte[]> call;
    final BlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
    final CompletableFuture<Status> closed = new CompletableFuture<>();

    RawCall(ManagedChannel channel, String session, String channelName, String callee) {
      call = channel.newCall(RAW_EXCHANGE, CallOptions.DEFAULT);
      Metadata headers = new Metadata();
      headers.put(BridgeProtocol.SESSION, session);
      headers.put(BridgeProtocol.CHANNEL, channelName);
      if (callee != null) {
        headers.put(BridgeProtocol.CALLEE, callee);
      }
      call.start(
          new ClientCall.Listener<>() {
            @Override
            public void onMessage(byte[] message) {
              received.add(message);
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
              closed.complete(status);
            }
          },
          headers);
      call.request(100);
    }

    /** The next frame from the relay, parsed (null after 10 s). */
    Frame next() throws Exception {
      byte[] m = received.poll(10, TimeUnit.SECONDS);
      return m == null ? null : Frame.parseFrom(m);
    }

    synchronized void send(byte[] message) {
      call.sendMessage(message);
    }

    void send(Frame frame) {
      send(frame.toByteArray());
    }

    Status status() throws Exception {
      return closed.get(10, TimeUnit.SECONDS);
    }
  }
}
