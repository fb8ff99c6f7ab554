package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SchemaDiscoveryTest {
  @TempDir Path dir;

  private String csv(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, text, StandardCharsets.UTF_8);
    return p.toString();
  }

  private static Column col(String name, ColumnType type) {
    return new Column(name, type, true);
  }

  @Test
  void infersCsvTypes() throws Exception {
    String path =
        csv(
            "t.csv",
            String.join(
                "\n",
                "id,amount,flag,mixed,empty,zip,big,neg,sci,words",
                "1,1.5,true,1,,01234,9223372036854775808,-7,-1.5E10,hello",
                "-5,-2e-3,FALSE,abc,,12345,1,-0.5,2e+3,\"a, b\"",
                "9223372036854775807,3,,,,,,-1,.5,",
                ""));
    TableSchema s = SchemaDiscovery.discover(path);
    assertEquals(
        new TableSchema(
            List.of(
                col("id", ColumnType.BIGINT),
                col("amount", ColumnType.DOUBLE),
                col("flag", ColumnType.BOOLEAN),
                col("mixed", ColumnType.STRING),
                col("empty", ColumnType.STRING),
                col("zip", ColumnType.STRING),
                col("big", ColumnType.STRING),
                col("neg", ColumnType.DOUBLE),
                col("sci", ColumnType.DOUBLE),
                col("words", ColumnType.STRING))),
        s);
  }

  @Test
  void headerNamesAreTrimmedAndBomIsDropped() throws Exception {
    String path = csv("h.CSV", "\uFEFF id ,\"spend \",country\r\n1,2,DE\r\n");
    assertEquals(List.of("id", "spend", "country"), SchemaDiscovery.discover(path).names());
    assertEquals(
        List.of("id", "spend", "country"), SchemaDiscovery.csvHeader(path, CsvOptions.DEFAULT));
  }

  @Test
  void onlyTheFirstTenThousandRowsDecide() throws Exception {
    StringBuilder sb = new StringBuilder("n\n");
    for (int i = 0; i < SchemaDiscovery.CSV_SAMPLE_ROWS; i++) {
      sb.append(i).append('\n');
    }
    sb.append("not a number\n");
    assertEquals(
        ColumnType.BIGINT, SchemaDiscovery.discover(csv("n.csv", sb.toString())).column(0).type());
  }

  @Test
  void malformedAndShortRecordsDoNotVote() throws Exception {
    String path = csv("m.csv", "a,b\n1,2\nx\n\"unterminated,3\n");
    TableSchema s = SchemaDiscovery.discover(path);
    assertEquals(ColumnType.BIGINT, s.column(0).type());
    assertEquals(ColumnType.BIGINT, s.column(1).type());
  }

  @Test
  void badHeadersAreClearErrors() throws Exception {
    TableException empty =
        assertThrows(TableException.class, () -> SchemaDiscovery.discover(csv("e.csv", "")));
    assertTrue(empty.getMessage().contains("is empty"), empty.getMessage());
    TableException blank =
        assertThrows(
            TableException.class, () -> SchemaDiscovery.discover(csv("b.csv", "a, ,c\n1,2,3\n")));
    assertTrue(
        blank.getMessage().contains("column 2") && blank.getMessage().contains("empty name"),
        blank.getMessage());
    TableException dup =
        assertThrows(
            TableException.class, () -> SchemaDiscovery.discover(csv("d.csv", "a,b,a \n")));
    assertTrue(dup.getMessage().contains("duplicate column name 'a'"), dup.getMessage());
    TableException unknown =
        assertThrows(TableException.class, () -> SchemaDiscovery.discover(csv("t.txt", "a\n")));
    assertTrue(unknown.getMessage().contains("t.txt"), unknown.getMessage());
  }

  @Test
  void aDirectoryTakesItsSchemaFromItsFirstPartsAndChecksTheOthers() throws Exception {
    Files.createDirectories(dir.resolve("t"));
    csv("t/part-0.csv", "id,name\n"); // an empty first part must not make every column STRING
    csv("t/part-1.csv", "id,name\n1,a\n2,b\n");
    csv("t/part-2.csv", "id,name\n3.5,c\n");
    csv("t/_SUCCESS", "");
    String table = dir.resolve("t").toString();
    // parts 1 and 2 together hold fewer than CSV_SAMPLE_ROWS records: both vote
    assertEquals(
        new TableSchema(List.of(col("id", ColumnType.DOUBLE), col("name", ColumnType.STRING))),
        SchemaDiscovery.discover(table));
    assertEquals(List.of("id", "name"), SchemaDiscovery.csvHeader(table, CsvOptions.DEFAULT));

    Files.createDirectories(dir.resolve("u"));
    csv("u/part-0.csv", "n\n");
    csv("u/part-1.csv", "n\n1\n2\n");
    assertEquals(
        ColumnType.BIGINT, SchemaDiscovery.discover(dir.resolve("u").toString()).column(0).type());

    csv("t/part-3.csv", "id,label\n4,d\n");
    for (TableException e :
        List.of(
            assertThrows(TableException.class, () -> SchemaDiscovery.discover(table)),
            assertThrows(
                TableException.class,
                () -> SchemaDiscovery.csvHeader(table, CsvOptions.DEFAULT)))) {
      assertTrue(
          e.getMessage().contains("'" + dir.resolve("t/part-3.csv") + "'")
              && e.getMessage().contains("'" + dir.resolve("t/part-0.csv") + "'")
              && e.getMessage().contains("[id, label]"),
          e.getMessage());
    }
  }

  @Test
  void theSampleLimitSpansParts() throws Exception {
    Files.createDirectories(dir.resolve("n"));
    csv("n/a.csv", "n\n1\n2\n");
    StringBuilder sb = new StringBuilder("n\n");
    for (int i = 2; i < SchemaDiscovery.CSV_SAMPLE_ROWS; i++) {
      sb.append(i).append('\n');
    }
    sb.append("not a number\n"); // record CSV_SAMPLE_ROWS + 1 of the table
    csv("n/b.csv", sb.toString());
    csv("n/c.csv", "n\nalso not\n");
    assertEquals(
        ColumnType.BIGINT, SchemaDiscovery.discover(dir.resolve("n").toString()).column(0).type());
  }

  @Test
  void avroPartsMustGiveTheSameSchema() throws Exception {
    Files.createDirectories(dir.resolve("a"));
    Schema first =
        SchemaBuilder.record("T").fields().requiredLong("id").optionalString("s").endRecord();
    // another record name and namespace, same columns: fine
    Schema same =
        SchemaBuilder.record("U")
            .namespace("x")
            .fields()
            .requiredLong("id")
            .optionalString("s")
            .endRecord();
    writeAvro("a/part-0.avro", first);
    writeAvro("a/part-1.avro", same);
    String table = dir.resolve("a").toString();
    TableSchema expected =
        new TableSchema(
            List.of(new Column("id", ColumnType.BIGINT, false), col("s", ColumnType.STRING)));
    assertEquals(expected, SchemaDiscovery.discover(table));
    assertEquals(first, SchemaDiscovery.avroWriterSchema(table));

    writeAvro(
        "a/part-2.avro",
        SchemaBuilder.record("T").fields().optionalLong("id").optionalString("s").endRecord());
    for (TableException e :
        List.of(
            assertThrows(TableException.class, () -> SchemaDiscovery.discover(table)),
            assertThrows(TableException.class, () -> SchemaDiscovery.avroWriterSchema(table)))) {
      assertTrue(
          e.getMessage().contains("'" + dir.resolve("a/part-2.avro") + "'")
              && e.getMessage().contains("'" + dir.resolve("a/part-0.avro") + "'"),
          e.getMessage());
    }
  }

  @Test
  void avroTypesAndNullableUnions() throws Exception {
    Schema uuid =
        org.apache.avro.LogicalTypes.uuid().addToSchema(Schema.create(Schema.Type.STRING));
    Schema date = org.apache.avro.LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
    Schema ts =
        org.apache.avro.LogicalTypes.timestampMillis().addToSchema(Schema.create(Schema.Type.LONG));
    Schema schema =
        SchemaBuilder.record("T")
            .fields()
            .requiredLong("id")
            .optionalString("name")
            .name("kind")
            .type()
            .enumeration("Kind")
            .symbols("A", "B")
            .noDefault()
            .name("hash")
            .type()
            .fixed("H")
            .size(4)
            .noDefault()
            .requiredBytes("payload")
            .requiredBoolean("flag")
            .optionalInt("small")
            .requiredFloat("ratio")
            .name("score")
            .type()
            .unionOf()
            .doubleType()
            .and()
            .nullType()
            .endUnion()
            .noDefault()
            .name("uid")
            .type(uuid)
            .noDefault()
            .name("day")
            .type(date)
            .noDefault()
            .name("at")
            .type(ts)
            .noDefault()
            .endRecord();
    schema.getField("payload").addProp(AvroColumns.COLUMN_PROPERTY, "pay load");
    TableSchema t = SchemaDiscovery.discover(writeAvro("t.avro", schema));
    assertEquals(
        new TableSchema(
            List.of(
                new Column("id", ColumnType.BIGINT, false),
                new Column("name", ColumnType.STRING, true),
                new Column("kind", ColumnType.STRING, false),
                new Column("hash", ColumnType.BYTES, false),
                new Column("pay load", ColumnType.BYTES, false),
                new Column("flag", ColumnType.BOOLEAN, false),
                new Column("small", ColumnType.INT, true),
                new Column("ratio", ColumnType.FLOAT, false),
                new Column("score", ColumnType.DOUBLE, true),
                new Column("uid", ColumnType.STRING, false),
                new Column("day", ColumnType.INT, false),
                new Column("at", ColumnType.BIGINT, false))),
        t);
  }

  @Test
  void unsupportedAvroTypesNameTheColumn() throws Exception {
    Schema decimal =
        org.apache.avro.LogicalTypes.decimal(10, 2).addToSchema(Schema.create(Schema.Type.BYTES));
    List<Schema> bad =
        List.of(
            SchemaBuilder.record("A")
                .fields()
                .name("tags")
                .type()
                .array()
                .items()
                .stringType()
                .noDefault()
                .endRecord(),
            SchemaBuilder.record("B")
                .fields()
                .name("attrs")
                .type()
                .map()
                .values()
                .longType()
                .noDefault()
                .endRecord(),
            SchemaBuilder.record("C")
                .fields()
                .name("inner")
                .type()
                .record("I")
                .fields()
                .requiredInt("x")
                .endRecord()
                .noDefault()
                .endRecord(),
            SchemaBuilder.record("D")
                .fields()
                .name("either")
                .type()
                .unionOf()
                .intType()
                .and()
                .stringType()
                .endUnion()
                .noDefault()
                .endRecord(),
            SchemaBuilder.record("E").fields().name("price").type(decimal).noDefault().endRecord());
    List<String> columns = List.of("tags", "attrs", "inner", "either", "price");
    for (int i = 0; i < bad.size(); i++) {
      String path = writeAvro("bad" + i + ".avro", bad.get(i));
      TableException e = assertThrows(TableException.class, () -> SchemaDiscovery.discover(path));
      assertTrue(e.getMessage().contains("column '" + columns.get(i) + "'"), e.getMessage());
      assertTrue(e.getMessage().contains("not supported"), e.getMessage());
    }
  }

  private String writeAvro(String name, Schema schema) throws IOException {
    File f = dir.resolve(name).toFile();
    try (DataFileWriter<GenericRecord> w =
        new DataFileWriter<GenericRecord>(new GenericDatumWriter<>(schema))) {
      w.create(schema, f); // the header is all discovery needs
    }
    return f.getPath();
  }

  @Test
  void avroRecordOfOurOwnWriterKeepsNames() throws Exception {
    TableSchema t = new TableSchema(List.of(new Column("e-mail", ColumnType.STRING, true)));
    Schema s = AvroColumns.recordSchema(t);
    assertEquals("e_mail", s.getFields().get(0).name());
    assertEquals(t, SchemaDiscovery.discover(writeAvro("own.avro", s)));
  }
}
