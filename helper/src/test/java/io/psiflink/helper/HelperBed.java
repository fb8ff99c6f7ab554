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

  /** A party's masked filter: deterministic random words. */
  static long[] filter(long seed, int bits) {
    long[] w = new long[1 << (bits - 6)];
    SplittableRandom r = new SplittableRandom(seed);
    for (int i = 0; i < w.length; i++) {
      w[i] = r.nextLong();
    }
    return w;
  }

  /** The oracle: m_A XNOR m_B, computed here word by word. */
  static long[] xnor(long[] a, long[] b) {
    long[] out = new long[a.length];
    for (int i = 0; i < a.length; i++) {
      out[i] = ~(a[i] ^ b[i]);
    }
    return out;
  }

  /** Chunk c of a whole filter. */
  static long[] slice(long[] filter, int bits, int c) {
    int n = HelperClient.chunkWords(bits, c);
    long[] out = new long[n];
    System.arraycopy(filter, c * HelperClient.CHUNK_WORDS, out, 0, n);
    return out;
  }

  /** Runs one party's exchange of {@code filter}; the future gives the combined filter received. */
  static Future<long[]> exchange(
      ExecutorService pool,
      BridgeClient client,
      PartyCredentials me,
      HelperRequest request,
      long[] filter) {
    Callable<long[]> task =
        () -> {
          int bits = request.filterBits();
          long[] got = new long[1 << (bits - 6)];
          int[] next = {0};
          HelperClient.exchange(
              client,
              me,
              request,
              c -> slice(filter, bits, c),
              (c, words) -> {
                if (c != next[0]++) {
                  throw new AssertionError("chunk " + c + " out of order");
                }
                System.arraycopy(words, 0, got, c * HelperClient.CHUNK_WORDS, words.length);
              });
          if (next[0] != HelperClient.chunks(bits)) {
            throw new AssertionError("got " + next[0] + " chunks");
          }
          return got;
        };
    return pool.submit(task);
  }
}
