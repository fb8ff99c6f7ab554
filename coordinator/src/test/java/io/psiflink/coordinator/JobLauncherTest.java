package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.HostPort;
import io.psiflink.api.JoinMode;
import io.psiflink.api.OutputFormat;
import io.psiflink.api.PartyConfiguration;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.PublicSize;
import io.psiflink.api.Role;
import io.psiflink.coordinator.Model.Dataset;
import io.psiflink.coordinator.Model.QueryRecord;
import io.psiflink.coordinator.Model.SessionRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job's command line in flink-run mode (which runs end to end against real clusters in the
 * deploy module's CoordinatorFlinkRunIT; the embedded mode in JobLaunchTest), and how a failed
 * job's cause is found.
 */
class JobLauncherTest {
  private static final String FA = "fa".repeat(32);
  private static final String FB = "fb".repeat(32);

  @TempDir Path dir;

  @Test
  void flinkRunModeRunsPartyMainFromTheJobJarWithTheSessionsParameters() {
    CoordinatorConfig.Job job =
        new CoordinatorConfig.Job(
            JobMode.FLINK_RUN,
            null,
            4,
            dir.resolve("w"),
            dir.resolve("job.pem"),
            dir.resolve("job.key"),
            dir.resolve("ca.pem"),
            Path.of("/opt/flink"),
            Path.of("/opt/psi/psi-flink-job.jar"),
            "http://jm:8081",
            null,
            2,
            Duration.ofSeconds(30),
            Duration.ofSeconds(45),
            "0.5%");
    CoordinatorConfig config =
        new CoordinatorConfig(
            "alice",
            new CoordinatorConfig.Listen("127.0.0.1", 0),
            new CoordinatorConfig.Tls(dir.resolve("a.pem"), dir.resolve("a.key"), dir.resolve("c")),
            null,
            dir.resolve("tokens"),
            new CoordinatorConfig.Peer("bob", "https://bob", dir),
            new CoordinatorConfig.Bridge("alice.example:7443", dir.resolve("bridge.pem")),
            null,
            null,
            null,
            null,
            job,
            null,
            null);
    JobLauncher launcher =
        new JobLauncher(config, null, CoordinatorServer.mapper(), Clock.systemUTC(), (s, r) -> {});
    SessionRecord s =
        new SessionRecord(
            "s1",
            "q1",
            "alice",
            "bob",
            16,
            40,
            "kkrt",
            io.psiflink.api.JoinMode.BOTH,
            null,
            Model.Prefiltering.NONE,
            "alice.example:7443",
            FA,
            "bob.example:7443",
            FB,
            0L);
    QueryRecord q =
        new QueryRecord(
            "q1",
            Model.Direction.OUTGOING,
            "alice",
            "bob",
            Role.A,
            "purchases",
            "customers",
            "SELECT a.x FROM a JOIN b ON a.k = b.k",
            "fp",
            16,
            40,
            "kkrt",
            io.psiflink.api.JoinMode.BOTH,
            null,
            Model.Prefiltering.NONE,
            "alice.example:7443",
            FA,
            Model.QueryStatus.APPROVED,
            null,
            0,
            1,
            0L,
            null);
    Dataset d =
        new Dataset(
            "purchases",
            "hdfs://nn/purchases",
            io.psiflink.api.OutputFormat.AVRO,
            List.of(
                new Model.ColumnSpec("k", "BIGINT", false),
                new Model.ColumnSpec("x y", "STRING", true)),
            List.of("k"),
            List.of("x y"),
            List.of(),
            Model.DatasetStatus.ACTIVE,
            0,
            null,
            "declared:5000",
            Model.RevealIntersection.ALLOWED);
    List<String> cmd =
        launcher.command(
            s,
            q,
            d,
            dir.resolve("w/s1"),
            "hdfs://nn:8020/out/s1",
            io.psiflink.api.OutputFormat.AVRO,
            0);
    assertEquals(
        List.of(
            "/opt/flink/bin/flink",
            "run",
            "-c",
            "io.psiflink.jobs.PartyMain",
            "/opt/psi/psi-flink-job.jar"),
        cmd.subList(0, 5));
    String args = String.join(" ", cmd.subList(5, cmd.size()));
    for (String expected :
        List.of(
            "--party A",
            "--table hdfs://nn/purchases",
            "--out hdfs://nn:8020/out/s1",
            "--format avro",
            "--session s1",
            "--bridge alice.example:7443",
            "--cert " + dir.resolve("job.pem"),
            "--key " + dir.resolve("job.key"),
            "--ca " + dir.resolve("ca.pem"),
            "--peer bob",
            "--peer-cert-sha256 " + FB,
            "--bins 16",
            "--sigma 40",
            "--protocol kkrt",
            "--mode both",
            "--prefilter none",
            "--parallelism 4",
            "--attempts 2",
            "--pair-timeout 30",
            "--idle-timeout 45",
            "--max-bad-rows 0.5%",
            "--public-size declared:5000",
            "--expected-columns k:BIGINT,x+y:STRING",
            "--summary " + dir.resolve("w/s1/summary.json"))) {
      assertTrue(args.contains(expected), expected + " in " + args);
    }
    assertEquals("SELECT a.x FROM a JOIN b ON a.k = b.k", cmd.get(cmd.indexOf("--sql") + 1));

    // the job's parser reads the command line back as the configuration meant, option by option
    PartyConfiguration intended =
        PartyConfiguration.empty()
            .with(PartyOptions.PARTY, Role.A)
            .with(PartyOptions.TABLE, "hdfs://nn/purchases")
            .with(PartyOptions.SQL, "SELECT a.x FROM a JOIN b ON a.k = b.k")
            .with(PartyOptions.OUT, "hdfs://nn:8020/out/s1")
            .with(PartyOptions.FORMAT, OutputFormat.AVRO)
            .with(PartyOptions.QUARANTINE, dir.resolve("w/s1/quarantine").toString())
            .with(PartyOptions.MAX_BAD_ROWS, "0.5%")
            .with(PartyOptions.SESSION, "s1")
            .with(PartyOptions.BRIDGE, new HostPort("alice.example", 7443))
            .with(PartyOptions.CERT, dir.resolve("job.pem"))
            .with(PartyOptions.KEY, dir.resolve("job.key"))
            .with(PartyOptions.CA, dir.resolve("ca.pem"))
            .with(PartyOptions.PEER, "bob")
            .with(PartyOptions.PEER_CERT_SHA256, FB)
            .with(PartyOptions.BINS, 16)
            .with(PartyOptions.SIGMA, 40)
            .with(PartyOptions.PROTOCOL, "kkrt")
            .with(PartyOptions.MODE, JoinMode.BOTH)
            .with(PartyOptions.PREFILTER, io.psiflink.api.Prefilter.NONE)
            .with(PartyOptions.PARALLELISM, 4)
            .with(PartyOptions.ATTEMPTS, 2)
            .with(PartyOptions.WORK, dir.resolve("w/s1/flink").toString())
            .with(PartyOptions.PAIR_TIMEOUT, Duration.ofSeconds(30))
            .with(PartyOptions.IDLE_TIMEOUT, Duration.ofSeconds(45))
            .with(PartyOptions.SUMMARY, dir.resolve("w/s1/summary.json"))
            .with(PartyOptions.PUBLIC_SIZE, new PublicSize(PublicSize.Policy.DECLARED, 5000))
            .with(PartyOptions.EXPECTED_COLUMNS, "k:BIGINT,x+y:STRING");
    assertEquals(intended, PartyConfiguration.parse(cmd.subList(5, cmd.size())));
  }

