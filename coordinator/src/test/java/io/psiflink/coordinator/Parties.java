package io.psiflink.coordinator;

import io.psiflink.bridge.ThrowawayPki;
import io.psiflink.coordinator.Tokens.Kind;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import javax.net.ssl.SSLContext;

/**
 * Two real coordinators in this JVM on loopback, alice and bob, each with its own database, TLS
 * certificate (a throwaway PKI) and tokens; each one's peer is the other.
 */
public final class Parties implements AutoCloseable {
  public final Path dir;
  public final ThrowawayPki pki;
  public CoordinatorServer alice;
  public final CoordinatorServer bob;
  public final CoordinatorConfig aliceConfig;
  public final CoordinatorConfig bobConfig;

  /** Party tokens: alice's people at alice's coordinator, bob's at bob's. */
  public final String aliceToken;

  public final String bobToken;

  /** The tokens the coordinators present to each other (alice's to bob, bob's to alice). */
  public final String aliceToBob;

  public final String bobToAlice;
  public final SSLContext trust;
  private final Function<String, CoordinatorConfig.Job> jobs;
  private final Function<String, List<CoordinatorConfig.Helper>> helpers;

  /**
   * @param dbUrl the JDBC URL of a party's database, by party name
   */
  public Parties(Path dir, Function<String, String> dbUrl, Duration ttl) throws Exception {
    this(dir, dbUrl, ttl, Duration.ofHours(1));
  }

  /**
   * @param sweep how often each coordinator's sweeper runs (tests mostly call sweepNow)
   */
  public Parties(Path dir, Function<String, String> dbUrl, Duration ttl, Duration sweep)
      throws Exception {
    this(dir, dbUrl, ttl, sweep, (Function<String, CoordinatorConfig.Job>) null);
  }

  /**
   * @param job when not null, each coordinator launches its party's jobs with this job section
   *     (certificate paths filled in per party) and runs a bridge relay on a free loopback port,
   *     which is its bridge endpoint
   */
  public Parties(
      Path dir,
      Function<String, String> dbUrl,
      Duration ttl,
      Duration sweep,
      CoordinatorConfig.Job job)
      throws Exception {
    this(dir, dbUrl, ttl, sweep, job == null ? null : party -> job);
  }

  /**
   * @param jobs when not null, the job section of each party by name ("alice", "bob"): as above,
   *     with the certificate paths and work directory filled in per party; the mode and the Flink
   *     settings (flinkHome, jobJar, flinkRestUrl, flinkConfDir) are kept
   */
  public Parties(
      Path dir,
      Function<String, String> dbUrl,
      Duration ttl,
      Duration sweep,
      Function<String, CoordinatorConfig.Job> jobs)
      throws Exception {
    this(dir, dbUrl, ttl, sweep, jobs, party -> List.of());
  }

  /**
   * @param helpers the helpers each party registers (config helpers), by party name
   */
  public Parties(
      Path dir,
      Function<String, String> dbUrl,
      Duration ttl,
      Duration sweep,
      Function<String, CoordinatorConfig.Job> jobs,
      Function<String, List<CoordinatorConfig.Helper>> helpers)
      throws Exception {
    this.dir = dir;
    this.jobs = jobs;
    this.helpers = helpers;
    this.pki = ThrowawayPki.create(dir.resolve("pki"), "alice", "bob", "relay-alice", "relay-bob");
    aliceToken = Tokens.newToken();
    bobToken = Tokens.newToken();
    aliceToBob = Tokens.newToken();
    bobToAlice = Tokens.newToken();
    int alicePort = freePort();
    int bobPort = freePort();
    aliceConfig =
        config(
            "alice",
            alicePort,
            "bob",
            bobPort,
            aliceToken,
            bobToAlice,
            aliceToBob,
            dbUrl.apply("alice"),
            ttl,
            sweep);
    bobConfig =
        config(
            "bob",
            bobPort,
            "alice",
            alicePort,
            bobToken,
            aliceToBob,
            bobToAlice,
            dbUrl.apply("bob"),
            ttl,
            sweep);
    alice = CoordinatorServer.start(aliceConfig);
    CoordinatorServer b;
    try {
      b = CoordinatorServer.start(bobConfig);
    } catch (Exception e) {
      alice.close();
      throw e;
    }
    bob = b;
    trust =
        Tls.context(
            dir.resolve("pki/alice.pem"), dir.resolve("pki/alice.key"), pki.caCertificate());
  }

