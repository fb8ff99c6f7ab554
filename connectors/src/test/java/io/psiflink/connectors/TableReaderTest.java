package io.psiflink.connectors;

import static io.psiflink.connectors.Tables.assertSameRows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The plain-Java reader used as the tests' oracle. */
class TableReaderTest {
  @TempDir Path dir;

  @Test
  void readsVisibleFilesOfADirectoryInNameOrder() throws IOException {
    Files.writeString(dir.resolve("part-b.csv"), "id,x\n3,2.5\n");
    Files.writeString(dir.resolve("part-a.csv"), "id,x\n1,1\n2,\n");
    Files.writeString(dir.resolve(".part-c.csv.inprogress.123"), "id,x\nbroken,\"\n");
    Files.writeString(dir.resolve("_SUCCESS"), "");
    Files.createDirectories(dir.resolve("sub"));
    Files.writeString(dir.resolve("sub/part-d.csv"), "other\n");

    TableContents t = TableReader.readAll(dir.toString(), TableFormat.CSV);
    // types are inferred over all rows of all files: 1 and 2.5 make DOUBLE
    assertEquals(
        new TableSchema(
            List.of(
                new Column("id", ColumnType.BIGINT, true),
                new Column("x", ColumnType.DOUBLE, true))),
        t.schema());
    assertEquals(List.of(Row.of(1L, 1.0), Row.of(2L, null), Row.of(3L, 2.5)), t.rows());

    assertEquals(
        List.of("part-a.csv", "part-b.csv"),
        TableReader.files(dir.toString()).stream().map(p -> p.getName()).toList());
    // a single file
    assertEquals(
        List.of(Row.of(3L, 2.5)),
        TableReader.readAll(dir.resolve("part-b.csv").toString(), TableFormat.CSV).rows());
  }

  @Test
  void isStrict() throws IOException {
    Path a = Files.createDirectories(dir.resolve("a"));
    Files.writeString(a.resolve("p1.csv"), "id\n1\n");
    Files.writeString(a.resolve("p2.csv"), "key\n2\n");
    IOException headers =
        assertThrows(IOException.class, () -> TableReader.readAll(a.toString(), TableFormat.CSV));
    assertTrue(headers.getMessage().contains("[key]"), headers.getMessage());

    Path b = Files.createDirectories(dir.resolve("b"));
    Files.writeString(b.resolve("p.csv"), "id,x\n1,2\n3,\"open\n");
    IOException malformed =
        assertThrows(IOException.class, () -> TableReader.readAll(b.toString(), TableFormat.CSV));
    assertTrue(malformed.getMessage().contains("line 3"), malformed.getMessage());

    TableSchema longs = new TableSchema(List.of(new Column("id", ColumnType.BIGINT, true)));
    Files.writeString(dir.resolve("c.csv"), "id\nx\n");
    assertThrows(
        IOException.class,
        () -> TableReader.readAll(dir.resolve("c.csv").toString(), TableFormat.CSV, longs));
    assertThrows(
        IOException.class,
        () -> TableReader.readAll(dir.resolve("missing").toString(), TableFormat.CSV));
  }

  @Test
  void readsForeignAvroFiles() throws IOException {
    Schema s =
        SchemaBuilder.record("R")
            .fields()
            .requiredInt("n")
            .name("e")
            .type()
            .enumeration("E")
            .symbols("X", "Y")
            .noDefault()
            .name("f")
            .type()
            .fixed("F")
            .size(1)
            .noDefault()
            .optionalBytes("b")
            .endRecord();
    File f = dir.resolve("r.avro").toFile();
    try (DataFileWriter<GenericRecord> w =
        new DataFileWriter<GenericRecord>(new GenericDatumWriter<>(s))) {
      w.create(s, f);
      GenericData.Record r = new GenericData.Record(s);
      r.put("n", 7);
      r.put("e", new GenericData.EnumSymbol(s.getField("e").schema(), "Y"));
      r.put("f", new GenericData.Fixed(s.getField("f").schema(), new byte[] {5}));
      r.put("b", ByteBuffer.wrap(new byte[] {1, 2}));
      w.append(r);
    }
    TableContents t = TableReader.readAll(f.getPath(), TableFormat.AVRO);
    assertEquals(List.of("n", "e", "f", "b"), t.schema().names());
    assertSameRows(List.of(Row.of(7, "Y", new byte[] {5}, new byte[] {1, 2})), t.rows());
    // as another schema: a subset, reordered, int widened to BIGINT
    TableSchema wanted =
        new TableSchema(
            List.of(
                new Column("e", ColumnType.STRING, true),
                new Column("n", ColumnType.BIGINT, true)));
    assertSameRows(
        List.of(Row.of("Y", 7L)),
        TableReader.readAll(f.getPath(), TableFormat.AVRO, wanted).rows());
  }
}
