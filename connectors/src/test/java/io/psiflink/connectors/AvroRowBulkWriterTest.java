package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import io.psiflink.connectors.row.RowCodec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;

class AvroRowBulkWriterTest {
  private static final TableSchema ALL_TYPES =
      new TableSchema(
          List.of(
              new Column("bo", ColumnType.BOOLEAN, true),
              new Column("i", ColumnType.INT, true),
              new Column("l", ColumnType.BIGINT, true),
              new Column("f", ColumnType.FLOAT, true),
              new Column("d", ColumnType.DOUBLE, true),
              new Column("s", ColumnType.STRING, true),
              new Column("by", ColumnType.BYTES, true)));

  @Test
  void writesAContainerFileWithoutClosingFlinksStream() throws Exception {
    TableSchema schema =
        new TableSchema(
            List.of(
                new Column("id", ColumnType.BIGINT, false),
                new Column("1st name", ColumnType.STRING, true),
                new Column("b", ColumnType.BYTES, true)));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BulkWriter<Row> w =
        AvroRowBulkWriter.factory(schema).create(new CsvBulkWriterTest.MemoryOutputStream(bytes));
    w.addElement(Row.of(1L, "\u00e9", new byte[] {9}));
    w.addElement(Row.of(2L, null, null));
    w.finish();

    List<GenericRecord> records = new ArrayList<>();
    try (DataFileStream<GenericRecord> in =
        new DataFileStream<>(
            new ByteArrayInputStream(bytes.toByteArray()), new GenericDatumReader<>())) {
      assertEquals("io.psiflink.JoinedRow", in.getSchema().getFullName());
      assertEquals("_1st_name", in.getSchema().getFields().get(1).name());
      in.forEach(records::add);
    }
    assertEquals(2, records.size());
    assertEquals(1L, records.get(0).get("id"));
    assertEquals("\u00e9", records.get(0).get("_1st_name").toString());
    ByteBuffer b = (ByteBuffer) records.get(0).get("b");
    assertArrayEquals(new byte[] {9}, new byte[] {b.get(b.position())});
    assertNull(records.get(1).get("_1st_name"));
  }

  @Test
  void everyTypeRoundTripsThroughTheSourceAndAWrongClassIsRefused() throws Exception {
    TableSchema schema = ALL_TYPES;
    List<Row> rows =
        List.of(
            Row.of(true, -7, Long.MIN_VALUE, 1.5f, -0.0, "x\u00e9\uD83D\uDE00", new byte[] {0, -1}),
            Row.of(null, null, null, null, null, null, null),
            Row.of(false, Integer.MAX_VALUE, 0L, Float.NaN, Double.MAX_VALUE, "", new byte[0]));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BulkWriter<Row> w =
        AvroRowBulkWriter.factory(schema).create(new CsvBulkWriterTest.MemoryOutputStream(bytes));
    for (Row r : rows) {
      w.addElement(r);
    }
    w.finish();
    List<Row> back = new ArrayList<>();
    try (DataFileStream<GenericRecord> in =
        new DataFileStream<>(
            new ByteArrayInputStream(bytes.toByteArray()), new GenericDatumReader<>())) {
      for (GenericRecord rec : in) {
        Row r = new Row(schema.size());
        for (int i = 0; i < schema.size(); i++) {
          r.setField(i, AvroColumns.toRowValue(rec.get(i), schema.column(i).type()));
        }
        back.add(r);
      }
    }
    assertEquals(rows.size(), back.size());
    for (int i = 0; i < rows.size(); i++) {
      for (int c = 0; c < schema.size(); c++) {
        Object want = rows.get(i).getField(c);
        Object got = back.get(i).getField(c);
        if (want instanceof byte[] wb) {
          assertArrayEquals(wb, (byte[]) got);
        } else {
          assertEquals(want, got, "row " + i + " column " + c);
        }
      }
    }
    BulkWriter<Row> bad =
        AvroRowBulkWriter.factory(schema)
            .create(new CsvBulkWriterTest.MemoryOutputStream(new ByteArrayOutputStream()));
    IOException e =
        assertThrows(
            IOException.class,
            () -> bad.addElement(Row.of(true, 5L, 0L, 1f, 1.0, "s", new byte[0])));
    assertTrue(e.getMessage().contains("column 'i'"), e.getMessage());
  }

  @Test
  void encodedRowsAreWrittenExactlyAsTheirRows() throws Exception {
    TableSchema schema = ALL_TYPES;
    RowCodec codec = new RowCodec(schema.columns().stream().map(Column::type).toList());
    java.util.SplittableRandom r = new java.util.SplittableRandom(11);
    ByteArrayOutputStream viaRows = new ByteArrayOutputStream();
    ByteArrayOutputStream viaEncoded = new ByteArrayOutputStream();
    BulkWriter<Row> w =
        AvroRowBulkWriter.factory(schema).create(new CsvBulkWriterTest.MemoryOutputStream(viaRows));
    BulkWriter<byte[]> e =
        AvroRowBulkWriter.encodedFactory(schema)
            .create(new CsvBulkWriterTest.MemoryOutputStream(viaEncoded));
    int[] all = {0, 1, 2, 3, 4, 5, 6};
    for (int i = 0; i < 2000; i++) {
      Row row =
          Row.of(
              r.nextBoolean(),
              r.nextInt(),
              r.nextLong(),
              (float) r.nextDouble(),
              r.nextDouble() * 1e6,
              "s\u00e9" + "x".repeat(r.nextInt(200)),
              new byte[r.nextInt(150)]);
      for (int c = 0; c < 7; c++) {
        if (r.nextInt(5) == 0) {
          row.setField(c, null);
        }
      }
      w.addElement(row);
      e.addElement(codec.encode(row, all));
    }
    w.finish();
    e.finish();
    // the same records: the files differ only in their random sync markers
    assertEquals(readAll(viaRows.toByteArray()), readAll(viaEncoded.toByteArray()));
  }

  private static List<String> readAll(byte[] file) throws IOException {
    List<String> out = new ArrayList<>();
    try (DataFileStream<GenericRecord> in =
        new DataFileStream<>(new ByteArrayInputStream(file), new GenericDatumReader<>())) {
      in.forEach(rec -> out.add(rec.toString()));
    }
    return out;
  }
}
