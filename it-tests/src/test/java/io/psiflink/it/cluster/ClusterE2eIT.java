package io.psiflink.it.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Runs {@code deploy/local-cluster/run-e2e.sh}: Flink 2.3 from PyPI, two standalone clusters, HDFS
 * in a process, {@code flink run} of the job jar for both parties, each cluster with two
 * TaskManager processes and the jobs at parallelism 4. Passes when the script succeeds, its report
 * shows party A's output equal, as a multiset, to the plaintext join (whose size this test computes
 * again), and Flink's REST API and the TaskManagers' logs show that the bins ran on both
 * TaskManagers of each party.
 *
 * <p>The TaskManager drill (psi.large): a TaskManager of one party is killed with SIGKILL mid-PSI;
 * the join must still complete exactly, by resuming the failed run under its own session (the bins
 * party A's job had committed are skipped; docs/operations.md, "A TaskManager dies"), within a
 * bound. After every successful join nothing is left to resume: no resume state in the client work
 * directories, no journal beside the output.
 *
 * <p>Needs network access the first time on a machine (the PyPI download is cached under /tmp).
 * Logs stay in it-tests/target/cluster-e2e*.
 */
class ClusterE2eIT {
  private static final long TIMEOUT_MINUTES = 15;
  private static final int TASKMANAGERS = 2;
  private static final int PARALLELISM = 4;

  /**
   * From the SIGKILL to the end of the resumed run: the failed run ends within seconds (the killed
   * party's job fails at once, the peer's is cancelled), the TaskManager is back and the resumed
   * run takes well under a minute at 10^5 rows on two cores (docs/operations.md has the measured
   * times); the bound leaves room for a loaded machine.
   */
  private static final long DRILL_BOUND_SECONDS = 300;

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void privateJoinBetweenTwoFlinkClustersMatchesThePlaintextJoinWithBinsOnBothTaskManagers()
      throws Exception {
    long rows = Long.parseLong(System.getProperty("psi.e2e.rows", "20000"));
    Path work = run("cluster-e2e", rows);
    assertDistributed(work, Set.of());
    assertNothingLeftToResume(work);
  }

  @Test
  @EnabledIfSystemProperty(named = "psi.large", matches = "true")
  void aTaskManagerOfPartyAKilledMidPsiStillGivesTheExactJoinInBoundedTime() throws Exception {
    drill("a");
  }

  @Test
  @EnabledIfSystemProperty(named = "psi.large", matches = "true")
  void aTaskManagerOfPartyBKilledMidPsiStillGivesTheExactJoinInBoundedTime() throws Exception {
    drill("b");
  }

  private void drill(String party) throws Exception {
    // 32 bins, 8 per subtask, so the kill finds a TaskManager between two bins of its subtasks
    Path work =
        run(
            "cluster-e2e-kill-" + party,
            100_000,
            "--bins",
            "32",
            "--runs",
            "2",
            "--kill-taskmanager",
            party);
    JsonNode kill = JSON.readTree(work.resolve("kill.json").toFile());
    assertEquals(party, kill.path("party").asText(), kill.toString());
    String killed = kill.path("resource_id").asText();
    assertTrue(killed.startsWith("localhost:"), kill.toString());
    // the kill was mid-PSI: the killed TaskManager had finished a bin, not all of its subtasks'
    String log = Files.readString(Path.of(kill.path("log").asText()), StandardCharsets.UTF_8);
    Matcher done =
        Pattern.compile("bin \\d+ done \\((\\d+) of (\\d+) on this subtask").matcher(log);
    boolean midPsi = false;
    while (done.find()) {
      midPsi |= Integer.parseInt(done.group(1)) < Integer.parseInt(done.group(2));
    }
    assertTrue(midPsi, "the killed TaskManager had not finished a bin with more to go: " + kill);

    List<JsonNode> runs = new ArrayList<>();
    for (String line : Files.readAllLines(work.resolve("runs.json"))) {
      runs.add(JSON.readTree(line));
    }
    assertEquals(2, runs.size(), "one failed run, one resumed run: " + runs);
    JsonNode first = runs.get(0);
    JsonNode second = runs.get(1);
    assertTrue(
        !"0".equals(first.path("party_a").asText()) || !"0".equals(first.path("party_b").asText()),
        "the run with the kill cannot succeed: " + first);
    assertEquals("0", second.path("party_a").asText(), second.toString());
    assertEquals("0", second.path("party_b").asText(), second.toString());
    assertEquals("resume", second.path("recover").asText(), second.toString());
    assertEquals(
        first.path("session").asText(),
        second.path("session").asText(),
        "a resumed run keeps its session: " + runs);
    // The bins the failed run had committed were skipped: the number A's client read from the
    // journal, the one B's client got in the handshake and the lines of both parties' TaskManagers
    // agree. The output being exact (run) shows the skipped bins' rows came from the journal.
    long skipped = second.path("bins_skipped_a").asLong(-1);
    assertEquals(32, second.path("bins").asInt(), second.toString());
    assertTrue(skipped >= 1 && skipped < 32, "committed bins skipped by the resume: " + second);
    assertEquals(skipped, second.path("bins_skipped_b").asLong(-1), second.toString());
    assertEquals(skipped, second.path("tm_bins_skipped_a").asLong(-1), second.toString());
    assertEquals(skipped, second.path("tm_bins_skipped_b").asLong(-1), second.toString());
    // what A had committed when the TaskManager died survived it
    assertTrue(
        skipped >= kill.path("a_bins_done").asLong(),
        "bins done at the kill " + kill + ", skipped " + skipped);
    long fromKill =
        second.path("ended_after_run_s").asLong() - kill.path("seconds_after_run").asLong();
    assertTrue(
        fromKill > 0 && fromKill <= DRILL_BOUND_SECONDS,
        "from the kill to the resumed run's end "
            + fromKill
            + " s, bound "
            + DRILL_BOUND_SECONDS
            + " s");
    // the resumed run ran on live TaskManagers only, again on two of them
    assertDistributed(work, Set.of(killed));
    assertNothingLeftToResume(work);
  }

  /**
   * After the join: no resume state in either party's client work directory (A's job removed its
   * own, the script B's as a launcher does) and, from the report, no journal beside the output on
   * HDFS (the check lists the output's parent while HDFS still runs).
   */
  private static void assertNothingLeftToResume(Path work) throws IOException {
    for (String party : List.of("a", "b")) {
      Path dir = work.resolve("client-" + party);
      assertTrue(Files.isDirectory(dir), "the client work directory " + dir);
      try (var files = Files.walk(dir)) {
        List<Path> states = files.filter(f -> f.toString().endsWith(".state")).toList();
        assertEquals(List.of(), states, "resume state left in " + dir);
      }
    }
    JsonNode report = JSON.readTree(work.resolve("report.json").toFile());
    assertTrue(report.path("resume_journals").isArray(), report.toString());
    assertEquals(0, report.path("resume_journals").size(), report.toString());
  }

  /**
   * Runs the script with {@code rows} per side, 2 TaskManagers per cluster and parallelism 4 plus
   * {@code extra} arguments in it-tests/target/NAME; fails unless it succeeds with output equal to
   * the plaintext join. Returns the work directory.
   */
  private static Path run(String name, long rows, String... extra) throws Exception {
    Path root = Path.of(System.getProperty("psi.repo.root", "..")).toAbsolutePath().normalize();
    Path target = root.resolve("deploy/target");
    Path jar =
        Path.of(System.getProperty("psi.job.jar", target.resolve("psi-flink-job.jar").toString()));
    Path hadoopLib =
        Path.of(System.getProperty("psi.hadoop.lib", target.resolve("hadoop-lib").toString()));
    // the helpers (E2eTool) are this module's test classes
    Path own = root.resolve("it-tests/target");
    String classpath =
        own.resolve("test-classes")
            + ":"
            + Files.readString(own.resolve("test-classpath.txt")).trim();
    Path work = own.resolve(name);
    deleteTree(work);
    Files.createDirectories(work);
    Path report = work.resolve("report.json");
    Path log = own.resolve(name + ".log");

    List<String> cmd =
        new ArrayList<>(
            List.of(
                "bash",
                root.resolve("deploy/local-cluster/run-e2e.sh").toString(),
                "--rows",
                Long.toString(rows),
                "--taskmanagers",
                Integer.toString(TASKMANAGERS),
                "--parallelism",
                Integer.toString(PARALLELISM),
                "--jar",
                jar.toString(),
                "--hadoop-lib",
                hadoopLib.toString(),
                "--classpath",
                classpath,
                "--work",
                work.toString(),
                "--report",
                report.toString()));
    cmd.addAll(List.of(extra));
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
      p.destroy(); // SIGTERM: the script's trap stops the clusters, HDFS and the relay
      p.waitFor(60, TimeUnit.SECONDS);
      fail("run-e2e.sh did not finish within " + TIMEOUT_MINUTES + " min\n" + tail(log));
    }
    if (p.exitValue() != 0) {
      fail("run-e2e.sh failed (exit " + p.exitValue() + ")\n" + tail(log));
    }

    JsonNode json = JSON.readTree(report.toFile());
    long expected =
        JoinOracle.expected(E2eTool.spec(rows)).values().stream()
            .mapToLong(Integer::longValue)
            .sum();
    assertTrue(expected > rows / 10, "the query should join a good share of the rows: " + expected);
    assertTrue(json.path("match").asBoolean(), json.toString());
    assertTrue(json.path("success_marker").asBoolean(), json.toString());
    assertEquals(expected, json.path("output_rows").asLong(), json.toString());
    assertEquals(0, json.path("missing_rows").asLong(), json.toString());
    assertEquals(0, json.path("unexpected_rows").asLong(), json.toString());
    assertTrue(Files.readString(log).contains("cluster e2e: OK"), tail(log));
    return work;
  }

  /**
   * For each party, from WORK/distribution.json: the succeeded job's PSI operator ran with
   * parallelism 4, its subtasks on exactly the cluster's 2 live TaskManagers (Flink's REST API),
   * none on a {@code dead} one; and the log of each of those TaskManagers shows bins it finished:
   * over the bridge (so it dialled it) or, in a resumed run, out of the journal (a surviving
   * TaskManager whose subtasks had committed all their bins before the failure runs none again).
   */
  private static void assertDistributed(Path work, Set<String> dead) throws IOException {
    JsonNode d = JSON.readTree(work.resolve("distribution.json").toFile());
    for (String party : List.of("a", "b")) {
      JsonNode p = d.path(party);
      assertEquals("FINISHED", p.path("state").asText(), party + ": " + p);
      assertEquals(PARALLELISM, p.path("parallelism").asInt(), party + ": " + p);
      Set<String> ran = new TreeSet<>();
      for (JsonNode s : p.path("subtasks")) {
        assertEquals("FINISHED", s.path("status").asText(), party + ": " + s);
        ran.add(s.path("taskmanager").asText());
      }
      assertEquals(PARALLELISM, p.path("subtasks").size(), party + ": " + p);
      Set<String> live = new TreeSet<>();
      p.path("registered_taskmanagers").forEach(t -> live.add(t.asText()));
      assertEquals(TASKMANAGERS, ran.size(), party + ": PSI subtasks on " + ran);
      assertEquals(live, ran, party + ": every live TaskManager ran PSI subtasks");
      for (String tm : ran) {
        assertTrue(!dead.contains(tm), party + ": a subtask ran on the killed TaskManager " + tm);
        long binsDone = 0;
        for (JsonNode l : p.path("taskmanager_logs")) {
          if (tm.equals(l.path("resource_id").asText())) {
            binsDone += l.path("bins_done").asLong() + l.path("bins_resumed").asLong();
          }
        }
        assertTrue(binsDone > 0, party + ": TaskManager " + tm + " logged no finished bin: " + p);
      }
    }
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path x : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(x);
      }
    }
  }
}
