package io.psiflink.jobs.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * End to end: both parties as separate JVMs, each with its own Flink MiniCluster, over the real
 * bridge with TLS on loopback; the joined rows must equal the plaintext join computed in the test.
 */
class LocalJoinTest {
  @TempDir
  Path dir;

  @ParameterizedTest(name = "{0} x {1} rows, overlap {2}, dup {3}, nulls {4}, b as {5}")
  @CsvSource({
      "2000, 3000, 0.5, 0.2, 0.05, csv",
      "1500, 1500, 0.0, 0.1, 0.0, csv",
      "1500, 1500, 1.0, 0.0, 0.0, csv",
      "20, 5000, 0.01, 0.3, 0.1, avro",
      // an empty CSV has no values to infer types from: Avro carries them
      "1000, 0, 0.5, 0.0, 0.0, avro"})
  void privateJoinEqualsPlaintextJoin(int rowsA, int rowsB, double overlap, double dup,
      double nulls, String bFormat) throws Exception {
    JoinFixture f = JoinFixture.generate(rowsA, rowsB, overlap, dup, nulls, rowsA * 31L + rowsB);
    joinAndCheck(f, bFormat, "4", "512m");
  }

  /** The largest case; minutes on a 2-core machine, so only with ./psi test --large. */
  @Test
  @EnabledIfSystemProperty(named = "psi.large", matches = "true")
  void millionRowsPerSide() throws Exception {
    joinAndCheck(JoinFixture.generate(1_000_000, 1_000_000, 0.5, 0.1, 0.01, 7), "csv", "8", "3g");
  }

  private void joinAndCheck(JoinFixture f, String bFormat, String bins, String heap)
      throws Exception {
    Map<String, String> opts = f.localJoinOptions(dir, bFormat, bins, heap);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    LocalJoin.Result r;
    try (PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      r = LocalJoin.run(opts, ps);
    } catch (Exception e) {
      System.err.println(log.toString(StandardCharsets.UTF_8));
      throw e;
    }
    List<String> expected = f.expected();
    List<String> actual = JoinFixture.readAvro(dir.resolve("out"), List.of("id", "spend", "email", "bid"));
    assertEquals(expected.size(), actual.size(), "joined row count");
    assertEquals(expected, actual);
    assertTrue(r.summaryA().contains("\"rows_out\":" + expected.size()), r.summaryA());
  }
}
