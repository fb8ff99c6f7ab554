package io.psiflink.connectors;

import static io.psiflink.connectors.Tables.assertSameRows;
import static io.psiflink.connectors.Tables.drain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.JobMetricNames.Accumulators;
import io.psiflink.api.TableSchema;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Round trips through the Flink sources on a MiniCluster in BATCH mode. */
class TableSourceTest {
  @RegisterExtension static final FlinkCluster FLINK = new FlinkCluster();

  @TempDir Path dir;

  private static final TableSchema PEOPLE =
      new TableSchema(
          List.of(
              new Column("id", ColumnType.BIGINT, false),
              new Column("name", ColumnType.STRING, true),
              new Column("spend", ColumnType.BIGINT, true),
              new Column("score", ColumnType.DOUBLE, true),
              new Column("active", ColumnType.BOOLEAN, true)));

  /** What the job saw: rows, quarantined records, accumulators. */
  private record Outcome(List<Row> rows, List<BadRow> bad, JobExecutionResult result) {}

  private Outcome run(String name, String path, TableSchema schema, CsvOptions csv)
      throws Exception {
    StreamExecutionEnvironment env = FLINK.batchEnv();
    SourceResult<Row> read = TableSource.read(env, name, path, schema, csv);
    assertEquals(FlinkTypes.rowType(schema), read.rows().getType());
    CloseableIterator<Row> rows = read.rows().collectAsync();
    CloseableIterator<BadRow> bad = read.quarantined().collectAsync();
    JobExecutionResult result = env.execute("read " + name);
    List<BadRow> badRows = drain(bad);
    badRows.sort(Comparator.comparing(BadRow::source).thenComparingLong(BadRow::line));
    return new Outcome(drain(rows), badRows, result);
  }

