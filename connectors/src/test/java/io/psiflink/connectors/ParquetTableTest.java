package io.psiflink.connectors;

import static io.psiflink.connectors.Tables.assertSameRows;
import static io.psiflink.connectors.Tables.drain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Parquet tables: files written independently with parquet-avro are read by our source and
 * discovered from their footers; our sink's files are read back by parquet-avro's own reader
 * ({@link TableReader}) and by our source.
 */
class ParquetTableTest {
  @RegisterExtension static final FlinkCluster FLINK = new FlinkCluster();

  @TempDir Path dir;

  private static final Schema PEOPLE =
      SchemaBuilder.record("people")
          .fields()
          .requiredLong("id")
          .optionalString("name")
          .optionalInt("visits")
          .optionalDouble("score")
          .optionalFloat("ratio")
          .optionalBoolean("active")
          .optionalBytes("blob")
          .name("born")
          .type(LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT)))
          .noDefault()
          .endRecord();

  /** The rows written, as the values we expect to read (the oracle). */
  private static List<Object[]> people() {
    List<Object[]> rows = new ArrayList<>();
    rows.add(new Object[] {1L, "alice", 3, 1.5, 0.25f, true, new byte[] {1, 2}, 19000});
    rows.add(new Object[] {2L, null, null, null, null, null, null, -1});
    rows.add(
        new Object[] {
          3L,
          "zo\u00eb \u4e2d\u6587, \"q\"",
          Integer.MIN_VALUE,
          Double.MAX_VALUE,
          Float.MIN_VALUE,
          false,
          new byte[0],
          0
        });
    for (long i = 4; i < 300; i++) {
      rows.add(
          new Object[] {
            i, "n" + i, (int) i * 7, i / 3.0, i / 4f, i % 2 == 0, new byte[] {(byte) i}, (int) i
          });
    }
    return rows;
  }

  private static void writeParquetAvro(Path file, Schema schema, List<Object[]> rows)
      throws Exception {
    try (ParquetWriter<GenericRecord> w =
        AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
            .withSchema(schema)
            .withDataModel(GenericData.get())
            .build()) {
      for (Object[] r : rows) {
        GenericRecord rec = new GenericData.Record(schema);
        for (int i = 0; i < r.length; i++) {
          rec.put(i, r[i] instanceof byte[] b ? ByteBuffer.wrap(b) : r[i]);
        }
        w.write(rec);
      }
    }
  }

  private record Outcome(List<Row> rows, List<BadRow> bad, JobExecutionResult result) {}

  private Outcome read(String path, TableSchema schema) throws Exception {
    StreamExecutionEnvironment env = FLINK.batchEnv();
    SourceResult<Row> read = TableSource.read(env, "t", path, schema);
    CloseableIterator<Row> rows = read.rows().collectAsync();
    CloseableIterator<BadRow> bad = read.quarantined().collectAsync();
    JobExecutionResult result = env.execute("read parquet");
    List<BadRow> badRows = drain(bad);
    badRows.sort(Comparator.comparingLong(BadRow::line));
    return new Outcome(drain(rows), badRows, result);
  }

  @Test
  void discoversAndReadsFilesWrittenByParquetAvro() throws Exception {
    Path file = dir.resolve("people.parquet");
    writeParquetAvro(file, PEOPLE, people());

    TableSchema schema = SchemaDiscovery.discover(file.toString());
    assertEquals(
        new TableSchema(
            List.of(
                new Column("id", ColumnType.BIGINT, false),
                new Column("name", ColumnType.STRING, true),
                new Column("visits", ColumnType.INT, true),
                new Column("score", ColumnType.DOUBLE, true),
                new Column("ratio", ColumnType.FLOAT, true),
                new Column("active", ColumnType.BOOLEAN, true),
                new Column("blob", ColumnType.BYTES, true),
                new Column("born", ColumnType.INT, false))),
        schema);

    Outcome out = read(file.toString(), schema);
    assertSameRows(people().stream().map(Row::of).toList(), out.rows());
    assertEquals(List.of(), out.bad());
    assertEquals((long) people().size(), (Long) out.result().getAccumulatorResult("t.rowsRead"));
  }

  @Test
  void readsAProjectionInAnyOrderAndWidensIntegersAndFloats() throws Exception {
    Path parts = Files.createDirectories(dir.resolve("people"));
    List<Object[]> all = people();
    writeParquetAvro(parts.resolve("part-0.parquet"), PEOPLE, all.subList(0, 100));
    writeParquetAvro(parts.resolve("part-1.parquet"), PEOPLE, all.subList(100, all.size()));
    Files.writeString(parts.resolve("_SUCCESS"), "");

    TableSchema schema =
        new TableSchema(
            List.of(
                new Column("ratio", ColumnType.DOUBLE, true),
                new Column("visits", ColumnType.BIGINT, true),
                new Column("id", ColumnType.BIGINT, false)));
    Outcome out = read(parts.toString(), schema);
    List<Row> expected = new ArrayList<>();
    for (Object[] r : all) {
      expected.add(
          Row.of(
              r[4] == null ? null : (double) (Float) r[4],
              r[2] == null ? null : (long) (Integer) r[2],
              r[0]));
    }
    assertSameRows(expected, out.rows());
  }

  @Test
  void badStringsAndNullsInNotNullColumnsAreQuarantined() throws Exception {
    Schema s =
        SchemaBuilder.record("r").fields().optionalLong("id").optionalString("name").endRecord();
    Path file = dir.resolve("bad.parquet");
    try (ParquetWriter<GenericRecord> w =
        AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
            .withSchema(s)
            .withDataModel(GenericData.get())
            .build()) {
      Object[][] rows = {
        {1L, new Utf8("ok")},
        {2L, new Utf8(new byte[] {'a', (byte) 0xC3})}, // a lead byte without continuation
        {null, new Utf8("no id")},
        {4L, null}
      };
      for (Object[] r : rows) {
        GenericRecord rec = new GenericData.Record(s);
        rec.put(0, r[0]);
        rec.put(1, r[1]);
        w.write(rec);
      }
    }
    TableSchema schema =
        new TableSchema(
            List.of(
                new Column("id", ColumnType.BIGINT, false),
                new Column("name", ColumnType.STRING, true)));
    Outcome out = read(file.toString(), schema);
    assertSameRows(List.of(Row.of(1L, "ok"), Row.of(4L, null)), out.rows());
    assertEquals(2, out.bad().size());
    assertEquals(2, out.bad().get(0).line());
    assertEquals("column 'name': invalid UTF-8", out.bad().get(0).reason());
    assertEquals(3, out.bad().get(1).line());
    assertEquals("column 'id': NULL in a NOT NULL column", out.bad().get(1).reason());
    assertTrue(out.bad().get(1).raw().contains("no id"), out.bad().get(1).raw());
    assertEquals(file.toString(), out.bad().get(1).source());
  }

  @Test
  void sinkRoundTripKeepsNamesTypesAndNulls() throws Exception {
    TableSchema schema =
        new TableSchema(
            List.of(
                new Column("home city", ColumnType.STRING, true),
                new Column("1st", ColumnType.INT, true),
                new Column("n", ColumnType.BIGINT, true),
                new Column("f", ColumnType.FLOAT, true),
                new Column("d", ColumnType.DOUBLE, true),
                new Column("b", ColumnType.BOOLEAN, true),
                new Column("bytes", ColumnType.BYTES, true)));
    List<Row> rows = new ArrayList<>();
    rows.add(Row.of("Z\u00fcrich", 1, Long.MIN_VALUE, -0.5f, Double.NaN, true, new byte[] {0}));
    rows.add(Row.of(null, null, null, null, null, null, null));
    for (int i = 0; i < 500; i++) {
      rows.add(
          Row.of(
              "c" + i, i, (long) i << 33, i / 2f, i / 3.0, i % 3 == 0, new byte[] {(byte) i, 7}));
    }
    String out = dir.resolve("out.parquet").toString();
    StagedOutput staged = StagedOutput.prepare(out);
    StreamExecutionEnvironment env = FLINK.batchEnv();
    TableSink.write(
        env.fromData(rows, FlinkTypes.rowType(schema)),
        schema,
        staged.stagingDir(),
        TableFormat.PARQUET);
    env.execute("write parquet");
    staged.commit();
    assertTrue(TableSink.isComplete(out));

    // parquet-avro's reader, our type mapping of its schema
    TableContents back = TableReader.readAll(out, TableFormat.PARQUET);
    assertEquals(schema, back.schema());
    assertSameRows(rows, back.rows());
    // the footer, our source
    assertEquals(schema, SchemaDiscovery.discover(out));
    assertSameRows(rows, read(out, schema).rows());
  }

  @Test
  void nestedAndRepeatedColumnsAreRefusedNamingTheColumn() throws Exception {
    Schema s =
        SchemaBuilder.record("r")
            .fields()
            .requiredLong("id")
            .name("tags")
            .type()
            .array()
            .items()
            .stringType()
            .noDefault()
            .endRecord();
    Path file = dir.resolve("nested.parquet");
    try (ParquetWriter<GenericRecord> w =
        AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
            .withSchema(s)
            .withDataModel(GenericData.get())
            .build()) {
      GenericRecord rec = new GenericData.Record(s);
      rec.put(0, 1L);
      rec.put(1, List.of("x"));
      w.write(rec);
    }
    TableException e =
        assertThrows(TableException.class, () -> SchemaDiscovery.discover(file.toString()));
    assertTrue(e.getMessage().contains("column 'tags'"), e.getMessage());
  }
}
