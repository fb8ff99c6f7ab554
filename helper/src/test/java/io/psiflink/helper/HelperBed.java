package io.psiflink.helper;

import io.psiflink.api.HostPort;
import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeClientConfig;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeRelay;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.RelayConfig;
import io.psiflink.bridge.ThrowawayPki;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * A relay on loopback (mutual TLS, throwaway PKI), a helper service on it, and the two parties'
 * bridge clients; closes them all.
 */
final class HelperBed implements AutoCloseable {
  static final String RELAY = "relay";
  static final String A = "party-a";
  static final String B = "party-b";
  static final String HELPER = "helper";

  /** Trusted by the CA and allowed on the relay, but not served by the helper. */
  static final String X = "party-x";

  final ThrowawayPki pki;
  final BridgeRelay relay;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  static ThrowawayPki pki(Path dir) {
    return ThrowawayPki.create(dir, RELAY, A, B, HELPER, X);
  }

  HelperBed(ThrowawayPki pki) throws BridgeException {
    this.pki = pki;
    this.relay =
        BridgeRelay.start(RelayConfig.defaults(pki.credentials(RELAY), Set.of(A, B, HELPER, X)));
  }

  HelperConfig config(Duration sessionTimeout) {
    PartyCredentials h = pki.credentials(HELPER);
    return new HelperConfig(
        new HostPort("127.0.0.1", relay.port()),
        h.certChainPem(),
        h.privateKeyPem(),
        h.trustedCaPem(),
        Set.of(A, B),
        HelperConfig.DEFAULT_MAX_FILTER_BITS,
        sessionTimeout,
        Duration.ofSeconds(20),
        4);
  }

  HelperService helper() throws BridgeException {
    return helper(config(Duration.ofSeconds(20)));
  }

  HelperService helper(HelperConfig config) throws BridgeException {
    HelperService s = HelperService.start(config);
    toClose.add(s);
    return s;
  }

  BridgeClient client(String party) throws BridgeException {
    BridgeClient c =
        BridgeClient.connect(BridgeClientConfig.defaults("127.0.0.1", relay.port(), creds(party)));
    toClose.add(c);
    return c;
  }

  PartyCredentials creds(String party) {
    return pki.credentials(party);
  }

  @Override
  public void close() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
    relay.close();
  }

  static HelperRequest request(String session, Role role, int bits, Duration timeout) {
    return new HelperRequest(
        session, role, role.equals(Role.A) ? B : A, HELPER, null, bits, timeout);
  }

  /** What one party's {@link HelperClient#receive} gave: its seed, and m_σ (A) or null (B). */
  record Received(HelperClient.Dealt dealt, long[] mSigma) {}

  /** Runs one party's receive; checks the sink's calls (in order, all chunks for A, none for B). */
  static Future<Received> receive(
      ExecutorService pool, BridgeClient client, PartyCredentials me, HelperRequest request) {
    Callable<Received> task =
        () -> {
          int bits = request.filterBits();
          boolean a = request.role().equals(Role.A);
          long[] got = a ? new long[1 << (bits - 6)] : null;
          int[] next = {0};
          HelperClient.Dealt dealt =
              HelperClient.receive(
                  client,
                  me,
                  request,
                  (c, words) -> {
                    if (!a) {
                      throw new AssertionError("party B's sink was called");
                    }
                    if (c != next[0]++) {
                      throw new AssertionError("chunk " + c + " out of order");
                    }
                    if (words.length != HelperClient.chunkWords(bits, c)) {
                      throw new AssertionError("chunk " + c + " has " + words.length + " words");
                    }
                    System.arraycopy(words, 0, got, c * HelperClient.CHUNK_WORDS, words.length);
                  });
          if (next[0] != (a ? HelperClient.chunks(bits) : 0)) {
            throw new AssertionError("the sink got " + next[0] + " chunks");
          }
          return new Received(dealt, got);
        };
    return pool.submit(task);
  }

  /**
   * The oracle of {@link CorrelationStreams}: words [0, words) of stream {@code stream} of {@code
   * seed}, as AES-128-ECB of the counter blocks (stream ‖ counter, big-endian), little-endian.
   */
  static long[] expand(byte[] seed, int stream, int words) throws Exception {
    javax.crypto.Cipher ecb = javax.crypto.Cipher.getInstance("AES/ECB/NoPadding");
    ecb.init(javax.crypto.Cipher.ENCRYPT_MODE, new javax.crypto.spec.SecretKeySpec(seed, "AES"));
    int blocks = (words + 1) / 2;
    java.nio.ByteBuffer counters = java.nio.ByteBuffer.allocate(blocks * 16);
    for (long b = 0; b < blocks; b++) {
      counters.putLong(stream).putLong(b);
    }
    byte[] ks = ecb.doFinal(counters.array());
    long[] out = new long[words];
    java.nio.ByteBuffer.wrap(ks)
        .order(java.nio.ByteOrder.LITTLE_ENDIAN)
        .asLongBuffer()
        .get(out, 0, words);
    return out;
  }

  /**
   * Checks that A's and B's deals are one random OT per bit, against the oracle expansion: m_σ = m0
   * ⊕ σ·(m0 ⊕ m1), bit by bit; and that DealtAnd over them gives x AND y for random x, y.
   */
  static void assertCorrelated(Received a, Received b, int bits, long seed) throws Exception {
    int words = 1 << (bits - 6);
    byte[] sa = a.dealt().seed();
    byte[] sb = b.dealt().seed();
    if (java.util.Arrays.equals(sa, sb)) {
      throw new AssertionError("A and B were dealt the same seed");
    }
    long[] sigma = expand(sa, CorrelationStreams.SIGMA, words);
    long[] m0 = expand(sb, CorrelationStreams.M0, words);
    long[] m1 = expand(sb, CorrelationStreams.M1, words);
    long[] mSigma = a.mSigma();
    for (int i = 0; i < words * 64; i++) {
      int w = i >>> 6;
      long chosen = ((sigma[w] >>> i) & 1) == 0 ? m0[w] : m1[w];
      if ((((mSigma[w] ^ chosen) >>> i) & 1) != 0) {
        throw new AssertionError("m_σ bit " + i + " is not m_σ(bit)");
      }
    }
    // the A-B part of the AND, run over the dealt correlations
    SplittableRandom r = new SplittableRandom(seed);
    long[] x = new long[words];
    long[] y = new long[words];
    for (int i = 0; i < words; i++) {
      x[i] = r.nextLong();
      y[i] = r.nextLong();
    }
    long[] e = sigma.clone();
    DealtAnd.maskChoice(e, x, words); // A -> B
    long[] w = e;
    DealtAnd.answer(w, y, m0, m1, words); // B -> A
    long[] c = w;
    DealtAnd.open(c, x, mSigma, words); // A
    for (int i = 0; i < words; i++) {
      if (c[i] != (x[i] & y[i])) {
        throw new AssertionError("c != x AND y at word " + i);
      }
    }
    if (DealtAnd.firstOutside(c, y, words) != -1) {
      throw new AssertionError("B refuses an honest c");
    }
  }
}