  @Test
  void csvGoodAndBadRows() throws Exception {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes(
        String.join(
                "\n",
                "id,name,spend,score,active", // 1
                "1,alice,100,1.5,true", // 2
                "2,\"bob, jr.\",-20,,false", // 3
                "3,\"multi", // 4
                "line \"\"quoted\"\"\",0,2e3,TRUE", // 5
                "4,,7,0.25,", // 6
                "5,\"\",8,1,false", // 7
                "6,zo\u00eb \u4e2d\u6587,9,-1.0E-5,true", // 8
                "x7,bad id,1,1,true", // 9
                "8,short,1", // 10
                "9,bad\"quote,1,1,true", // 11
                "10,")
            .getBytes(StandardCharsets.UTF_8));
    b.write(0xC3); // a lead byte without its continuation
    b.writeBytes(
        String.join(
                "\n",
                ",1,1,true", // 12
                ",nullid,1,1,true", // 13
                "11,overflow,99999999999999999999,1,true", // 14
                "12,notbool,1,1,yes", // 15
                "13,huge,1,1e400,true\r", // 16 (CRLF)
                "14,\"ok\r\nwith crlf\",5,5,false\r", // 17-18
                "15,\"unterminated,1,1,true", // 19
                "16,swallowed,1,1,true", // 20
                "")
            .getBytes(StandardCharsets.UTF_8));
    Path file = dir.resolve("people.csv");
    Files.write(file, b.toByteArray());

    Outcome out = run("a", file.toString(), PEOPLE, CsvOptions.DEFAULT);

    assertSameRows(
        List.of(
            Row.of(1L, "alice", 100L, 1.5, true),
            Row.of(2L, "bob, jr.", -20L, null, false),
            Row.of(3L, "multi\nline \"quoted\"", 0L, 2000.0, true),
            Row.of(4L, null, 7L, 0.25, null),
            Row.of(5L, "", 8L, 1.0, false),
            Row.of(6L, "zo\u00eb \u4e2d\u6587", 9L, -1.0E-5, true),
            Row.of(14L, "ok\r\nwith crlf", 5L, 5.0, false)),
        out.rows());
    for (Row r : out.rows()) {
      assertEquals(5, r.getArity());
      assertEquals(org.apache.flink.types.RowKind.INSERT, r.getKind());
    }

    String src = file.toString();
    assertEquals(
        List.of(
            new BadRow(src, 9, "column 'id': 'x7' is not a BIGINT", "x7,bad id,1,1,true"),
            new BadRow(src, 10, "expected 5 fields, found 3", "8,short,1"),
            new BadRow(src, 11, "quote inside unquoted field 2", "9,bad\"quote,1,1,true"),
            new BadRow(src, 12, "invalid UTF-8 in field 2", "10,\uFFFD,1,1,true"),
            new BadRow(src, 13, "column 'id': NULL in a NOT NULL column", ",nullid,1,1,true"),
            new BadRow(
                src,
                14,
                "column 'spend': '99999999999999999999' is not a BIGINT",
                "11,overflow,99999999999999999999,1,true"),
            new BadRow(src, 15, "column 'active': 'yes' is not a BOOLEAN", "12,notbool,1,1,yes"),
            new BadRow(src, 16, "column 'score': '1e400' is not a DOUBLE", "13,huge,1,1e400,true"),
            new BadRow(
                src,
                19,
                "unterminated quoted field 2",
                "15,\"unterminated,1,1,true\n16,swallowed,1,1,true\n")),
        out.bad());

    assertEquals(7L, (Long) out.result().getAccumulatorResult("a.rowsRead"));
    assertEquals(9L, (Long) out.result().getAccumulatorResult("a.rowsQuarantined"));
    // the names the job's summary reads (PrivateJoinJob) are the ones the source writes: every
    // accumulator of table a is one of JobMetricNames', and each of those holds its count
    assertEquals(
        java.util.Set.of(
            Accumulators.rowsRead("a"),
            Accumulators.rowsQuarantined("a"),
            Accumulators.rowsWithNullKeyQuarantined("a")),
        out.result().getAllAccumulatorResults().keySet().stream()
            .filter(k -> k.startsWith("a."))
            .collect(java.util.stream.Collectors.toSet()));
    assertEquals(7L, (Long) out.result().getAccumulatorResult(Accumulators.rowsRead("a")));
    assertEquals(9L, (Long) out.result().getAccumulatorResult(Accumulators.rowsQuarantined("a")));
  }

  @Test
  void csvWithOtherDelimiterAndExplicitTypes() throws Exception {
    TableSchema schema =
        new TableSchema(
            List.of(
                new Column("k", ColumnType.INT, false),
                new Column("f", ColumnType.FLOAT, true),
                new Column("b", ColumnType.BYTES, true),
                new Column("s", ColumnType.STRING, true)));
    Path file = dir.resolve("typed.CSV");
    Files.writeString(
        file,
        "\uFEFFk;f;b;s\r\n1;0.5;AQID;x\r\n2;;;\r\n3;1.5;\"\";\"\"\r\n"
            + "4;1;!!;y\r\n2147483648;1;;\r\n",
        StandardCharsets.UTF_8);

    Outcome out = run("typed", file.toString(), schema, CsvOptions.of(';', '"'));

    assertSameRows(
        List.of(
            Row.of(1, 0.5f, new byte[] {1, 2, 3}, "x"),
            Row.of(2, null, null, null),
            Row.of(3, 1.5f, new byte[0], "")),
        out.rows());
    assertEquals(List.of(5L, 6L), out.bad().stream().map(BadRow::line).toList());
    assertEquals("column 'b': '!!' is not a BYTES", out.bad().get(0).reason());
    assertEquals("column 'k': '2147483648' is not a INT", out.bad().get(1).reason());
    assertEquals(3L, (Long) out.result().getAccumulatorResult("typed.rowsRead"));
    assertEquals(2L, (Long) out.result().getAccumulatorResult("typed.rowsQuarantined"));
  }

