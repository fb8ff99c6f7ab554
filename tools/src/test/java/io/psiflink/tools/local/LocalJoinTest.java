package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
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
 * End to end: both parties, on threads of this JVM with their jobs on one MiniCluster (small
 * tables) or as separate JVMs each with its own ({@code --party-jvms}), over the real bridge with
 * TLS on loopback; the joined rows must equal the plaintext join computed in the test.
 */
class LocalJoinTest {
  @TempDir Path dir;

  @ParameterizedTest(
      name = "{0} x {1} rows, overlap {2}, dup {3}, nulls {4}, b as {5}, a JVM per party: {6}")
  @CsvSource({
    "2000, 3000, 0.5, 0.2, 0.05, csv, false",
    "2000, 3000, 0.5, 0.2, 0.05, csv, true",
    "1500, 1500, 0.0, 0.1, 0.0, csv, false",
    "1500, 1500, 1.0, 0.0, 0.0, csv, false",
    "20, 5000, 0.01, 0.3, 0.1, avro, true",
    // an empty CSV has no values to infer types from: Avro carries them
    "1000, 0, 0.5, 0.0, 0.0, avro, false"
  })
  void privateJoinEqualsPlaintextJoin(
      int rowsA,
      int rowsB,
      double overlap,
      double dup,
      double nulls,
      String bFormat,
      boolean partyJvms)
      throws Exception {
    JoinFixture f = JoinFixture.generate(rowsA, rowsB, overlap, dup, nulls, rowsA * 31L + rowsB);
    joinAndCheck(f, bFormat, "4", "512m", partyJvms);
  }

  /** The largest case; minutes on a 2-core machine, so only with ./psi test --large. */
  @Test
  @EnabledIfSystemProperty(named = "psi.large", matches = "true")
  void millionRowsPerSide() throws Exception {
    joinAndCheck(
        JoinFixture.generate(1_000_000, 1_000_000, 0.5, 0.1, 0.01, 7), "csv", "8", "3g", false);
  }

  /** Other CSV dialects reach both parties: ';' at A, tab at B, Parquet out by extension. */
  @Test
  void delimitersPerTableAndParquetOut() throws Exception {
    java.nio.file.Files.writeString(
        dir.resolve("a.csv"),
        "id;k;note\n1;10;\"x;y\"\n2;20;z\n3;30;w\n4;;nokey\n",
        StandardCharsets.UTF_8);
    java.nio.file.Files.writeString(
        dir.resolve("b.csv"),
        "k\tv\n10\tten\n30\tthirty\n30\tdreissig\n40\tforty\n",
        StandardCharsets.UTF_8);
    Map<String, String> opts =
        new java.util.HashMap<>(
            Map.of(
                "a",
                dir.resolve("a.csv").toString(),
                "b",
                dir.resolve("b.csv").toString(),
                "a-delimiter",
                ";",
                "b-delimiter",
                "tab",
                "sql",
                "SELECT a.id, a.note, b.v FROM a JOIN b ON a.k = b.k",
                "out",
                dir.resolve("joined.parquet").toString(),
                "bins",
                "2",
                "parallelism",
                "2",
                "party-heap",
                "512m",
                "work",
                dir.resolve("work").toString()));
    opts.put("max-bad-rows", "1"); // the one NULL key of a
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    LocalJoin.Result run;
    try (PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      run = LocalJoin.run(opts, ps);
    } catch (Exception e) {
      System.err.println(log.toString(StandardCharsets.UTF_8));
      throw e;
    }
    // the summaries' source counts, as the files above have them: the names the source writes
    // its accumulators under are the ones the summary reads (JobMetricNames)
    for (String field :
        List.of("\"rows_read\":3,", "\"rows_quarantined\":1,", "\"rows_with_null_key\":1,")) {
      assertTrue(run.summaryA().contains(field), field + " in " + run.summaryA());
    }
    for (String field :
        List.of("\"rows_read\":4,", "\"rows_quarantined\":0,", "\"rows_with_null_key\":0,")) {
      assertTrue(run.summaryB().contains(field), field + " in " + run.summaryB());
    }
    List<String> rows = new java.util.ArrayList<>();
    for (org.apache.flink.types.Row r :
        io.psiflink.connectors.TableReader.readAll(
                dir.resolve("joined.parquet").toString(),
                io.psiflink.connectors.TableFormat.PARQUET)
            .rows()) {
      rows.add(r.getField(0) + "|" + r.getField(1) + "|" + r.getField(2));
    }
    rows.sort(null);
    assertEquals(List.of("1|x;y|ten", "3|w|dreissig", "3|w|thirty"), rows);
  }

