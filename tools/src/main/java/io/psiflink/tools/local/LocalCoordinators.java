package io.psiflink.tools.local;

import io.psiflink.bridge.ThrowawayPki;
import io.psiflink.coordinator.CoordinatorConfig;
import io.psiflink.coordinator.CoordinatorServer;
import io.psiflink.coordinator.Tokens;
import io.psiflink.coordinator.cli.ApiClient;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Two coordinators on loopback, alice (with the bridge relay) and bob, each configured from a YAML
 * file as a party would write it (docs/coordinator.md) with a throwaway CA, its own SQLite database
 * and tokens: what {@code ./psi demo} and {@code ./psi bench coordinator} run against.
 */
public final class LocalCoordinators implements AutoCloseable {
  /**
   * The job section of both coordinators.
   *
   * @param parallelism each job's Flink parallelism
   * @param heap each job JVM's heap
   * @param maxConcurrentJobs job slots per coordinator (null: the default)
   */
  public record Jobs(int parallelism, String heap, Integer maxConcurrentJobs) {}

  public final Path aliceYaml;
  public final Path bobYaml;
  public final CoordinatorServer alice;
  public final CoordinatorServer bob;
  public final ApiClient aliceApi;
  public final ApiClient bobApi;

  private LocalCoordinators(
      Path aliceYaml,
      Path bobYaml,
      CoordinatorServer alice,
      CoordinatorServer bob,
      ApiClient aliceApi,
      ApiClient bobApi) {
    this.aliceYaml = aliceYaml;
    this.bobYaml = bobYaml;
    this.alice = alice;
    this.bob = bob;
    this.aliceApi = aliceApi;
    this.bobApi = bobApi;
  }

  /**
   * Writes both configs below {@code work} and starts both coordinators.
   *
   * @param jobs the job section (null: none; sessions are recorded, no job runs)
   */
  public static LocalCoordinators start(Path work, Jobs jobs) throws Exception {
    ThrowawayPki.create(work.resolve("pki"), "alice", "bob", "relay-alice", "relay-bob");
    int[] ports = {freePort(), freePort(), freePort(), freePort()};
    String aliceToken = Tokens.newToken();
    String bobToken = Tokens.newToken();
    String aliceToBob = Tokens.newToken();
    String bobToAlice = Tokens.newToken();
    Path aliceYaml =
        writeConfig(
            work,
            "alice",
            "bob",
            ports[0],
            ports[1],
            ports[2],
            aliceToken,
            bobToAlice,
            aliceToBob,
            jobs);
    Path bobYaml =
        writeConfig(
            work,
            "bob",
            "alice",
            ports[1],
            ports[0],
            ports[3],
            bobToken,
            aliceToBob,
            bobToAlice,
            jobs);
    Path ca = work.resolve("pki/ca.pem");
    CoordinatorServer alice = CoordinatorServer.start(CoordinatorConfig.load(aliceYaml));
    CoordinatorServer bob;
    try {
      bob = CoordinatorServer.start(CoordinatorConfig.load(bobYaml));
    } catch (Exception e) {
      alice.close();
      throw e;
    }
    return new LocalCoordinators(
        aliceYaml,
        bobYaml,
        alice,
        bob,
        new ApiClient("https://localhost:" + alice.port(), aliceToken, ca),
        new ApiClient("https://localhost:" + bob.port(), bobToken, ca));
  }

  /**
   * One party's coordinator config (YAML), its tokens file, the token it presents to the peer and
   * its party token (for trying ./psi status|result against it by hand).
   */
  private static Path writeConfig(
      Path work,
      String party,
      String peer,
      int port,
      int peerPort,
      int relayPort,
      String partyToken,
      String inboundPeerToken,
      String outboundPeerToken,
      Jobs jobs)
      throws IOException {
    Path home = work.resolve(party);
    Files.createDirectories(home);
    Files.write(
        home.resolve("tokens"),
        List.of(
            Tokens.line(partyToken, Tokens.Kind.PARTY, party + "-local"),
            Tokens.line(inboundPeerToken, Tokens.Kind.PEER, peer + "-coordinator")));
    Files.writeString(home.resolve("peer-token"), outboundPeerToken + "\n");
    Files.writeString(home.resolve("party-token"), partyToken + "\n");
    String yaml =
        String.join(
            "\n",
            "party: " + party,
            "listen: {host: 127.0.0.1, port: " + port + "}",
            "tls: {certificate: ../pki/"
                + party
                + ".pem, privateKey: ../pki/"
                + party
                + ".key,"
                + " trustedCa: ../pki/ca.pem}",
            "database: {url: \"jdbc:sqlite:coordinator.db\"}",
            "tokensFile: tokens",
            "peer: {name: "
                + peer
                + ", url: \"https://localhost:"
                + peerPort
                + "\","
                + " tokenFile: peer-token}",
            "bridge:",
            "  endpoint: \"127.0.0.1:" + relayPort + "\"",
            "  certificate: ../pki/" + party + ".pem",
            "  relay: {listen: \"127.0.0.1:"
                + relayPort
                + "\", certificate: ../pki/relay-"
                + party
                + ".pem, privateKey: ../pki/relay-"
                + party
                + ".key, trustedCa: ../pki/ca.pem}",
            jobs == null
                ? ""
                : "job: {mode: embedded, javaHeap: "
                    + jobs.heap()
                    + ", parallelism: "
                    + jobs.parallelism()
                    + (jobs.maxConcurrentJobs() == null
                        ? ""
                        : ", maxConcurrentJobs: " + jobs.maxConcurrentJobs())
                    + ", workDir: work, privateKey: ../pki/"
                    + party
                    + ".key,"
                    + " trustedCa: ../pki/ca.pem}",
            "output: {directory: results, format: avro}",
            "");
    Path file = home.resolve("coordinator.yaml");
    Files.writeString(file, yaml, StandardCharsets.UTF_8);
    return file;
  }

  /**
   * Sends this JVM's logging (the coordinators', the relay's) to {@code logFile}, so that the
   * terminal (and stdout's report) shows the tool's own output; call before any logger exists.
   */
  public static void logToFile(Path work, Path logFile) throws IOException {
    Files.createDirectories(work);
    Path log4j = work.resolve("log4j2-local.properties");
    Files.writeString(
        log4j,
        String.join(
            "\n",
            "status = error",
            "appender.file.type = File",
            "appender.file.name = file",
            "appender.file.fileName = " + logFile,
            "appender.file.layout.type = PatternLayout",
            "appender.file.layout.pattern = %d{HH:mm:ss.SSS} %-5p %c{1} - %m%n",
            "rootLogger.level = INFO",
            "rootLogger.appenderRef.file.ref = file",
            ""));
    System.setProperty("log4j2.configurationFile", log4j.toString());
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
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