  @Test
  void csvHeaderMustMatchTheSchema() throws Exception {
    Path file = dir.resolve("other.csv");
    Files.writeString(file, "id,name\n1,x\n");
    TableException e =
        assertThrows(
            TableException.class,
            () -> TableSource.read(FLINK.batchEnv(), "a", file.toString(), PEOPLE));
    assertTrue(
        e.getMessage().contains("[id, name]")
            && e.getMessage().contains("[id, name, spend, score, active]"),
        e.getMessage());
  }

  @Test
  void avroGoodAndBadRecords() throws Exception {
    Schema avro =
        SchemaBuilder.record("T")
            .namespace("test")
            .fields()
            .requiredLong("id")
            .optionalString("name")
            .name("kind")
            .type()
            .enumeration("Kind")
            .symbols("A", "B")
            .noDefault()
            .requiredBytes("payload")
            .requiredInt("small")
            .requiredFloat("ratio")
            .name("code")
            .type()
            .unionOf()
            .nullType()
            .and()
            .stringType()
            .and()
            .longType()
            .endUnion()
            .noDefault()
            .name("hash")
            .type()
            .fixed("H")
            .size(2)
            .noDefault()
            .endRecord();
    File file = dir.resolve("t.avro").toFile();
    try (DataFileWriter<GenericRecord> w =
        new DataFileWriter<GenericRecord>(new GenericDatumWriter<>(avro))) {
      w.setSyncInterval(64); // several blocks
      w.create(avro, file);
      w.append(record(avro, 1L, "a", "A", new byte[] {1, 2}, 5, 0.5f, "c1"));
      w.append(record(avro, 2L, null, "B", new byte[0], 6, 1.5f, null));
      w.append(record(avro, 3L, "\u00e9", "A", new byte[] {3}, 7, 2.0f, 42L));
      for (long id = 4; id <= 40; id++) {
        w.append(record(avro, id, "n" + id, "B", new byte[] {(byte) id}, (int) id, 0.25f, "c"));
      }
    }
    // a subset of the columns, reordered, with widening int -> BIGINT and float -> DOUBLE
    TableSchema schema =
        new TableSchema(
            List.of(
                new Column("name", ColumnType.STRING, false),
                new Column("id", ColumnType.BIGINT, false),
                new Column("kind", ColumnType.STRING, true),
                new Column("payload", ColumnType.BYTES, true),
                new Column("small", ColumnType.BIGINT, true),
                new Column("ratio", ColumnType.DOUBLE, true),
                new Column("code", ColumnType.STRING, true),
                new Column("hash", ColumnType.BYTES, true)));

    Outcome out = run("b", file.getPath(), schema, CsvOptions.DEFAULT);

    List<Row> expected = new java.util.ArrayList<>();
    expected.add(Row.of("a", 1L, "A", new byte[] {1, 2}, 5L, 0.5, "c1", new byte[] {1, 1}));
    for (long id = 4; id <= 40; id++) {
      expected.add(
          Row.of(
              "n" + id,
              id,
              "B",
              new byte[] {(byte) id},
              id,
              0.25,
              "c",
              new byte[] {(byte) id, (byte) id}));
    }
    assertSameRows(expected, out.rows());
    assertEquals(2, out.bad().size());
    BadRow nullName = out.bad().get(0);
    assertEquals(file.getPath(), nullName.source());
    assertEquals(2L, nullName.line());
    assertEquals("column 'name': NULL in a NOT NULL column", nullName.reason());
    assertTrue(nullName.raw().contains("\"id\": 2"), nullName.raw());
    BadRow wrongType = out.bad().get(1);
    assertEquals(3L, wrongType.line());
    assertEquals("column 'code': an Avro Long is not a STRING", wrongType.reason());
    assertEquals(38L, (Long) out.result().getAccumulatorResult("b.rowsRead"));
    assertEquals(2L, (Long) out.result().getAccumulatorResult("b.rowsQuarantined"));
  }

