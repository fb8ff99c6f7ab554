package io.psiflink.connectors;

import static io.psiflink.connectors.Tables.assertSameRows;
import static io.psiflink.connectors.Tables.drain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import io.psiflink.connectors.row.RowCodec;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Writes tables with Flink's FileSink and reads them back with {@link TableReader}. */
class TableSinkTest {
  @RegisterExtension static final FlinkCluster FLINK = new FlinkCluster();

  private static final Pattern UUID =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  @TempDir Path dir;

  static final TableSchema WIDE =
      new TableSchema(
          List.of(
              new Column("id", ColumnType.BIGINT, false),
              new Column("e-mail", ColumnType.STRING, true),
              new Column("1st", ColumnType.INT, true),
              new Column("ratio", ColumnType.FLOAT, true),
              new Column("score", ColumnType.DOUBLE, true),
              new Column("ok", ColumnType.BOOLEAN, true),
              new Column("blob", ColumnType.BYTES, true)));

  static List<Row> wideRows() {
    String[] texts = {
      "plain",
      "",
      null,
      "a,b",
      "say \"hi\"",
      "multi\nline",
      "crlf\r\nend",
      " pad ",
      "\ttab",
      "\u00fcber \u4e2d\u6587 \ud83d\ude00",
      "'single'",
      "\uFEFFbom",
      "\\back\\slash"
    };
    double[] doubles = {0.1, -0.0, 1e300, 4.9e-324, Double.NaN, Double.NEGATIVE_INFINITY, 1.0 / 3};
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      byte[] blob =
          i % 5 == 0
              ? null
              : i % 5 == 1 ? new byte[0] : new byte[] {(byte) i, (byte) -i, 0, (byte) 0xFF};
      rows.add(
          Row.of(
              (long) i - 30,
              texts[i % texts.length],
              i % 7 == 0 ? null : Integer.MIN_VALUE + i,
              i % 4 == 0 ? null : i / 7f,
              i % 9 == 0 ? null : doubles[i % doubles.length] * (i + 1),
              i % 3 == 0 ? null : i % 2 == 0,
              blob));
    }
    return rows;
  }

  private static List<String> names(Path d) throws IOException {
    try (Stream<Path> s = Files.list(d)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void avroAndCsvRoundTrip() throws Exception {
    String avroDir = dir.resolve("out-avro").toString();
    String csvDir = dir.resolve("out-csv").toUri().toString(); // file:// form
    List<Row> rows = wideRows();

    StreamExecutionEnvironment env = FLINK.batchEnv();
    DataStream<Row> stream = env.fromData(rows, FlinkTypes.rowType(WIDE)).rebalance();
    TableSink.write(stream, WIDE, avroDir, TableFormat.AVRO);
    TableSink.write(stream, WIDE, csvDir, TableFormat.CSV);
    env.execute("write");

    // Avro: schema from the files (every field is written nullable), rows exact
    TableContents avro = TableReader.readAll(avroDir, TableFormat.AVRO);
    assertEquals(WIDE.names(), avro.schema().names());
    for (int i = 0; i < WIDE.size(); i++) {
      assertEquals(WIDE.column(i).type(), avro.schema().column(i).type());
      assertTrue(avro.schema().column(i).nullable());
    }
    assertSameRows(rows, avro.rows());
    // CSV: typed by the schema given, rows exact
    TableContents csv = TableReader.readAll(csvDir, TableFormat.CSV, WIDE);
    assertSameRows(rows, csv.rows());

    // visible part files named part-<uuid>-<n><ext>, nothing hidden left over; how many depends
    // on the sink parallelism, which the adaptive batch scheduler picks (1 for this little data)
    for (String d : List.of(avroDir, dir.resolve("out-csv").toString())) {
      String ext = d.endsWith("avro") ? ".avro" : ".csv";
      List<String> files = names(Path.of(d));
      assertTrue(!files.isEmpty() && files.size() <= FlinkCluster.SLOTS, files.toString());
      for (String f : files) {
        assertTrue(Pattern.matches("part-" + UUID + "-0" + Pattern.quote(ext), f), f);
      }
    }

    // the Avro field names were sanitized; the original names are kept as a property
    File part = new File(avroDir, names(Path.of(avroDir)).get(0));
    try (DataFileReader<GenericRecord> r = new DataFileReader<>(part, new GenericDatumReader<>())) {
      Schema s = r.getSchema();
      assertEquals("io.psiflink.JoinedRow", s.getFullName());
      assertEquals(
          List.of("id", "e_mail", "_1st", "ratio", "score", "ok", "blob"),
          s.getFields().stream().map(Schema.Field::name).toList());
      assertEquals("e-mail", s.getField("e_mail").getProp(AvroColumns.COLUMN_PROPERTY));
    }

    // and the Flink sources read the sink's part files back to the same rows
    StreamExecutionEnvironment env2 = FLINK.batchEnv();
    DataStream<Row> back = null;
    DataStream<BadRow> backBad = null;
    int n = 0;
    for (String d : List.of(avroDir, dir.resolve("out-csv").toString())) {
      for (String f : names(Path.of(d))) {
        SourceResult<Row> r = TableSource.read(env2, "part" + n++, d + "/" + f, WIDE);
        back = back == null ? r.rows() : back.union(r.rows());
        backBad = backBad == null ? r.quarantined() : backBad.union(r.quarantined());
      }
    }
    var it = back.collectAsync();
    var bad = backBad.collectAsync();
    env2.execute("read back");
    List<Row> twice = new ArrayList<>(rows);
    twice.addAll(rows);
    assertSameRows(twice, drain(it));
    assertEquals(List.of(), drain(bad));
  }

  @Test
  void encodedRowsRoundTripInBothFormats() throws Exception {
    List<Row> rows = wideRows();
    RowCodec codec = new RowCodec(WIDE.columns().stream().map(Column::type).toList());
    int[] all = java.util.stream.IntStream.range(0, WIDE.size()).toArray();
    List<byte[]> encoded = rows.stream().map(r -> codec.encode(r, all)).toList();
    StreamExecutionEnvironment env = FLINK.batchEnv();
    DataStream<byte[]> stream =
        env.fromData(encoded, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO).rebalance();
    String avroDir = dir.resolve("enc-avro").toString();
    String csvDir = dir.resolve("enc-csv").toString();
    TableSink.writeEncoded(stream, WIDE, avroDir, TableFormat.AVRO);
    TableSink.writeEncoded(stream, WIDE, csvDir, TableFormat.CSV);
    env.execute("write encoded");
    assertSameRows(rows, TableReader.readAll(avroDir, TableFormat.AVRO).rows());
    assertSameRows(rows, TableReader.readAll(csvDir, TableFormat.CSV, WIDE).rows());
  }

  @Test
  void quarantineRoundTrip() throws Exception {
    List<BadRow> bad =
        List.of(
            new BadRow("/in/a.csv", 3, "column 'x': 'abc' is not a BIGINT", "1,abc"),
            new BadRow("hdfs://nn:8020/t.csv", 7, "unterminated quoted field 2", "\"a\nb,\"c"),
            new BadRow("/in/b.avro", 1, "column 'n': NULL in a NOT NULL column", null));
    String out = dir.resolve("bad").toString();
    StreamExecutionEnvironment env = FLINK.batchEnv();
    QuarantineSink.write(env.fromData(bad, TypeInformation.of(BadRow.class)), out);
    env.execute("quarantine");
    TableContents read = TableReader.readAll(out, TableFormat.CSV, QuarantineSink.SCHEMA);
    assertSameRows(
        bad.stream().map(b -> Row.of(b.source(), b.line(), b.reason(), b.raw())).toList(),
        read.rows());
    // header as documented
    String first = names(Path.of(out)).get(0);
    assertTrue(Files.readString(Path.of(out, first)).startsWith("source,line,reason,raw\n"));
  }

  @Test
  void rollsPartFilesBySize() throws Exception {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      rows.add(Row.of((long) i, "row number " + i, null, null, (double) i, null, null));
    }
    String out = dir.resolve("rolled").toString();
    StreamExecutionEnvironment env = FLINK.batchEnv();
    TableSink.write(
        env.fromData(rows, FlinkTypes.rowType(WIDE)).rebalance(),
        WIDE,
        out,
        TableFormat.CSV,
        8 * 1024);
    env.execute("rolled");
    List<String> files = names(Path.of(out));
    assertTrue(files.size() > 1, files.toString());
    assertTrue(files.stream().anyMatch(f -> f.endsWith("-1.csv")), files.toString());
    for (String f : files) {
      assertTrue(Files.readString(Path.of(out, f)).startsWith("id,e-mail,1st,"), f);
    }
    assertSameRows(rows, TableReader.readAll(out, TableFormat.CSV, WIDE).rows());
  }

  @Test
  void failedJobLeavesNoVisiblePartFiles() throws Exception {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      rows.add(Row.of((long) i, "x", null, null, null, null, null));
    }
    String out = dir.resolve("failed").toString();
    StreamExecutionEnvironment env = FLINK.batchEnv();
    env.setParallelism(1); // source, map and sink writer chained: the writer sees rows first
    DataStream<Row> failing =
        env.fromData(rows, FlinkTypes.rowType(WIDE))
            .map(
                (MapFunction<Row, Row>)
                    r -> {
                      if ((Long) r.getField(0) == 1500L) {
                        throw new IllegalStateException("boom");
                      }
                      return r;
                    })
            .returns(FlinkTypes.rowType(WIDE));
    TableSink.write(failing, WIDE, out, TableFormat.AVRO, 4 * 1024);
    assertThrows(Exception.class, () -> env.execute("fails"));

    List<String> files = names(Path.of(out));
    assertEquals(List.of(), files.stream().filter(TableFiles::isVisible).toList());
    // what Flink leaves: hidden in-progress files only (rolled parts were never committed)
    assertTrue(!files.isEmpty(), "expected hidden in-progress files, found none");
    for (String f : files) {
      assertTrue(Pattern.matches("\\.part-" + UUID + "-\\d+\\.avro\\.inprogress\\." + UUID, f), f);
    }
    TableContents read = TableReader.readAll(out, TableFormat.AVRO);
    assertNull(read.schema());
    assertEquals(List.of(), read.rows());
  }

  @Test
  void failedJobLeavesNothingVisibleEvenIfAnotherWriterSubtaskFinished() throws Exception {
    String out = dir.resolve("partial").toString();
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      rows.add(Row.of((long) i, "x", null, null, null, null, null));
    }
    StreamExecutionEnvironment env = FLINK.batchEnv();
    // row 0 goes to sink subtask 0, the others to subtask 1, which fails after subtask 0 has
    // written (and, half a second later, surely finished) its part file
    DataStream<Row> routed =
        env.fromData(rows, FlinkTypes.rowType(WIDE))
            .partitionCustom((Long key, int n) -> key == 0 ? 0 : 1, r -> (Long) r.getField(0))
            .map(
                (MapFunction<Row, Row>)
                    r -> {
                      if ((Long) r.getField(0) == 1L) {
                        awaitFile(out);
                        Thread.sleep(500);
                        throw new IllegalStateException("boom after another subtask finished");
                      }
                      return r;
                    })
            .returns(FlinkTypes.rowType(WIDE))
            .setParallelism(2);
    TableSink.write(routed, WIDE, out, TableFormat.CSV).setParallelism(2);
    assertThrows(Exception.class, () -> env.execute("partial"));

    List<String> files = names(Path.of(out));
    assertTrue(!files.isEmpty(), "subtask 0 should have left its hidden file");
    assertEquals(List.of(), files.stream().filter(TableFiles::isVisible).toList());
    assertTrue(!TableSink.isComplete(out));
  }

  @Test
  void committersRunAsAStageAfterAllWriters() throws Exception {
    // what the two failure tests rely on: FileSink's committer is its own job vertex behind a
    // BLOCKING exchange, so in BATCH mode nothing is renamed before every writer has finished
    StreamExecutionEnvironment env = FLINK.batchEnv();
    TableSink.write(
            env.fromData(wideRows(), FlinkTypes.rowType(WIDE)).rebalance(),
            WIDE,
            dir.resolve("graph").toString(),
            TableFormat.CSV)
        .setParallelism(2);
    org.apache.flink.runtime.jobgraph.JobGraph graph = env.getStreamGraph().getJobGraph();
    org.apache.flink.runtime.jobgraph.JobVertex committer = null;
    for (org.apache.flink.runtime.jobgraph.JobVertex v : graph.getVertices()) {
      if (v.getName().endsWith("Committer")) {
        committer = v;
      }
    }
    assertTrue(committer != null, "no committer vertex");
    assertEquals(1, committer.getInputs().size());
    assertEquals(
        org.apache.flink.runtime.io.network.partition.ResultPartitionType.BLOCKING,
        committer.getInputs().get(0).getSource().getResultType());
    assertTrue(committer.getInputs().get(0).getSource().getProducer().getName().endsWith("Writer"));
  }

  private static void awaitFile(String dir) throws Exception {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (System.nanoTime() < deadline) {
      try (Stream<Path> s = Files.list(Path.of(dir))) {
        if (s.findAny().isPresent()) {
          return;
        }
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException("no part file was opened within 30 s");
  }

  @Test
  void emptyResultIsAnEmptyDirectory() throws Exception {
    String out = dir.resolve("empty").toString();
    StreamExecutionEnvironment env = FLINK.batchEnv();
    // (fromData of an empty collection fails in Flink 2.3, so filter everything out instead)
    DataStream<Row> none =
        env.fromData(wideRows(), FlinkTypes.rowType(WIDE))
            .filter(r -> false)
            .returns(FlinkTypes.rowType(WIDE));
    TableSink.write(none, WIDE, out, TableFormat.CSV);
    env.execute("empty");
    assertEquals(List.of(), names(Path.of(out)));
    assertTrue(!TableSink.isComplete(out));
    TableSink.markComplete(out);
    assertTrue(TableSink.isComplete(out));
    assertEquals(List.of(TableSink.SUCCESS_MARKER), names(Path.of(out)));
    assertEquals(List.of(), TableReader.readAll(out, TableFormat.CSV, WIDE).rows());
  }

  @Test
  void refusesADirectoryWithVisibleFiles() throws Exception {
    Path out = Files.createDirectories(dir.resolve("used"));
    Files.writeString(out.resolve(".hidden"), "x");
    Files.writeString(out.resolve("_logs"), "");
    StreamExecutionEnvironment env = FLINK.batchEnv();
    DataStream<Row> rows = env.fromData(wideRows(), FlinkTypes.rowType(WIDE));
    TableSink.write(rows, WIDE, out.toString(), TableFormat.CSV); // only hidden files: fine
    Files.writeString(out.resolve("part-old.csv"), "id\n");
    TableException e =
        assertThrows(
            TableException.class,
            () -> TableSink.write(rows, WIDE, out.toString(), TableFormat.CSV));
    assertTrue(
        e.getMessage().contains("not empty") && e.getMessage().contains("part-old.csv"),
        e.getMessage());
    Path done = Files.createDirectories(dir.resolve("done"));
    TableSink.markComplete(done.toString());
    TableException complete =
        assertThrows(
            TableException.class,
            () -> TableSink.write(rows, WIDE, done.toString(), TableFormat.CSV));
    assertTrue(complete.getMessage().contains("complete output"), complete.getMessage());
    Path file = Files.writeString(dir.resolve("plain-file"), "x");
    assertThrows(
        TableException.class, () -> TableSink.write(rows, WIDE, file.toString(), TableFormat.CSV));
    assertTrue(Arrays.asList(out.toFile().list()).contains("part-old.csv"));
  }
}
