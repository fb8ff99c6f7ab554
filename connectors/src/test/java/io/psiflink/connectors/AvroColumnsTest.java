package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.util.List;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class AvroColumnsTest {

  @Test
  void sanitizesNames() {
    assertEquals("spend", AvroColumns.sanitize("spend"));
    assertEquals("e_mail", AvroColumns.sanitize("e-mail"));
    assertEquals("_1st", AvroColumns.sanitize("1st"));
    assertEquals("gr__e", AvroColumns.sanitize("gr\u00f6\u00dfe"));
    assertEquals("_", AvroColumns.sanitize("-"));
  }

  @Test
  void recordSchemaHasNullableFieldsUniqueNamesAndOriginalNames() {
    TableSchema t =
        new TableSchema(
            List.of(
                new Column("a b", ColumnType.STRING, true),
                new Column("a_b", ColumnType.BIGINT, false),
                new Column("a-b", ColumnType.BYTES, true),
                new Column("ok", ColumnType.DOUBLE, true)));
    Schema s = AvroColumns.recordSchema(t);
    assertEquals("io.psiflink.JoinedRow", s.getFullName());
    assertEquals(
        List.of("a_b", "a_b_2", "a_b_3", "ok"),
        s.getFields().stream().map(Schema.Field::name).toList());
    assertEquals(
        List.of("a b", "a_b", "a-b", "ok"),
        s.getFields().stream().map(f -> f.getProp(AvroColumns.COLUMN_PROPERTY)).toList());
    Schema.Field f = s.getField("a_b_2");
    assertEquals(Schema.Type.UNION, f.schema().getType());
    assertEquals(
        List.of(Schema.Type.NULL, Schema.Type.LONG),
        f.schema().getTypes().stream().map(Schema::getType).toList());
    assertEquals(org.apache.avro.JsonProperties.NULL_VALUE, f.defaultVal());
    // and the mapping back gives the original columns (all nullable)
    assertEquals(List.of("a b", "a_b", "a-b", "ok"), schemaOf(s).names());
  }

  @Test
  void convertsAvroDataToRowValues() {
    assertEquals(5L, AvroColumns.toRowValue(5, ColumnType.BIGINT));
    assertEquals(0.5, AvroColumns.toRowValue(0.5f, ColumnType.DOUBLE));
    assertEquals(
        "x", AvroColumns.toRowValue(new org.apache.avro.util.Utf8("x"), ColumnType.STRING));
    assertThrows(IllegalArgumentException.class, () -> AvroColumns.toRowValue(5L, ColumnType.INT));
  }

  private static TableSchema schemaOf(Schema s) {
    try {
      return SchemaDiscovery.fromAvro(s);
    } catch (TableException e) {
      throw new AssertionError(e);
    }
  }
}