  @Test
  void theEmbeddedJobsCommandLineIsOneTheJobParses() {
    CoordinatorConfig.Job job =
        new CoordinatorConfig.Job(
            JobMode.EMBEDDED,
            "768m",
            1,
            dir.resolve("w"),
            dir.resolve("job.pem"),
            dir.resolve("job.key"),
            dir.resolve("ca.pem"),
            null,
            null,
            null,
            null,
            1,
            Duration.ofMillis(300),
            Duration.ofSeconds(45),
            null,
            List.of(dir.resolve("psi-flink-jobs.jar")));
    CoordinatorConfig config =
        new CoordinatorConfig(
            "bob",
            new CoordinatorConfig.Listen("127.0.0.1", 0),
            new CoordinatorConfig.Tls(dir.resolve("a.pem"), dir.resolve("a.key"), dir.resolve("c")),
            null,
            dir.resolve("tokens"),
            new CoordinatorConfig.Peer("alice", "https://alice", dir),
            new CoordinatorConfig.Bridge("bob.example:7443", dir.resolve("bridge.pem")),
            null,
            null,
            null,
            null,
            job,
            null,
            null);
    JobLauncher launcher =
        new JobLauncher(config, null, CoordinatorServer.mapper(), Clock.systemUTC(), (s, r) -> {});
    SessionRecord s =
        new SessionRecord(
            "s2",
            "q2",
            "alice",
            "bob",
            0,
            41,
            "ecdh",
            io.psiflink.api.JoinMode.BOTH,
            null,
            Model.Prefiltering.NONE,
            "alice.example:7443",
            FA,
            "bob.example:7443",
            FB,
            0L);
    QueryRecord q =
        new QueryRecord(
            "q2",
            Model.Direction.INCOMING,
            "alice",
            "bob",
            Role.B,
            "crm",
            "purchases",
            "SELECT COUNT(DISTINCT a.k) FROM a JOIN b ON a.k = b.k",
            "fp",
            0,
            41,
            "ecdh",
            io.psiflink.api.JoinMode.BOTH,
            null,
            Model.Prefiltering.NONE,
            "alice.example:7443",
            FA,
            Model.QueryStatus.APPROVED,
            null,
            0,
            1,
            0L,
            null);
    Dataset d =
        new Dataset(
            "crm",
            "/data/crm.csv",
            io.psiflink.api.OutputFormat.CSV,
            List.of(),
            List.of("k"),
            List.of(),
            List.of(),
            Model.DatasetStatus.ACTIVE,
            0,
            null,
            null,
            Model.RevealIntersection.ALLOWED);
    List<String> cmd = launcher.command(s, q, d, dir.resolve("w/s2"), null, null, 12345);
    int main = cmd.indexOf("io.psiflink.jobs.PartyMain");
    assertTrue(main > 0, cmd.toString());
    PartyConfiguration parsed = PartyConfiguration.parse(cmd.subList(main + 1, cmd.size()));
    assertEquals(Role.B, parsed.role());
    assertEquals("/data/crm.csv", parsed.get(PartyOptions.TABLE));
    assertEquals(FA, parsed.get(PartyOptions.PEER_CERT_SHA256));
    assertEquals("alice", parsed.get(PartyOptions.PEER));
    assertEquals(41, parsed.get(PartyOptions.SIGMA));
    assertEquals("ecdh", parsed.get(PartyOptions.PROTOCOL));
    assertEquals(JoinMode.BOTH, parsed.get(PartyOptions.MODE));
    assertTrue(!parsed.has(PartyOptions.LABEL_BYTES), "mode both has no label size");
    assertEquals(PublicSize.ROUNDED, parsed.get(PartyOptions.PUBLIC_SIZE));
    // a pair timeout under a second is one second on the command line, as before
    assertEquals(Duration.ofSeconds(1), parsed.get(PartyOptions.PAIR_TIMEOUT));
    assertTrue(
        !parsed.has(PartyOptions.OUT)
            && !parsed.has(PartyOptions.FORMAT)
            && !parsed.has(PartyOptions.EXPECTED_COLUMNS)
            && !parsed.has(PartyOptions.MAX_BAD_ROWS));
    assertTrue(!parsed.get(PartyOptions.RESUME), "a first run does not resume");
    // a resumed session's job resumes, in the same work directory
    PartyConfiguration resumed =
        PartyConfiguration.parse(
            launcher.partyConfiguration(s, q, d, dir.resolve("w/s2"), null, null, true).toArgs());
    assertTrue(resumed.get(PartyOptions.RESUME));
    assertEquals(parsed.get(PartyOptions.WORK), resumed.get(PartyOptions.WORK));
    assertEquals(parsed.get(PartyOptions.SESSION), resumed.get(PartyOptions.SESSION));
  }