  /**
   * A party that fails on its own (more bad rows than --max-bad-rows allows): the run's error, the
   * one line a user reads, names the party and its reason, not only exit codes, and offers no
   * resume, which would refuse the same input again.
   */
  @Test
  void aPartysFailureIsNamedInTheRunsError() throws Exception {
    java.nio.file.Files.writeString(
        dir.resolve("a.csv"), "id,v\n1,x\n2,y,extra\n,nokey\n3,z\n", StandardCharsets.UTF_8);
    java.nio.file.Files.writeString(
        dir.resolve("b.csv"), "id,w\n1,one\n3,three\n", StandardCharsets.UTF_8);
    Map<String, String> opts =
        Map.of(
            "a", dir.resolve("a.csv").toString(),
            "b", dir.resolve("b.csv").toString(),
            "sql", "SELECT a.v, b.w FROM a JOIN b ON a.id = b.id",
            "out", dir.resolve("out").toString(),
            "max-bad-rows", "1",
            "party-heap", "512m",
            "work", dir.resolve("work").toString());
    LocalJoin.Hooks quickStop =
        new LocalJoin.Hooks() {
          @Override
          public java.time.Duration survivorGrace() {
            return java.time.Duration.ofSeconds(2); // B waits for bins that never come
          }
        };
    Exception e =
        org.junit.jupiter.api.Assertions.assertThrows(
            Exception.class,
            () -> LocalJoin.run(opts, new PrintStream(new ByteArrayOutputStream()), quickStop));
    String m = e.getMessage();
    assertTrue(m.startsWith("the join failed (party A exit 1, party B exit "), m);
    assertTrue(
        m.contains("; party A failed: too many bad rows: party A: table a: 2 of 4 records"), m);
    assertTrue(m.contains("more than --max-bad-rows 1 allows"), m);
    assertTrue(m.endsWith("; see the party logs above"), m); // no resume: it would fail alike
    assertTrue(!java.nio.file.Files.exists(dir.resolve("out")), "no output after a failed join");
  }

  private void joinAndCheck(
      JoinFixture f, String bFormat, String bins, String heap, boolean partyJvms) throws Exception {
    Map<String, String> opts = f.localJoinOptions(dir, bFormat, bins, heap);
    if (partyJvms) {
      opts.put("party-jvms", "true");
    }
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    List<Role> jvms = new java.util.concurrent.CopyOnWriteArrayList<>();
    LocalJoin.Hooks seeJvms =
        new LocalJoin.Hooks() {
          @Override
          public void started(Role party, Process process) {
            jvms.add(party);
          }
        };
    LocalJoin.Result r;
    try (PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      r = LocalJoin.run(opts, ps, seeJvms);
    } catch (Exception e) {
      System.err.println(log.toString(StandardCharsets.UTF_8));
      throw e;
    }
    String text = log.toString(StandardCharsets.UTF_8);
    assertEquals(partyJvms ? List.of(Role.A, Role.B) : List.of(), jvms, "the parties' JVMs");
    assertEquals(!partyJvms, text.contains("both parties run on threads of this JVM"), text);
    // either way each party's summary reaches the log, prefixed with its party
    assertTrue(text.contains("[A] party A: ") && text.contains("[B] party B: "), text);
    List<String> expected = f.expected();
    List<String> actual =
        JoinFixture.readAvro(dir.resolve("out"), List.of("id", "spend", "email", "bid"));
    assertEquals(expected.size(), actual.size(), "joined row count");
    assertEquals(expected, actual);
    assertTrue(r.summaryA().contains("\"rows_out\":" + expected.size()), r.summaryA());
    // each party's session secret file is gone once its job ended
    for (String party : List.of("A", "B")) {
      java.nio.file.Path secrets =
          java.nio.file.Path.of(opts.get("work"), "party-" + party, "secrets");
      assertTrue(java.nio.file.Files.isDirectory(secrets), "the job wrote its secrets there");
      try (var files = java.nio.file.Files.list(secrets)) {
        assertEquals(List.of(), files.toList(), "secret files left behind");
      }
    }
  }
}
