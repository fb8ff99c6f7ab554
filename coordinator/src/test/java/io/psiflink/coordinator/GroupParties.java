package io.psiflink.coordinator;

import io.psiflink.bridge.ThrowawayPki;
import io.psiflink.coordinator.Tokens.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import javax.net.ssl.SSLContext;

/**
 * Three or more real coordinators in this JVM on loopback, one per organisation, each with its own
 * SQLite database, TLS certificate (one throwaway PKI) and tokens; each knows every other as an
 * organisation (the first other as {@code peer}, the rest as {@code peers}), and every peer token
 * is labelled with the organisation it was issued to. Each registers the provider {@value
 * #PROVIDER}, whose certificate is in the PKI too.
 */
public final class GroupParties implements AutoCloseable {
  public static final String PROVIDER = "olivia";

  public final Path dir;
  public final ThrowawayPki pki;
  public final List<String> names;
  private final Map<String, CoordinatorConfig> configs = new LinkedHashMap<>();
  private final Map<String, CoordinatorServer> servers = new LinkedHashMap<>();
  private final Map<String, String> partyTokens = new LinkedHashMap<>();

  /** The token organisation {@code from} presents to {@code to}'s coordinator: key "from>to". */
  private final Map<String, String> peerTokens = new LinkedHashMap<>();

  private final SSLContext trust;

  /**
   * @param jobs when not null, the job section of each party by name: each coordinator launches its
   *     party's jobs (certificate paths and work directory filled in per party) and runs a bridge
   *     relay on a free loopback port, its bridge endpoint
   * @param providerPin the pin each party registers the provider with, by party (null: the provider
   *     certificate's)
   */
  public GroupParties(
      Path dir,
      List<String> names,
      Function<String, CoordinatorConfig.Job> jobs,
      Function<String, String> providerPin)
      throws Exception {
    this.dir = dir;
    this.names = List.copyOf(names);
    List<String> pkiNames = new ArrayList<>(names);
    names.forEach(n -> pkiNames.add("relay-" + n));
    pkiNames.add(PROVIDER);
    this.pki = ThrowawayPki.create(dir.resolve("pki"), pkiNames.toArray(String[]::new));
    Map<String, Integer> ports = new LinkedHashMap<>();
    for (String n : names) {
      ports.put(n, Parties.freePort());
      partyTokens.put(n, Tokens.newToken());
      for (String m : names) {
        if (!m.equals(n)) {
          peerTokens.put(n + ">" + m, Tokens.newToken());
        }
      }
    }
    String realPin = Tls.fingerprint(dir.resolve("pki/" + PROVIDER + ".pem"));
    for (String n : names) {
      String pin = providerPin == null ? null : providerPin.apply(n);
      configs.put(
          n, config(n, ports, jobs == null ? null : jobs.apply(n), pin == null ? realPin : pin));
    }
    try {
      for (String n : names) {
        servers.put(n, CoordinatorServer.start(configs.get(n)));
      }
    } catch (Exception e) {
      close();
      throw e;
    }
    String first = names.get(0);
    trust =
        Tls.context(
            dir.resolve("pki/" + first + ".pem"),
            dir.resolve("pki/" + first + ".key"),
            pki.caCertificate());
  }

  private CoordinatorConfig config(
      String party, Map<String, Integer> ports, CoordinatorConfig.Job job, String providerPin)
      throws Exception {
    Path home = dir.resolve(party);
    Files.createDirectories(home);
    Path pkiDir = dir.resolve("pki");
    List<String> tokenLines = new ArrayList<>();
    tokenLines.add(Tokens.line(partyTokens.get(party), Kind.PARTY, party + "-analyst"));
    List<CoordinatorConfig.Peer> orgs = new ArrayList<>();
    for (String other : names) {
      if (other.equals(party)) {
        continue;
      }
      tokenLines.add(Tokens.line(peerTokens.get(other + ">" + party), Kind.PEER, other));
      Path tokenFile = home.resolve("token-for-" + other);
      Files.writeString(tokenFile, peerTokens.get(party + ">" + other) + "\n");
      orgs.add(
          new CoordinatorConfig.Peer(
              other, "https://localhost:" + ports.get(other), tokenFile, pki.caCertificate()));
    }
    Files.write(home.resolve("tokens"), tokenLines);
    String endpoint;
    CoordinatorConfig.Bridge bridge;
    CoordinatorConfig.Job launch = null;
    if (job != null) {
      endpoint = "127.0.0.1:" + Parties.freePort();
      bridge =
          new CoordinatorConfig.Bridge(
              endpoint,
              pkiDir.resolve(party + ".pem"),
              new CoordinatorConfig.Relay(
                  endpoint,
                  pkiDir.resolve("relay-" + party + ".pem"),
                  pkiDir.resolve("relay-" + party + ".key"),
                  pki.caCertificate(),
                  job.pairTimeout()));
      launch =
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
              job.onShutdown());
    } else {
      bridge =
          new CoordinatorConfig.Bridge(
              party + ".example:" + (7000 + ports.get(party) % 1000),
              pkiDir.resolve(party + ".pem"));
    }
    return new CoordinatorConfig(
        party,
        new CoordinatorConfig.Listen("127.0.0.1", ports.get(party)),
        new CoordinatorConfig.Tls(
            pkiDir.resolve(party + ".pem"), pkiDir.resolve(party + ".key"), pki.caCertificate()),
        new CoordinatorConfig.Database("jdbc:sqlite:" + home.resolve("coordinator.db"), null, null),
        home.resolve("tokens"),
        orgs.get(0),
        bridge,
        Duration.ofHours(1),
        Duration.ofHours(1), // tests sweep by hand
        new CoordinatorConfig.Defaults(null, "kkrt", null),
        List.of("kkrt", "ecdh", "rr22"),
        launch,
        new CoordinatorConfig.Output(
            home.resolve("results").toString(), io.psiflink.api.OutputFormat.AVRO),
        List.of(),
        orgs.subList(1, orgs.size()),
        List.of(
            new CoordinatorConfig.Provider(PROVIDER, providerPin, "Olivia plc, under contract")));
  }

  public CoordinatorConfig config(String party) {
    return configs.get(party);
  }

  public CoordinatorServer server(String party) {
    return servers.get(party);
  }

  /** The API of {@code party}'s coordinator, as its own people call it. */
  public Client api(String party) {
    return client(party, "Bearer " + partyTokens.get(party));
  }

  /** The API of {@code at}'s coordinator, as organisation {@code as}'s coordinator calls it. */
  public Client peerApi(String at, String as) {
    return client(at, "Bearer " + peerTokens.get(as + ">" + at));
  }

  private Client client(String party, String authorization) {
    return new Client(trust, "https://localhost:" + servers.get(party).port(), authorization);
  }

  /** Stops {@code party}'s coordinator (as if it went down). */
  public void stop(String party) throws Exception {
    servers.remove(party).close();
  }

  /** Starts {@code party}'s coordinator again, on the same port and database. */
  public void start(String party) throws Exception {
    servers.put(party, CoordinatorServer.start(configs.get(party)));
  }

  /** Runs one sweep at every coordinator (expiry, polls, launches). */
  public void sweep() {
    servers.values().forEach(CoordinatorServer::sweepNow);
  }

  @Override
  public void close() throws Exception {
    Exception first = null;
    for (CoordinatorServer s : servers.values()) {
      try {
        s.close();
      } catch (Exception e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
