package io.psiflink.it.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.psiflink.coordinator.Client;
import io.psiflink.coordinator.Client.Reply;
import io.psiflink.coordinator.CoordinatorConfig;
import io.psiflink.coordinator.Parties;
import io.psiflink.it.JoinTables;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The coordinator's {@code flink-run} mode against real Flink 2.3 clusters: two standalone
 * clusters, one per party (deploy/local-cluster/flink-clusters.sh, the distribution from PyPI as in
 * ClusterE2eIT), and two real coordinators in this JVM (the coordinator module's fixtures) with
 * {@code job.mode: flink-run}, the cluster's {@code flinkConfDir} and {@code flinkRestUrl}, and the
 * job jar. A query submitted at alice and approved at bob runs {@code flink run} of each party; A's
 * rows must equal the plaintext join ({@link JoinTables#plaintextJoin}), and each cluster's REST
 * API must show its party's job, FINISHED: with local tables and output, and with both on HDFS (a
 * MiniDFSCluster in this JVM; the clients find Hadoop through HADOOP_CLASSPATH, which failsafe sets
 * as an operator would for the coordinator). Then a cancel, which must cancel the Flink jobs on the
 * clusters and leave no output.
 *
 * <p>Logs stay in it-tests/target/coordinator-flink-run/ (the clusters' in flink-*&#47;log, the
 * clients' in {alice,bob}/work/SESSION/job.log).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CoordinatorFlinkRunIT {
  private static final Duration JOB_TIMEOUT = Duration.ofSeconds(180);
  private static final List<String> PARTIES = List.of("alice", "bob");

  private final HttpClient http = HttpClient.newHttpClient();
  Path root;
  Path dir;
  Path clustersScript;
  Parties parties;
  Client alice;
  Client bob;
  JoinTables tables;
  final Map<String, String> restUrl = new java.util.HashMap<>();
  MiniDFSCluster hdfs;
  String hdfsUri;
  FileSystem hdfsFs;

  @BeforeAll
  void start() throws Exception {
    root = Path.of(System.getProperty("psi.repo.root", "..")).toAbsolutePath().normalize();
    Path target = root.resolve("deploy/target");
    Path jar =
        Path.of(System.getProperty("psi.job.jar", target.resolve("psi-flink-job.jar").toString()));
    Path hadoopLib =
        Path.of(System.getProperty("psi.hadoop.lib", target.resolve("hadoop-lib").toString()));
    assertTrue(Files.isRegularFile(jar), "no job jar " + jar + " (mvn -pl deploy -am package)");
    dir = root.resolve("it-tests/target/coordinator-flink-run");
    clustersScript = root.resolve("deploy/local-cluster/flink-clusters.sh");
    if (Files.isDirectory(dir.resolve("flink-alice"))) {
      stopClusters(); // of a run that was killed: their pid files are about to go
    }
    deleteTree(dir);
    Files.createDirectories(dir);

    List<String> cmd =
        new ArrayList<>(
            List.of(
                "bash",
                clustersScript.toString(),
                "start",
                "--work",
                dir.toString(),
                "--hadoop-lib",
                hadoopLib.toString(),
                "--parallelism",
                "2",
                // the REST API serves metrics fetched at most this long ago (default 10 s)
                "--conf",
                "metrics.fetcher.update-interval=1000"));
    cmd.addAll(PARTIES);
    Path log = dir.resolve("clusters.log");
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroy();
      p.waitFor(60, TimeUnit.SECONDS);
      stopClusters();
      fail("flink-clusters.sh start did not finish within 5 min\n" + Files.readString(log));
    }
    String out = Files.readString(log);
    if (p.exitValue() != 0) {
      fail("flink-clusters.sh start failed (exit " + p.exitValue() + ")\n" + out);
    }
    Path flinkHome =
        Path.of(
            out.lines()
                .filter(l -> l.startsWith("FLINK_HOME="))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no FLINK_HOME= in\n" + out))
                .substring("FLINK_HOME=".length()));
    for (String party : PARTIES) {
      restUrl.put(party, Files.readString(dir.resolve("flink-" + party + "/rest.url")).trim());
    }

    // key paths are filled in per party by Parties; generous timeouts, as the two clients may
    // start far apart on a loaded machine
    parties =
        new Parties(
            dir.resolve("parties"),
            party -> "jdbc:sqlite:" + dir.resolve(party + ".db"),
            Duration.ofHours(1),
            Duration.ofHours(1),
            party ->
                new CoordinatorConfig.Job(
                    io.psiflink.coordinator.JobMode.FLINK_RUN,
                    null,
                    2,
                    null,
                    null,
                    dir.resolve("unused.key"),
                    dir.resolve("unused.pem"),
                    flinkHome,
                    jar,
                    restUrl.get(party),
                    dir.resolve("flink-" + party + "/conf"),
                    2,
                    Duration.ofSeconds(90),
                    Duration.ofSeconds(90),
                    JoinTables.MAX_BAD_ROWS));
    alice = parties.aliceApi();
    bob = parties.bobApi();
    tables = new JoinTables(dir);
    tables.register(alice, bob);

    // the same tables on HDFS, registered as second datasets
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, dir.resolve("hdfs").toString());
    hdfs = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
    hdfs.waitActive();
    hdfsUri = "hdfs://localhost:" + hdfs.getNameNodePort();
    hdfsFs = hdfs.getFileSystem();
    hdfsFs.copyFromLocalFile(
        new org.apache.hadoop.fs.Path(tables.a.toString()),
        new org.apache.hadoop.fs.Path(hdfsUri + "/alice/tables/a.csv"));
    hdfsFs.copyFromLocalFile(
        new org.apache.hadoop.fs.Path(tables.b.toString()),
        new org.apache.hadoop.fs.Path(hdfsUri + "/bob/tables/b.csv"));
    JoinTables.register(
        alice,
        "purchases_hdfs",
        hdfsUri + "/alice/tables/a.csv",
        List.of("spend", "card"),
        List.of("spend"));
    JoinTables.register(
        bob, "customers_hdfs", hdfsUri + "/bob/tables/b.csv", List.of("email"), List.of("country"));
  }

  @AfterAll
  void stop() throws Exception {
    try {
      if (parties != null) {
        parties.close();
      }
    } finally {
      try {
        stopClusters();
      } finally {
        if (hdfs != null) {
          hdfs.shutdown();
        }
      }
    }
  }

  private void stopClusters() throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of("bash", clustersScript.toString(), "stop", "--work", dir.toString()));
    cmd.addAll(PARTIES);
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("clusters-stop.log").toFile())
            .start();
    p.waitFor(2, TimeUnit.MINUTES);
  }

  /** The state of a party's Flink job of a session, as its cluster's REST API reports it. */
  private String flinkState(String party, String partyLetter, String session) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(restUrl.get(party) + "/jobs/overview")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    String state = null;
    for (JsonNode j : Client.JSON.readTree(r.body()).path("jobs")) {
      if (j.path("name")
          .asText()
          .equals("psi-flink party " + partyLetter + " session " + session)) {
        assertEquals(null, state, "one job of the session on " + party + "'s cluster: " + r.body());
        state = j.path("state").asText();
      }
    }
    return state;
  }

  private String clientLogs(String session) {
    StringBuilder sb = new StringBuilder();
    for (String party : PARTIES) {
      Path log = dir.resolve("parties/" + party + "/work/" + session + "/job.log");
      try {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        sb.append("----- ")
            .append(log)
            .append('\n')
            .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())))
            .append('\n');
      } catch (IOException e) {
        sb.append("----- no ").append(log).append('\n');
      }
    }
    return sb.toString();
  }

  @Test
  void submittedAtAApprovedAtBRunsOnBothClustersAndEqualsThePlaintextJoin() throws Exception {
    Path out = dir.resolve("joined");
    String session =
        JoinTables.submitAndApprove(alice, bob, "purchases", "customers", out.toString());
    List<String> seenA = new ArrayList<>();
    JsonNode a = JoinTables.awaitEnd(alice, session, seenA, JOB_TIMEOUT, () -> clientLogs(session));
    JsonNode b =
        JoinTables.awaitEnd(
            bob, session, new ArrayList<>(), JOB_TIMEOUT, () -> clientLogs(session));
    assertEquals(
        "succeeded", a.path("status").asText(), a + " seen " + seenA + "\n" + clientLogs(session));
    assertEquals("succeeded", b.path("status").asText(), b + "\n" + clientLogs(session));
    // here progress comes from the cluster's REST API
    JoinTables.assertProgressFromFlink(a, seenA);
    // each party's job ran on its own cluster
    assertEquals("FINISHED", flinkState("alice", "A", session));
    assertEquals("FINISHED", flinkState("bob", "B", session));
    assertEquals(null, flinkState("alice", "B", session));

    List<String> expected = tables.assertOutputIsThePlaintextJoin(out);
    Reply result = alice.get("/v1/sessions/" + session + "/result");
    assertEquals(200, result.status(), result.toString());
    assertEquals(expected.size(), result.json().path("rowsOut").asLong());
    tables.assertCountsOfA(result.json().path("summary"));
  }

  @Test
  void cancelAtACancelsBothFlinkJobsAndLeavesNoOutput() throws Exception {
    Path out = dir.resolve("cancelled");
    String session =
        JoinTables.submitAndApprove(alice, bob, "purchases", "customers", out.toString());
    // cancel once A's job runs on its cluster (the handshake is over, the Flink job submitted)
    long deadline = System.nanoTime() + JOB_TIMEOUT.toNanos();
    String state = null;
    while (!"RUNNING".equals(state) && System.nanoTime() < deadline) {
      Thread.sleep(200);
      state = flinkState("alice", "A", session);
    }
    assertEquals("RUNNING", state, clientLogs(session));
    assertEquals("running", alice.get("/v1/sessions/" + session).json().path("status").asText());
    Reply c = alice.post("/v1/sessions/" + session + "/cancel", "{}");
    assertEquals(200, c.status(), c.toString());
    assertEquals("cancelled", c.json().path("status").asText());
    // the cancel returns once alice's cluster has cancelled the job
    assertEquals("CANCELED", flinkState("alice", "A", session));
    JsonNode b =
        JoinTables.awaitEnd(
            bob, session, new ArrayList<>(), JOB_TIMEOUT, () -> clientLogs(session));
    assertEquals("failed", b.path("status").asText(), b.toString());
    assertTrue(
        b.path("error").asText().contains("alice ended the session: cancelled"), b.toString());
    String stateB = flinkState("bob", "B", session);
    assertTrue(
        stateB == null || List.of("CANCELED", "FAILED").contains(stateB),
        "B's Flink job, if it was submitted, must have ended: " + stateB);
    assertFalse(Files.exists(out), "no output after a cancel");
    Reply result = alice.get("/v1/sessions/" + session + "/result");
    assertEquals(409, result.status(), result.toString());
  }

  /**
   * Alice's coordinator (and the relay it runs), restarted while its {@code flink run} client and
   * the cluster's job run, with {@code job.onShutdown: leave}: the client dials the relay again,
   * the restarted coordinator re-attaches to the client and follows the cluster's job through its
   * REST API, and the session completes with the plaintext join.
   */
  @Test
  void aCoordinatorRestartedWhileItsFlinkJobRunsReattachesToIt() throws Exception {
    CoordinatorConfig leave = leavingJobs(parties.aliceConfig);
    parties.stopAlice();
    parties.startAlice(leave);
    alice = parties.aliceApi();
    try {
      Path out = dir.resolve("restarted");
      String session =
          JoinTables.submitAndApprove(alice, bob, "purchases", "customers", out.toString());
      long deadline = System.nanoTime() + JOB_TIMEOUT.toNanos();
      String state = null;
      while (!"RUNNING".equals(state) && System.nanoTime() < deadline) {
        Thread.sleep(200);
        state = flinkState("alice", "A", session);
      }
      assertEquals("RUNNING", state, clientLogs(session));
      parties.stopAlice();
      Thread.sleep(1000);
      parties.startAlice(leave);
      alice = parties.aliceApi();
      JsonNode a =
          JoinTables.awaitEnd(
              alice, session, new ArrayList<>(), JOB_TIMEOUT, () -> clientLogs(session));
      JsonNode b =
          JoinTables.awaitEnd(
              bob, session, new ArrayList<>(), JOB_TIMEOUT, () -> clientLogs(session));
      assertEquals("succeeded", a.path("status").asText(), a + "\n" + clientLogs(session));
      assertEquals("succeeded", b.path("status").asText(), b + "\n" + clientLogs(session));
      assertEquals("FINISHED", flinkState("alice", "A", session));
      tables.assertOutputIsThePlaintextJoin(out);
      assertTrue(
          alice.get("/v1/audit").raw().contains("job.reattached"), "re-attached, not relaunched");
    } finally {
      parties.stopAlice();
      parties.startAlice();
      alice = parties.aliceApi();
    }
  }

  /** {@code c} with {@code job.onShutdown: leave}. */
  private static CoordinatorConfig leavingJobs(CoordinatorConfig c) {
    CoordinatorConfig.Job j = c.job();
    return new CoordinatorConfig(
        c.party(),
        c.listen(),
        c.tls(),
        c.database(),
        c.tokensFile(),
        c.peer(),
        c.bridge(),
        c.approvalTtl(),
        c.sweepInterval(),
        c.defaults(),
        c.protocols(),
        new CoordinatorConfig.Job(
            j.mode(),
            j.javaHeap(),
            j.parallelism(),
            j.workDir(),
            j.certificate(),
            j.privateKey(),
            j.trustedCa(),
            j.flinkHome(),
            j.jobJar(),
            j.flinkRestUrl(),
            j.flinkConfDir(),
            j.attempts(),
            j.pairTimeout(),
            j.idleTimeout(),
            j.maxBadRows(),
            j.classpath(),
            j.maxConcurrentJobs(),
            "leave"),
        c.output(),
        c.helpers(),
        c.peers(),
        c.providers());
  }

  @Test
  void tablesAndOutputOnHdfs() throws Exception {
    String out = hdfsUri + "/alice/out/joined";
    String session =
        JoinTables.submitAndApprove(alice, bob, "purchases_hdfs", "customers_hdfs", out);
    JsonNode a =
        JoinTables.awaitEnd(
            alice, session, new ArrayList<>(), JOB_TIMEOUT, () -> clientLogs(session));
    JsonNode b =
        JoinTables.awaitEnd(
            bob, session, new ArrayList<>(), JOB_TIMEOUT, () -> clientLogs(session));
    assertEquals("succeeded", a.path("status").asText(), a + "\n" + clientLogs(session));
    assertEquals("succeeded", b.path("status").asText(), b + "\n" + clientLogs(session));
    assertEquals("FINISHED", flinkState("alice", "A", session));
    assertEquals("FINISHED", flinkState("bob", "B", session));
    assertEquals(out, a.path("result").path("location").asText(), a.toString());
    assertTrue(hdfsFs.exists(new org.apache.hadoop.fs.Path(out + "/_SUCCESS")));
    Path local = dir.resolve("joined-from-hdfs");
    hdfsFs.copyToLocalFile(
        new org.apache.hadoop.fs.Path(out), new org.apache.hadoop.fs.Path(local.toString()));
    assertEquals(tables.plaintextJoin(), JoinTables.readCsvOutput(local));
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path x : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(x);
      }
    }
  }
}