  @Test
  void aLabeledSessionLaunchesEachPartysJobWithModeLabeledAndTheSessionsLabelSize() {
    SessionRecord s =
        new SessionRecord(
            "s3",
            "q3",
            "alice",
            "bob",
            0,
            40,
            "rr22",
            JoinMode.LABELED,
            4096,
            Model.Prefiltering.NONE,
            "alice.example:7443",
            FA,
            "bob.example:7443",
            FB,
            0L);
    // each party's coordinator launches its own job from the same session
    for (Role role : List.of(Role.A, Role.B)) {
      String me = Role.A.equals(role) ? "alice" : "bob";
      CoordinatorConfig.Job job =
          new CoordinatorConfig.Job(
              JobMode.EMBEDDED,
              "768m",
              1,
              dir.resolve("w"),
              dir.resolve("job.pem"),
              dir.resolve("job.key"),
              dir.resolve("ca.pem"),
              null,
              null,
              null,
              null,
              1,
              Duration.ofSeconds(30),
              Duration.ofSeconds(45),
              null,
              List.of(dir.resolve("psi-flink-jobs.jar")));
      CoordinatorConfig config =
          new CoordinatorConfig(
              me,
              new CoordinatorConfig.Listen("127.0.0.1", 0),
              new CoordinatorConfig.Tls(
                  dir.resolve("a.pem"), dir.resolve("a.key"), dir.resolve("c")),
              null,
              dir.resolve("tokens"),
              new CoordinatorConfig.Peer(
                  Role.A.equals(role) ? "bob" : "alice", "https://peer", dir),
              new CoordinatorConfig.Bridge(me + ".example:7443", dir.resolve("bridge.pem")),
              null,
              null,
              null,
              null,
              job,
              null,
              null);
      JobLauncher launcher =
          new JobLauncher(
              config, null, CoordinatorServer.mapper(), Clock.systemUTC(), (x, r) -> {});
      QueryRecord q =
          new QueryRecord(
              "q3",
              Role.A.equals(role) ? Model.Direction.OUTGOING : Model.Direction.INCOMING,
              "alice",
              "bob",
              role,
              "t",
              "u",
              "SELECT b.x FROM a JOIN b ON a.k = b.k",
              "fp",
              0,
              40,
              "rr22",
              JoinMode.LABELED,
              4096,
              Model.Prefiltering.NONE,
              "alice.example:7443",
              FA,
              Model.QueryStatus.APPROVED,
              null,
              0,
              1,
              0L,
              null);
      Dataset d =
          new Dataset(
              "t",
              "/data/t.csv",
              OutputFormat.CSV,
              List.of(),
              List.of("k"),
              List.of("x"),
              List.of(),
              Model.DatasetStatus.ACTIVE,
              0,
              null,
              "rounded",
              Model.RevealIntersection.NEVER);
      List<String> cmd =
          launcher.command(
              s,
              q,
              d,
              dir.resolve("w/s3"),
              Role.A.equals(role) ? dir.resolve("out").toString() : null,
              Role.A.equals(role) ? OutputFormat.CSV : null,
              12345);
      int main = cmd.indexOf("io.psiflink.jobs.PartyMain");
      assertTrue(main > 0, cmd.toString());
      List<String> args = cmd.subList(main + 1, cmd.size());
      assertTrue(
          String.join(" ", args).contains("--mode labeled --label-bytes 4096"), args.toString());
      // read back by the job's own parser
      PartyConfiguration parsed = PartyConfiguration.parse(args);
      assertEquals(role, parsed.role());
      assertEquals(JoinMode.LABELED, parsed.get(PartyOptions.MODE));
      assertEquals(4096, parsed.get(PartyOptions.LABEL_BYTES));
      assertEquals("rr22", parsed.get(PartyOptions.PROTOCOL));
    }
  }

