package io.psiflink.connectors;

import static io.psiflink.connectors.Tables.assertSameRows;
import static io.psiflink.connectors.Tables.drain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The bad-row threshold, judged while the job runs, and the quarantine it leaves. */
class BadRowGateTest {
  @RegisterExtension static final FlinkCluster FLINK = new FlinkCluster();

  @TempDir Path dir;

  private static final TableSchema SCHEMA =
      new TableSchema(
          List.of(
              new Column("k", ColumnType.BIGINT, true), new Column("v", ColumnType.STRING, true)));

  /** Two part files (two parallel readers): 10 records, of which 3 are bad (2 for a NULL key). */
  private String table() throws Exception {
    Path t = Files.createDirectories(dir.resolve("t"));
    Files.writeString(
        t.resolve("part-0.csv"), "k,v\n1,a\n2,b\nx,bad\n4,d\n,nokey\n", StandardCharsets.UTF_8);
    Files.writeString(
        t.resolve("part-1.csv"), "k,v\n6,f\n7,g\n,nokey2\n9,i\n10,j\n", StandardCharsets.UTF_8);
    return t.toString();
  }

  private List<Long> run(String limit, String quarantine) throws Exception {
    StreamExecutionEnvironment env = FLINK.batchEnv();
    SourceResult<Row> r =
        TableSource.read(env, "t", table(), SCHEMA, CsvOptions.DEFAULT, List.of("k"));
    r.rows().sinkTo(new org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink<>());
    DataStream<Long> written =
        quarantine == null ? null : QuarantineSink.writeFiles(r.quarantined(), quarantine);
    CloseableIterator<Long> gate =
        BadRowGate.check(
                r.counts(),
                written,
                BadRowLimit.parse(limit),
                "party A: table t",
                quarantine,
                "; no output")
            .collectAsync();
    env.execute("gate");
    return drain(gate);
  }

  @Test
  void passesWithinTheLimitAndKeepsTheQuarantine() throws Exception {
    String q = dir.resolve("q").toString();
    assertEquals(List.of(0L), run("30%", q));
    List<Row> bad = TableReader.readAll(q, TableFormat.CSV, QuarantineSink.SCHEMA).rows();
    assertEquals(3, bad.size());
    assertSameRows(
        List.of(
            Row.of(table() + "/part-0.csv", 4L, "column 'k': 'x' is not a BIGINT", "x,bad"),
            Row.of(
                table() + "/part-0.csv",
                6L,
                "column 'k': NULL in a join key column (it can never match)",
                ",nokey"),
            Row.of(
                table() + "/part-1.csv",
                4L,
                "column 'k': NULL in a join key column (it can never match)",
                ",nokey2")),
        bad);
  }

  @Test
  void failsTheJobNamingCountsAndQuarantineWhichIsComplete() throws Exception {
    String q = dir.resolve("q").toString();
    Exception e = assertThrows(Exception.class, () -> run("2", q));
    String msg = BadRowGate.failure(e).orElseThrow(() -> new AssertionError(e));
    assertEquals(
        BadRowGate.MARKER
            + "party A: table t: 3 of 10 records (30.00%) were quarantined"
            + " (2 of them for a NULL key), more than --max-bad-rows 2 allows; each is in "
            + q
            + " with its reason; no output",
        msg);
    assertEquals(3, TableReader.readAll(q, TableFormat.CSV, QuarantineSink.SCHEMA).rows().size());

    Exception e2 = assertThrows(Exception.class, () -> run("29.9%", null));
    assertTrue(
        BadRowGate.failure(e2).orElseThrow().contains("the quarantine was not written"),
        e2.toString());
    assertTrue(BadRowGate.failure(new RuntimeException("other")).isEmpty());
  }
}
