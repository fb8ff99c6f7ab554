package io.psiflink.it.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs {@code deploy/local-cluster/run-e2e.sh} at a small size (psi.e2e.rows, 20 000 rows per side
 * by default): Flink 2.3 from PyPI, two standalone clusters, HDFS in a process, {@code flink run}
 * of the job jar for both parties. Passes when the script succeeds and its report shows party A's
 * output equal, as a multiset, to the plaintext join — whose size this test computes again.
 *
 * <p>Needs network access the first time on a machine (the PyPI download is cached under /tmp).
 * Logs stay in it-tests/target/cluster-e2e/.
 */
class ClusterE2eIT {
  private static final long TIMEOUT_MINUTES = 15;

  @Test
  void privateJoinBetweenTwoFlinkClustersMatchesThePlaintextJoin() throws Exception {
    long rows = Long.parseLong(System.getProperty("psi.e2e.rows", "20000"));
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
    Path work = own.resolve("cluster-e2e");
    deleteTree(work);
    Files.createDirectories(work);
    Path report = work.resolve("report.json");
    Path log = own.resolve("cluster-e2e.log");

    Process p =
        new ProcessBuilder(
                "bash",
                root.resolve("deploy/local-cluster/run-e2e.sh").toString(),
                "--rows",
                Long.toString(rows),
                "--jar",
                jar.toString(),
                "--hadoop-lib",
                hadoopLib.toString(),
                "--classpath",
                classpath,
                "--work",
                work.toString(),
                "--report",
                report.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
      p.destroy(); // SIGTERM: the script's trap stops the clusters, HDFS and the relay
      p.waitFor(60, TimeUnit.SECONDS);
      fail("run-e2e.sh did not finish within " + TIMEOUT_MINUTES + " min\n" + tail(log));
    }
    if (p.exitValue() != 0) {
      fail("run-e2e.sh failed (exit " + p.exitValue() + ")\n" + tail(log));
    }

    String json = Files.readString(report);
    long expected =
        JoinOracle.expected(E2eTool.spec(rows)).values().stream()
            .mapToLong(Integer::longValue)
            .sum();
    assertTrue(expected > rows / 10, "the query should join a good share of the rows: " + expected);
    assertEquals("true", field(json, "match"), json);
    assertEquals("true", field(json, "success_marker"), json);
    assertEquals(Long.toString(expected), field(json, "output_rows"), json);
    assertEquals("0", field(json, "missing_rows"), json);
    assertEquals("0", field(json, "unexpected_rows"), json);
    assertTrue(Files.readString(log).contains("cluster e2e: OK"), tail(log));
  }

  private static String field(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\":([^,}]+)").matcher(json);
    if (!m.find()) {
      fail("no " + name + " in " + json);
    }
    return m.group(1).trim();
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