  @Test
  void aJdbcPasswordGoesToTheJobsEnvironmentNotItsCommandLine() {
    for (JobMode mode : JobMode.values()) {
      CoordinatorConfig.Job job =
          new CoordinatorConfig.Job(
              mode,
              null,
              1,
              dir.resolve("w"),
              dir.resolve("job.pem"),
              dir.resolve("job.key"),
              dir.resolve("ca.pem"),
              Path.of("/opt/flink"),
              Path.of("/opt/psi/psi-flink-job.jar"),
              null,
              null,
              1,
              Duration.ofSeconds(30),
              Duration.ofSeconds(45),
              null,
              List.of(Path.of("/opt/psi/job-lib/psi-flink-jobs.jar")));
      CoordinatorConfig config =
          new CoordinatorConfig(
              "alice",
              new CoordinatorConfig.Listen("127.0.0.1", 0),
              new CoordinatorConfig.Tls(
                  dir.resolve("a.pem"), dir.resolve("a.key"), dir.resolve("c")),
              null,
              dir.resolve("tokens"),
              new CoordinatorConfig.Peer("bob", "https://bob", dir),
              new CoordinatorConfig.Bridge("alice.example:7443", dir.resolve("bridge.pem")),
              null,
              null,
              null,
              null,
              job,
              null,
              null);
      JobLauncher launcher =
          new JobLauncher(
              config, null, CoordinatorServer.mapper(), Clock.systemUTC(), (s, r) -> {});
      SessionRecord s =
          new SessionRecord(
              "s1",
              "q1",
              "alice",
              "bob",
              16,
              40,
              "kkrt",
              io.psiflink.api.JoinMode.BOTH,
              null,
              Model.Prefiltering.NONE,
              "alice.example:7443",
              FA,
              "bob.example:7443",
              FB,
              0L);
      QueryRecord q =
          new QueryRecord(
              "q1",
              Model.Direction.OUTGOING,
              "alice",
              "bob",
              Role.B,
              "crm",
              "purchases",
              "SELECT a.x FROM a JOIN b ON a.k = b.k",
              "fp",
              16,
              40,
              "kkrt",
              io.psiflink.api.JoinMode.BOTH,
              null,
              Model.Prefiltering.NONE,
              "alice.example:7443",
              FA,
              Model.QueryStatus.APPROVED,
              null,
              0,
              1,
              0L,
              null);
      Dataset d =
          new Dataset(
              "crm",
              "jdbc:postgresql://db:5432/crm?user=psi&password=p%26ss&table=people",
              io.psiflink.api.OutputFormat.CSV,
              List.of(),
              List.of("k"),
              List.of("x"),
              List.of(),
              Model.DatasetStatus.ACTIVE,
              0,
              null,
              "rounded",
              Model.RevealIntersection.ALLOWED);
      List<String> cmd = launcher.command(s, q, d, dir.resolve("w/s1"), null, null, 0);
      assertTrue(
          cmd.stream().noneMatch(a -> a.contains("p%26ss") || a.contains("p&ss")), cmd.toString());
      assertEquals(
          "jdbc:postgresql://db:5432/crm?user=psi&table=people",
          cmd.get(cmd.indexOf("--table") + 1));
      assertEquals("p&ss", launcher.environment(d).get("PSI_JDBC_PASSWORD"));
    }
  }