  @Test
  void avroColumnMustExist() throws Exception {
    Schema avro = SchemaBuilder.record("T").fields().requiredLong("id").endRecord();
    File file = dir.resolve("id.avro").toFile();
    try (DataFileWriter<GenericRecord> w =
        new DataFileWriter<GenericRecord>(new GenericDatumWriter<>(avro))) {
      w.create(avro, file);
    }
    TableException e =
        assertThrows(
            TableException.class,
            () ->
                TableSource.read(
                    FLINK.batchEnv(),
                    "a",
                    file.getPath(),
                    new TableSchema(List.of(new Column("spend", ColumnType.BIGINT, true)))));
    assertTrue(e.getMessage().contains("no column 'spend'"), e.getMessage());
  }

  @Test
  void csvDirectoryPartsAreReadInParallel() throws Exception {
    Path table = Files.createDirectories(dir.resolve("people"));
    StringBuilder part0 = new StringBuilder("id,name,spend,score,active\n");
    List<Row> expected = new java.util.ArrayList<>();
    for (long id = 1; id <= 300; id++) {
      part0.append(id).append(",p").append(id).append(',').append(id * 10).append(",0.5,true\n");
      expected.add(Row.of(id, "p" + id, id * 10, 0.5, true));
    }
    Files.writeString(table.resolve("part-00000.csv"), part0);
    Files.writeString(
        table.resolve("part-00001.csv"),
        String.join(
            "\n",
            "id,name,spend,score,active", // 1
            "1001,q,1,,false", // 2
            "x1002,bad id,1,1,true", // 3
            "1003,\"two\nlines\",3,3,", // 4-5
            "1004,short", // 6
            ""));
    expected.add(Row.of(1001L, "q", 1L, null, false));
    expected.add(Row.of(1003L, "two\nlines", 3L, 3.0, null));
    Files.writeString(table.resolve("part-00002.csv"), "id,name,spend,score,active\n");
    // not part files: skipped although their contents would fail the job
    Files.writeString(table.resolve("_SUCCESS"), "");
    Files.writeString(table.resolve(".part-00001.csv.crc"), "garbage");

    Outcome out = run("dir", table.toString(), PEOPLE, CsvOptions.DEFAULT);

    assertSameRows(expected, out.rows());
    String part1 = table.resolve("part-00001.csv").toString();
    assertEquals(
        List.of(
            new BadRow(part1, 3, "column 'id': 'x1002' is not a BIGINT", "x1002,bad id,1,1,true"),
            new BadRow(part1, 6, "expected 5 fields, found 2", "1004,short")),
        out.bad());
    assertEquals(302L, (Long) out.result().getAccumulatorResult("dir.rowsRead"));
    assertEquals(2L, (Long) out.result().getAccumulatorResult("dir.rowsQuarantined"));
  }

  @Test
  void avroDirectoryPartsAreReadInParallel() throws Exception {
    Schema avro =
        SchemaBuilder.record("P").fields().requiredLong("id").optionalString("name").endRecord();
    Path table = Files.createDirectories(dir.resolve("avro"));
    List<Row> expected = new java.util.ArrayList<>();
    for (int part = 0; part < 2; part++) {
      try (DataFileWriter<GenericRecord> w =
          new DataFileWriter<GenericRecord>(new GenericDatumWriter<>(avro))) {
        w.create(avro, table.resolve("part-" + part + ".avro").toFile());
        for (long id = part * 1000 + 1; id <= part * 1000 + 50; id++) {
          // record 7 of part-1 has no name, which the schema below requires
          String name = part == 1 && id == 1007 ? null : "n" + id;
          GenericData.Record r = new GenericData.Record(avro);
          r.put("id", id);
          r.put("name", name);
          w.append(r);
          if (name != null) {
            expected.add(Row.of(name, id));
          }
        }
      }
    }
    Files.writeString(table.resolve("_SUCCESS"), "");
    TableSchema schema =
        new TableSchema(
            List.of(
                new Column("name", ColumnType.STRING, false),
                new Column("id", ColumnType.BIGINT, false)));

    Outcome out = run("avrodir", table.toString(), schema, CsvOptions.DEFAULT);

    assertSameRows(expected, out.rows());
    assertEquals(1, out.bad().size(), out.bad().toString());
    BadRow bad = out.bad().get(0);
    assertEquals(table.resolve("part-1.avro").toString(), bad.source());
    assertEquals(7L, bad.line());
    assertEquals("column 'name': NULL in a NOT NULL column", bad.reason());
    assertEquals(99L, (Long) out.result().getAccumulatorResult("avrodir.rowsRead"));
  }

