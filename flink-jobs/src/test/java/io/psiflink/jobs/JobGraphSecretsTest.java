package io.psiflink.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.PublicSize;
import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import io.psiflink.connectors.BadRowLimit;
import io.psiflink.connectors.CsvOptions;
import io.psiflink.connectors.SchemaDiscovery;
import io.psiflink.connectors.StagedOutput;
import io.psiflink.connectors.TableFormat;
import io.psiflink.jobs.psi.BridgeEndpoint;
import io.psiflink.jobs.session.JobSecrets;
import io.psiflink.jobs.session.SessionSecrets;
import io.psiflink.query.JoinQuery;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * The session's secrets never enter the Flink job (the JobManager keeps the job graph, in its HA
 * store too): the job graph that PrivateJoinJob builds, serialised as Flink ships it, holds none of
 * the token key, bin seed, frame key or protocol setup, only the name of the file that carries them
 * (its path on the embedded MiniCluster, else its distributed-cache name); that file is readable by
 * its owner alone and holds exactly the secrets.
 */
class JobGraphSecretsTest {
  @TempDir Path dir;

  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> parties() {
    return java.util.stream.Stream.of(
        org.junit.jupiter.params.provider.Arguments.of(Role.A, false),
        org.junit.jupiter.params.provider.Arguments.of(Role.B, false),
        org.junit.jupiter.params.provider.Arguments.of(Role.A, true),
        org.junit.jupiter.params.provider.Arguments.of(Role.B, true));
  }

  @ParameterizedTest(name = "party {0}, prefilter {1}")
  @org.junit.jupiter.params.provider.MethodSource("parties")
  void theJobGraphHoldsNoSecret(Role role, boolean prefilter) throws Exception {
    boolean sendsColumns = role.equals(Role.B); // B sends its columns, A writes the joined rows
    Path table = dir.resolve("t.csv");
    Files.writeString(table, "k,v\n1,x\n2,y\n");
    PartyConfig cfg =
        new PartyConfig(
            role,
            "SELECT a.v, b.w FROM a JOIN b ON a.k = b.k",
            table.toString(),
            sendsColumns ? null : dir.resolve("out").toString(),
            TableFormat.CSV,
            null,
            BadRowLimit.DEFAULT,
            CsvOptions.DEFAULT,
            "graph-test",
            new BridgeEndpoint(
                "127.0.0.1",
                1,
                "cert.pem",
                "key.pem",
                "ca.pem",
                Duration.ofSeconds(5),
                Duration.ofSeconds(5)),
            sendsColumns ? "party-a" : "party-b",
            new byte[32],
            4,
            40,
            "kkrt",
            "",
            io.psiflink.api.JoinMode.BOTH,
            io.psiflink.api.PartyOptions.DEFAULT_LABEL_BYTES,
            2,
            1,
            dir.resolve("work").toString(),
            PublicSize.DEFAULT,
            null,
            false,
            prefilter ? io.psiflink.api.Prefilter.HELPER : io.psiflink.api.Prefilter.NONE,
            0,
            0,
            1.0,
            prefilter ? "helper" : null,
            prefilter ? new byte[32] : null,
            null,
            false,
            true);
    SecureRandom r = new SecureRandom();
    byte[] tokenKey = bytes(r, 32);
    byte[] binSeed = bytes(r, 16);
    byte[] frameKey = bytes(r, 32);
    byte[] setup = bytes(r, 4096);
    byte[] filterKey = bytes(r, 32);
    Column k = new Column("k", ColumnType.BIGINT, true);
    List<Column> peerRevealed =
        sendsColumns
            ? List.of(new Column("v", ColumnType.STRING, true))
            : List.of(new Column("w", ColumnType.STRING, true));
    List<Column> peerNamed =
        sendsColumns ? List.of(k, peerRevealed.get(0)) : List.of(k, peerRevealed.get(0));
    SessionSecrets secrets =
        new SessionSecrets(
            tokenKey,
            binSeed,
            frameKey,
            setup,
            4,
            sendsColumns ? "party-a" : "party-b",
            List.of(k),
            peerRevealed,
            peerNamed,
            prefilter ? new io.psiflink.jobs.prefilter.PrefilterPlan(16, 2, Role.A) : null,
            prefilter ? filterKey : null,
            null);
    // B's table has w, A's has v
    if (sendsColumns) {
      Files.writeString(table, "k,w\n1,x\n2,y\n");
    }
    JoinQuery query = JoinQuery.parse(cfg.sql());
    TableSchema schema = SchemaDiscovery.discover(cfg.table(), cfg.csv());
    Path file = JobSecrets.of(secrets).writeTo(PrivateJoinJob.secretDir(cfg));
    assertEquals(
        Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
        Files.getPosixFilePermissions(file));
    assertEquals(
        Set.of(
            PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE,
            PosixFilePermission.OWNER_EXECUTE),
        Files.getPosixFilePermissions(file.getParent()));
    StagedOutput staged = sendsColumns ? null : StagedOutput.prepare(cfg.out());

    StreamExecutionEnvironment env =
        PrivateJoinJob.pipeline(
            cfg, query, schema, query.view(role, schema), secrets, file, staged, null, null, null);
    StreamGraph streamGraph = env.getStreamGraph();
    JobGraph jobGraph = streamGraph.getJobGraph();
    byte[] shipped = InstantiationUtil.serializeObject(jobGraph);
    // the embedded MiniCluster's tasks read the file where it is (JobSecrets.ship)
    assertTrue(jobGraph.getUserArtifacts().isEmpty(), "no file in the distributed cache");
    assertTrue(
        contains(shipped, file.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8)),
        "the job graph names the secret file");
    // Flink 2 may submit a batch job's stream graph itself (adaptive graph): check it too
    streamGraph.serializeUserDefinedInstances();
    byte[] shippedStreamGraph = InstantiationUtil.serializeObject(streamGraph);
    for (byte[] graph : List.of(shipped, shippedStreamGraph)) {
      assertTrue(graph.length > 10_000, "the serialised graph holds the operators");
      assertFalse(contains(graph, tokenKey), "the token key is in the job graph");
      assertFalse(contains(graph, binSeed), "the bin seed is in the job graph");
      assertFalse(contains(graph, frameKey), "the frame key is in the job graph");
      assertFalse(
          contains(graph, java.util.Arrays.copyOf(setup, 32)),
          "the protocol setup is in the job graph");
      assertFalse(contains(graph, filterKey), "the prefilter key is in the job graph");
      assertEquals(
          prefilter,
          streamGraph.getStreamNodes().stream()
              .anyMatch(n -> n.getOperatorName().startsWith("prefilter: candidates")),
          "the prefilter's operators are in the graph exactly when it is on");
    }
    // the oracle finds what it looks for: the file itself holds the keys
    byte[] inFile = Files.readAllBytes(file);
    assertTrue(contains(inFile, tokenKey) && contains(inFile, frameKey));
    assertEquals(prefilter, contains(inFile, filterKey));
  }

  private static byte[] bytes(SecureRandom r, int n) {
    byte[] b = new byte[n];
    r.nextBytes(b);
    return b;
  }

  private static boolean contains(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