  @Test
  void anEmbeddedJobRunsTheJobsClassPathNotTheCoordinators() {
    List<Path> jobJars =
        List.of(
            Path.of("/opt/psi/job-lib/psi-flink-jobs.jar"),
            Path.of("/opt/psi/job-lib/flink-runtime.jar"));
    for (List<Path> classpath : List.of(jobJars, List.<Path>of())) {
      CoordinatorConfig.Job job =
          new CoordinatorConfig.Job(
              JobMode.EMBEDDED,
              null,
              1,
              dir.resolve("w"),
              dir.resolve("job.pem"),
              dir.resolve("job.key"),
              dir.resolve("ca.pem"),
              null,
              null,
              null,
              null,
              1,
              Duration.ofSeconds(30),
              Duration.ofSeconds(45),
              null,
              classpath);
      CoordinatorConfig config =
          new CoordinatorConfig(
              "alice",
              new CoordinatorConfig.Listen("127.0.0.1", 0),
              new CoordinatorConfig.Tls(
                  dir.resolve("a.pem"), dir.resolve("a.key"), dir.resolve("c")),
              null,
              dir.resolve("tokens"),
              new CoordinatorConfig.Peer("bob", "https://bob", dir),
              new CoordinatorConfig.Bridge("alice.example:7443", dir.resolve("bridge.pem")),
              null,
              null,
              null,
              null,
              job,
              null,
              null);
      JobLauncher launcher =
          new JobLauncher(
              config, null, CoordinatorServer.mapper(), Clock.systemUTC(), (s, r) -> {});
      if (classpath.isEmpty() && System.getProperty(JvmOptions.JOB_CLASSPATH_PROPERTY) == null) {
        IllegalStateException e = assertThrows(IllegalStateException.class, launcher::jobClasspath);
        assertTrue(e.getMessage().contains("job.classpath"), e.getMessage());
      } else if (!classpath.isEmpty()) {
        assertEquals(
            "/opt/psi/job-lib/psi-flink-jobs.jar"
                + java.io.File.pathSeparator
                + "/opt/psi/job-lib/flink-runtime.jar",
            launcher.jobClasspath());
        assertNotEquals(System.getProperty("java.class.path"), launcher.jobClasspath());
      }
    }
  }