  /**
   * A damaged part of an Avro or Parquet table fails the read naming the file, never drops its
   * records: an Avro file cut inside a block (which Avro's own reader takes for a shorter file), a
   * Parquet page with overwritten bytes (its CRC no longer matches).
   */
  @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
  @org.junit.jupiter.params.provider.EnumSource(
      value = TableFormat.class,
      names = {"AVRO", "PARQUET"})
  void aDamagedPartFailsTheReadNamingTheFile(TableFormat format) throws Exception {
    TableSchema schema =
        new TableSchema(
            List.of(
                new Column("id", ColumnType.BIGINT, false),
                new Column("name", ColumnType.STRING, true)));
    Path table = Files.createDirectories(dir.resolve("damaged"));
    for (int part = 0; part < 3; part++) {
      Path file = table.resolve("part-" + part + format.extension());
      try (org.apache.flink.core.fs.FSDataOutputStream out =
          org.apache.flink.core.fs.FileSystem.getLocalFileSystem()
              .create(
                  new org.apache.flink.core.fs.Path(file.toUri()),
                  org.apache.flink.core.fs.FileSystem.WriteMode.NO_OVERWRITE)) {
        var w =
            (format == TableFormat.AVRO
                    ? AvroRowBulkWriter.factory(schema)
                    : ParquetRowBulkWriter.factory(schema))
                .create(out);
        for (long id = 0; id < 500; id++) {
          w.addElement(Row.of(part * 1000 + id, "name " + id));
        }
        w.finish();
      }
    }
    Path damaged = table.resolve("part-1" + format.extension());
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(damaged.toFile(), "rw")) {
      if (format == TableFormat.AVRO) {
        f.setLength(f.length() * 2 / 3);
      } else {
        f.seek(100); // past the magic and the first page's header
        f.write(new byte[] {0x55, 0x55, 0x55, 0x55});
      }
    }
    Exception e =
        assertThrows(Exception.class, () -> run("t", table.toString(), schema, CsvOptions.DEFAULT));
    StringBuilder chain = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      chain.append(t.getMessage()).append('\n');
    }
    assertTrue(
        chain.toString().contains("'" + damaged + "'")
            && chain
                .toString()
                .contains(
                    format == TableFormat.AVRO
                        ? "is truncated or corrupt"
                        : "CRC checksum verification failed"),
        chain.toString());
  }

  @Test
  void everyPartIsCheckedAtSubmission() throws Exception {
    Path table = Files.createDirectories(dir.resolve("mismatch"));
    Files.writeString(table.resolve("part-0.csv"), "id,name,spend,score,active\n1,a,1,1,true\n");
    Files.writeString(table.resolve("part-1.csv"), "id,name,spend,score\n2,b,2,2\n");
    TableException e =
        assertThrows(
            TableException.class,
            () -> TableSource.read(FLINK.batchEnv(), "a", table.toString(), PEOPLE));
    assertTrue(
        e.getMessage().contains("'" + table.resolve("part-1.csv") + "'")
            && e.getMessage().contains("[id, name, spend, score]"),
        e.getMessage());

    Schema avro = SchemaBuilder.record("T").fields().requiredLong("id").endRecord();
    Schema other = SchemaBuilder.record("T").fields().requiredLong("key").endRecord();
    Path avroTable = Files.createDirectories(dir.resolve("avro-mismatch"));
    for (int part = 0; part < 2; part++) {
      Schema s = part == 0 ? avro : other;
      try (DataFileWriter<GenericRecord> w =
          new DataFileWriter<GenericRecord>(new GenericDatumWriter<>(s))) {
        w.create(s, avroTable.resolve("part-" + part + ".avro").toFile());
      }
    }
    TableException a =
        assertThrows(
            TableException.class,
            () ->
                TableSource.read(
                    FLINK.batchEnv(),
                    "b",
                    avroTable.toString(),
                    new TableSchema(List.of(new Column("id", ColumnType.BIGINT, false)))));
    assertTrue(
        a.getMessage().contains("'" + avroTable.resolve("part-1.avro") + "'")
            && a.getMessage().contains("no column 'id'"),
        a.getMessage());
  }

  private static GenericRecord record(
      Schema s,
      long id,
      String name,
      String kind,
      byte[] payload,
      int small,
      float ratio,
      Object code) {
    GenericData.Record r = new GenericData.Record(s);
    r.put("id", id);
    r.put("name", name);
    r.put("kind", new GenericData.EnumSymbol(s.getField("kind").schema(), kind));
    r.put("payload", ByteBuffer.wrap(payload));
    r.put("small", small);
    r.put("ratio", ratio);
    r.put("code", code);
    r.put(
        "hash",
        new GenericData.Fixed(s.getField("hash").schema(), new byte[] {(byte) id, (byte) id}));
    return r;
  }

  @Test
  void rowsWithANullOrNanKeyAreQuarantinedNamingTheColumn() throws Exception {
    Path file = dir.resolve("keys.csv");
    Files.writeString(
        file,
        "id,name,spend,score,active\n"
            + "1,a,10,1.0,true\n"
            + "2,,20,2.0,true\n" // NULL name: a key here
            + "3,c,,NaN,true\n" // NULL spend is no key; NaN score is
            + "4,d,40,4.0,\n",
        StandardCharsets.UTF_8);
    StreamExecutionEnvironment env = FLINK.batchEnv();
    SourceResult<Row> read =
        TableSource.read(
            env, "k", file.toString(), PEOPLE, CsvOptions.DEFAULT, List.of("name", "score"));
    CloseableIterator<Row> rows = read.rows().collectAsync();
    CloseableIterator<BadRow> bad = read.quarantined().collectAsync();
    JobExecutionResult result = env.execute("keys");
    assertSameRows(
        List.of(Row.of(1L, "a", 10L, 1.0, true), Row.of(4L, "d", 40L, 4.0, null)), drain(rows));
    List<BadRow> badRows = new java.util.ArrayList<>(drain(bad));
    badRows.sort(Comparator.comparingLong(BadRow::line));
    String src = file.toString();
    assertEquals(
        List.of(
            new BadRow(
                src,
                3,
                "column 'name': NULL in a join key column (it can never match)",
                "2,,20,2.0,true"),
            new BadRow(
                src,
                4,
                "column 'score': NaN in a join key column (it can never match)",
                "3,c,,NaN,true")),
        badRows);
    assertEquals(2L, (Long) result.getAccumulatorResult("k.rowsRead"));
    assertEquals(2L, (Long) result.getAccumulatorResult("k.rowsQuarantined"));
    assertEquals(
        2L, (Long) result.getAccumulatorResult(Accumulators.rowsWithNullKeyQuarantined("k")));
    TableException e =
        assertThrows(
            TableException.class,
            () ->
                TableSource.read(
                    FLINK.batchEnv(),
                    "k",
                    file.toString(),
                    PEOPLE,
                    CsvOptions.DEFAULT,
                    List.of("nope")));
    assertTrue(e.getMessage().contains("'nope'"), e.getMessage());
  }
}