  private CoordinatorConfig config(
      String party,
      int port,
      String peer,
      int peerPort,
      String partyToken,
      String inboundPeerToken,
      String outboundPeerToken,
      String dbUrl,
      Duration ttl,
      Duration sweep)
      throws Exception {
    Path home = dir.resolve(party);
    Files.createDirectories(home);
    Files.write(
        home.resolve("tokens"),
        List.of(
            "# tokens accepted by " + party + "'s coordinator",
            Tokens.line(partyToken, Kind.PARTY, party + "-analyst"),
            Tokens.line(inboundPeerToken, Kind.PEER, peer + "-coordinator")));
    Files.writeString(home.resolve("peer-token"), outboundPeerToken + "\n");
    Path pkiDir = dir.resolve("pki");
    CoordinatorConfig.Job job = jobs == null ? null : jobs.apply(party);
    if (job != null) {
      int relayPort = freePort();
      String endpoint = "127.0.0.1:" + relayPort;
      return new CoordinatorConfig(
          party,
          new CoordinatorConfig.Listen("127.0.0.1", port),
          new CoordinatorConfig.Tls(
              pkiDir.resolve(party + ".pem"), pkiDir.resolve(party + ".key"), pki.caCertificate()),
          new CoordinatorConfig.Database(dbUrl, null, null),
          home.resolve("tokens"),
          new CoordinatorConfig.Peer(
              peer, "https://localhost:" + peerPort, home.resolve("peer-token")),
          new CoordinatorConfig.Bridge(
              endpoint,
              pkiDir.resolve(party + ".pem"),
              new CoordinatorConfig.Relay(
                  endpoint,
                  pkiDir.resolve("relay-" + party + ".pem"),
                  pkiDir.resolve("relay-" + party + ".key"),
                  pki.caCertificate(),
                  job.pairTimeout())),
          ttl,
          sweep,
          // kkrt by default, as before; rr22 is offered for the labeled mode
          new CoordinatorConfig.Defaults(null, "kkrt", null),
          List.of("kkrt", "ecdh", "rr22"),
          new CoordinatorConfig.Job(
              job.mode(),
              job.javaHeap(),
              job.parallelism(),
              home.resolve("work"),
              pkiDir.resolve(party + ".pem"),
              pkiDir.resolve(party + ".key"),
              pki.caCertificate(),
              job.flinkHome(),
              job.jobJar(),
              job.flinkRestUrl(),
              job.flinkConfDir(),
              job.attempts(),
              job.pairTimeout(),
              job.idleTimeout(),
              job.maxBadRows(),
              job.classpath(),
              job.maxConcurrentJobs(),
              job.onShutdown()),
          new CoordinatorConfig.Output(
              home.resolve("results").toString(), io.psiflink.api.OutputFormat.AVRO),
          helpers.apply(party));
    }
    return new CoordinatorConfig(
        party,
        new CoordinatorConfig.Listen("127.0.0.1", port),
        new CoordinatorConfig.Tls(
            pkiDir.resolve(party + ".pem"), pkiDir.resolve(party + ".key"), pki.caCertificate()),
        new CoordinatorConfig.Database(dbUrl, null, null),
        home.resolve("tokens"),
        new CoordinatorConfig.Peer(
            peer, "https://localhost:" + peerPort, home.resolve("peer-token")),
        new CoordinatorConfig.Bridge(
            party + ".example:" + (7000 + port % 1000), pkiDir.resolve(party + ".pem")),
        ttl,
        sweep,
        new CoordinatorConfig.Defaults(null, "kkrt", null),
        List.of("kkrt", "ecdh", "rr22"),
        null,
        null,
        helpers.apply(party));
  }

  /** Stops alice's coordinator (as if it went down). */
  public void stopAlice() throws Exception {
    alice.close();
  }

  /** Starts alice's coordinator again, on the same port and database. */
  public void startAlice() throws Exception {
    alice = CoordinatorServer.start(aliceConfig);
  }

  /** Starts alice's coordinator again, on the same port and database, with {@code config}. */
  public void startAlice(CoordinatorConfig config) throws Exception {
    alice = CoordinatorServer.start(config);
  }

  public static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  public Client aliceApi() {
    return client(alice, "Bearer " + aliceToken);
  }

  public Client bobApi() {
    return client(bob, "Bearer " + bobToken);
  }

  public Client client(CoordinatorServer server, String authorization) {
    return new Client(trust, "https://localhost:" + server.port(), authorization);
  }

  @Override
  public void close() throws Exception {
    try {
      alice.close();
    } finally {
      bob.close();
    }
  }
}