  @Test
  void theFailureCauseIsThePartysOwnExplanation() throws Exception {
    Path log = dir.resolve("job.log");
    Files.write(
        log,
        List.of(
            "08:00:00 INFO starting",
            "psi party B failed: bin 3 failed after 3 attempt(s): peer did not open stream",
            "\tat some.Trace(Trace.java:1)"));
    assertEquals(
        "bin 3 failed after 3 attempt(s): peer did not open stream", JobLauncher.errorOf(log, 1));
    Files.write(log, List.of("Killed"));
    assertTrue(JobLauncher.errorOf(log, 137).contains("exited with code 137"));
    assertTrue(JobLauncher.errorOf(dir.resolve("missing.log"), 1).contains("code 1"));
  }

  /**
   * The helper's pin comes from this coordinator's registry at launch: a helper removed since the
   * approval, or registered now with another pin, gets no job (the launch fails naming it).
   */
  @Test
  void theHelpersPinIsTheRegistrysAndAHelperNoLongerRegisteredGetsNoJob() {
    String pin = "c0".repeat(32);
    Model.Prefiltering carol =
        new Model.Prefiltering(io.psiflink.api.Prefilter.HELPER, "carol", pin, 0, 7);
    SessionRecord s =
        new SessionRecord(
            "s9",
            "q9",
            "alice",
            "bob",
            0,
            40,
            "rr22",
            io.psiflink.api.JoinMode.BOTH,
            null,
            carol,
            "alice.example:7443",
            FA,
            "bob.example:7443",
            FB,
            0L);
    java.util.function.Function<List<CoordinatorConfig.Helper>, JobLauncher> launcher =
        helpers ->
            new JobLauncher(
                new CoordinatorConfig(
                    "bob",
                    new CoordinatorConfig.Listen("127.0.0.1", 0),
                    new CoordinatorConfig.Tls(
                        dir.resolve("a.pem"), dir.resolve("a.key"), dir.resolve("c")),
                    null,
                    dir.resolve("tokens"),
                    new CoordinatorConfig.Peer("alice", "https://alice", dir),
                    new CoordinatorConfig.Bridge("bob.example:7443", dir.resolve("bridge.pem")),
                    null,
                    null,
                    null,
                    null,
                    new CoordinatorConfig.Job(
                        JobMode.EMBEDDED,
                        null,
                        1,
                        dir.resolve("w"),
                        dir.resolve("job.pem"),
                        dir.resolve("job.key"),
                        dir.resolve("ca.pem"),
                        null,
                        null,
                        null,
                        null,
                        1,
                        Duration.ofSeconds(30),
                        Duration.ofSeconds(45)),
                    null,
                    helpers),
                null,
                CoordinatorServer.mapper(),
                Clock.systemUTC(),
                (x, r) -> {});
    assertEquals(
        pin, launcher.apply(List.of(new CoordinatorConfig.Helper("carol", pin, "c"))).helperPin(s));
    IllegalArgumentException gone =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> launcher.apply(List.of()).helperPin(s));
    assertTrue(
        gone.getMessage().contains("helper carol is no longer registered"), gone.getMessage());
    IllegalArgumentException other =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () ->
                launcher
                    .apply(List.of(new CoordinatorConfig.Helper("carol", "c1".repeat(32), "c")))
                    .helperPin(s));
    assertTrue(other.getMessage().contains("another certificate pin"), other.getMessage());
    // without a pre-filter there is no pin to look up
    assertEquals(
        null,
        launcher
            .apply(List.of())
            .helperPin(
                new SessionRecord(
                    "s8",
                    "q8",
                    "alice",
                    "bob",
                    0,
                    40,
                    "rr22",
                    io.psiflink.api.JoinMode.BOTH,
                    null,
                    Model.Prefiltering.NONE,
                    "alice.example:7443",
                    FA,
                    "bob.example:7443",
                    FB,
                    0L)));
  }

  /**
   * An n-party job: its role, every party's name and pin from the session (its own "-"), P1's
   * bridge, and the provider's pin from this coordinator's registry; a provider unregistered since
   * the approval, or registered with another pin, gets no job.
   */
  @Test
  void anNPartyJobGetsTheSessionsPinsAndTheRegistrysProviderPin() {
    String pin = "0e".repeat(32);
    List<Model.GroupMember> members =
        List.of(
            new Model.GroupMember("alice", "ta", FA),
            new Model.GroupMember("bob", "tb", FB),
            new Model.GroupMember("carol", "tc", "cc".repeat(32)));
    Model.GroupQueryRecord q =
        new Model.GroupQueryRecord(
            "q1",
            Model.Direction.INCOMING,
            "alice",
            1,
            "SELECT a.v, b.v, c.v FROM a JOIN b ON a.k = b.k JOIN c ON a.k = c.k",
            "f",
            3,
            40,
            "olivia",
            pin,
            members,
            "alice.example:7443",
            Model.QueryStatus.APPROVED,
            null,
            0,
            1,
            null,
            null);
    Model.GroupSessionRecord s =
        new Model.GroupSessionRecord("s1", "q1", "alice.example:7443", members, 0);
    Dataset d =
        new Dataset(
            "tb",
            "/data/tb.csv",
            io.psiflink.api.OutputFormat.CSV,
            List.of(),
            List.of("k"),
            List.of("v"),
            List.of(),
            Model.DatasetStatus.ACTIVE,
            0,
            null,
            null,
            Model.RevealIntersection.ALLOWED);
    java.util.function.Function<List<CoordinatorConfig.Provider>, JobLauncher> launcher =
        providers ->
            new JobLauncher(
                new CoordinatorConfig(
                    "bob",
                    new CoordinatorConfig.Listen("127.0.0.1", 0),
                    new CoordinatorConfig.Tls(
                        dir.resolve("a.pem"), dir.resolve("a.key"), dir.resolve("c")),
                    null,
                    dir.resolve("tokens"),
                    new CoordinatorConfig.Peer("alice", "https://alice", dir),
                    new CoordinatorConfig.Bridge("bob.example:7443", dir.resolve("bridge.pem")),
                    null,
                    null,
                    null,
                    null,
                    new CoordinatorConfig.Job(
                        JobMode.EMBEDDED,
                        null,
                        1,
                        dir.resolve("w"),
                        dir.resolve("job.pem"),
                        dir.resolve("job.key"),
                        dir.resolve("ca.pem"),
                        null,
                        null,
                        null,
                        null,
                        1,
                        Duration.ofSeconds(30),
                        Duration.ofSeconds(45)),
                    null,
                    null,
                    List.of(
                        new CoordinatorConfig.Peer(
                            "carol", "https://carol", dir.resolve("t"), null)),
                    providers),
                null,
                CoordinatorServer.mapper(),
                Clock.systemUTC(),
                (x, r) -> {});
    String args =
        String.join(
            " ",
            launcher
                .apply(List.of(new CoordinatorConfig.Provider("olivia", pin, "o")))
                .groupConfiguration(s, q, d, dir.resolve("w/s1"), null, null)
                .toArgs());
    for (String expected :
        List.of(
            "--party P2",
            "--parties alice,bob,carol",
            "--party-cert-sha256s " + FA + ",-," + "cc".repeat(32),
            "--provider olivia",
            "--provider-cert-sha256 " + pin,
            "--bridge alice.example:7443",
            "--session s1",
            "--bins 3")) {
      assertTrue(args.contains(expected), expected + " in " + args);
    }
    assertTrue(!args.contains("--out") && !args.contains("--peer "), args);
    IllegalArgumentException gone =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> launcher.apply(List.of()).providerPin(q));
    assertTrue(gone.getMessage().contains("provider olivia is no longer registered"));
    IllegalArgumentException other =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () ->
                launcher
                    .apply(List.of(new CoordinatorConfig.Provider("olivia", "0f".repeat(32), "")))
                    .providerPin(q));
    assertTrue(other.getMessage().contains("another certificate pin"), other.getMessage());
  }
}
