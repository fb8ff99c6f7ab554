package io.psiflink.jobs.table;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
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

  @Test
  void writesAContainerFileWithoutClosingFlinksStream() throws Exception {
    TableSchema schema = new TableSchema(List.of(
        new Column("id", ColumnType.BIGINT, false),
        new Column("1st name", ColumnType.STRING, true),
        new Column("b", ColumnType.BYTES, true)));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BulkWriter<Row> w = AvroRowBulkWriter.factory(schema)
        .create(new CsvBulkWriterTest.MemoryOutputStream(bytes));
    w.addElement(Row.of(1L, "\u00e9", new byte[] {9}));
    w.addElement(Row.of(2L, null, null));
    w.finish();

    List<GenericRecord> records = new ArrayList<>();
    try (DataFileStream<GenericRecord> in = new DataFileStream<>(
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
}
