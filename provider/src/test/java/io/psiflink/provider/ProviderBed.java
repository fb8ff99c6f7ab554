package io.psiflink.provider;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.HostPort;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeClientConfig;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeRelay;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.RelayConfig;
import io.psiflink.bridge.ThrowawayPki;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A relay on loopback (mutual TLS, throwaway PKI), a provider service on it, the parties' bridge
 * clients (one per call: a party's tasks each have their own), and the plaintext oracle; closes
 * them all.
 */
final class ProviderBed implements AutoCloseable {
  static final String RELAY = "relay";
  static final String PROVIDER = "provider";
  static final List<String> PARTIES =
      List.of("party-a", "party-b", "party-c", "party-d", "party-e", "party-f");

  /** Trusted by the CA and allowed on the relay, but not served by the provider. */
  static final String X = "party-x";

  final ThrowawayPki pki;
  final BridgeRelay relay;
  private final List<AutoCloseable> toClose = Collections.synchronizedList(new ArrayList<>());

  static ThrowawayPki pki(Path dir) {
    List<String> names = new ArrayList<>(PARTIES);
    names.addAll(List.of(RELAY, PROVIDER, X));
    return ThrowawayPki.create(dir, names.toArray(String[]::new));
  }

  ProviderBed(ThrowawayPki pki) throws BridgeException {
    this.pki = pki;
    Set<String> allowed = new HashSet<>(PARTIES);
    allowed.addAll(Set.of(PROVIDER, X));
    this.relay = BridgeRelay.start(RelayConfig.defaults(pki.credentials(RELAY), allowed));
  }

  /** Short timeouts: a test that waits for one waits seconds, not minutes. */
  ProviderConfig config(Duration sessionTimeout, Duration idleTimeout) {
    return config(sessionTimeout, idleTimeout, ProviderConfig.DEFAULT_MAX_SET_SIZE);
  }

  ProviderConfig config(Duration sessionTimeout, Duration idleTimeout, long maxSetSize) {
    PartyCredentials p = pki.credentials(PROVIDER);
    return new ProviderConfig(
        new HostPort("127.0.0.1", relay.port()),
        p.certChainPem(),
        p.privateKeyPem(),
        p.trustedCaPem(),
        Set.copyOf(PARTIES),
        ProviderConfig.DEFAULT_MAX_PARTIES,
        maxSetSize,
        sessionTimeout,
        idleTimeout,
        ProviderConfig.DEFAULT_MAX_SESSIONS,
        Duration.ofMinutes(5));
  }

  ProviderService provider() throws BridgeException {
    return provider(config(Duration.ofSeconds(20), Duration.ofSeconds(20)));
  }

  ProviderService provider(ProviderConfig config) throws BridgeException {
    ProviderService s = ProviderService.start(config);
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
    List<AutoCloseable> all;
    synchronized (toClose) {
      all = new ArrayList<>(toClose);
    }
    for (int i = all.size() - 1; i >= 0; i--) {
      all.get(i).close();
    }
    relay.close();
  }

  static ProviderRequest request(String session, int n, int index, String params) {
    return new ProviderRequest(session, PROVIDER, null, PARTIES.subList(0, n), index, params);
  }

  /** Every party of an n-party session connects, each on its own thread and client. */
  List<Future<ProviderLink>> connectAll(
      ExecutorService pool, String session, int n, String params) {
    List<Future<ProviderLink>> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ProviderRequest r = request(session, n, i, params);
      out.add(pool.submit(() -> ProviderClient.connect(client(r.party()), r, creds(r.party()))));
    }
    return out;
  }

  /** The links of a successful setup. */
  static List<ProviderLink> links(List<Future<ProviderLink>> connecting) throws Exception {
    List<ProviderLink> out = new ArrayList<>();
    for (Future<ProviderLink> f : connecting) {
      out.add(f.get(60, TimeUnit.SECONDS));
    }
    return out;
  }

  /** One bin's sets: each party's elements, and the plaintext intersection per party. */
  record Sets(byte[][] elements, int[] counts, long[][] expected) {
    /** Party p's demand: a little above its count (padding at work), and unequal. */
    long demand(int p) {
      return counts[p] + 1 + p;
    }

    /** The run's set size: the largest demand. */
    long setSize() {
      return java.util.stream.IntStream.range(0, counts.length)
          .mapToLong(this::demand)
          .max()
          .orElseThrow();
    }
  }

  /**
   * n random sets of 16-byte elements with {@code common} elements every party holds, plus elements
   * all parties but one hold (the hard case for the filters), the rest private; party i holds
   * {@code sizes[i]} elements, shuffled. The expected results come from Java sets.
   */
  static Sets sets(long seed, int common, int... sizes) {
    Random rnd = new Random(seed);
    int n = sizes.length;
    List<ByteBuffer> shared = new ArrayList<>();
    for (int i = 0; i < common; i++) {
      shared.add(random(rnd));
    }
    List<List<ByteBuffer>> held = new ArrayList<>();
    for (int p = 0; p < n; p++) {
      held.add(new ArrayList<>(shared));
    }
    // elements held by all parties but one (party j lacks the j-th group)
    for (int j = 0; j < n; j++) {
      for (int k = 0; k < 2; k++) {
        ByteBuffer e = random(rnd);
        for (int p = 0; p < n; p++) {
          if (p != j && held.get(p).size() < sizes[p]) {
            held.get(p).add(e);
          }
        }
      }
    }
    byte[][] elements = new byte[n][];
    int[] counts = new int[n];
    for (int p = 0; p < n; p++) {
      List<ByteBuffer> mine = held.get(p);
      while (mine.size() < sizes[p]) {
        mine.add(random(rnd));
      }
      Collections.shuffle(mine, rnd);
      counts[p] = mine.size();
      ByteBuffer b = ByteBuffer.allocate(mine.size() * 16);
      mine.forEach(e -> b.put(e.duplicate()));
      elements[p] = b.array();
    }
    // the oracle: which of each party's elements every party holds
    Set<ByteBuffer> all = new HashSet<>(held.get(0));
    for (int p = 1; p < n; p++) {
      all.retainAll(new HashSet<>(held.get(p)));
    }
    long[][] expected = new long[n][];
    for (int p = 0; p < n; p++) {
      List<ByteBuffer> mine = held.get(p);
      expected[p] =
          java.util.stream.IntStream.range(0, mine.size())
              .filter(i -> all.contains(mine.get(i)))
              .asLongStream()
              .toArray();
    }
    return new Sets(elements, counts, expected);
  }

  private static ByteBuffer random(Random rnd) {
    byte[] b = new byte[16];
    rnd.nextBytes(b);
    return ByteBuffer.wrap(b);
  }

  /** Every party runs one bin on its own thread and client; the outcomes in index order. */
  List<Future<BinOutcome>> runBin(
      ExecutorService pool,
      List<ProviderLink> links,
      int bin,
      int attempt,
      byte[] groupSecret,
      Sets sets) {
    List<Future<BinOutcome>> out = new ArrayList<>();
    for (ProviderLink link : links) {
      int p = link.index();
      Callable<BinOutcome> task =
          () ->
              link.runBin(
                  client(link.request().party()),
                  bin,
                  attempt,
                  sets.demand(p),
                  groupSecret,
                  sets.elements()[p],
                  sets.counts()[p]);
      out.add(pool.submit(task));
    }
    return out;
  }

  static ProviderException failure(Future<?> f) throws Exception {
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> f.get(60, TimeUnit.SECONDS));
    return assertInstanceOf(ProviderException.class, e.getCause(), String.valueOf(e.getCause()));
  }

  static void assertMentions(Exception e, String... parts) {
    for (String part : parts) {
      assertTrue(
          e.getMessage() != null && e.getMessage().contains(part),
          "message should mention '" + part + "': " + e.getMessage());
    }
  }
}
