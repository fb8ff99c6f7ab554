package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.TableSchema;
import org.apache.flink.types.Row;

/** Types the field texts of a CSV record by the table schema ({@link CsvValues} rules). */
final class CsvFieldDecoder implements FieldDecoder {
  private static final long serialVersionUID = 1L;

  private final TableSchema schema;

  CsvFieldDecoder(TableSchema schema) {
    this.schema = schema;
  }

  @Override
  public Row decode(Object payload) throws RejectedRecord {
    String[] fields = (String[]) payload;
    if (fields.length != schema.size()) {
      throw new RejectedRecord("expected " + schema.size() + " fields, found " + fields.length);
    }
    Row row = new Row(schema.size());
    for (int i = 0; i < fields.length; i++) {
      Column c = schema.column(i);
      Object value;
      try {
        value = CsvValues.parse(fields[i], c.type());
      } catch (IllegalArgumentException e) {
        throw new RejectedRecord(
            "column '"
                + c.name()
                + "': "
                + CsvValues.quoteForMessage(fields[i])
                + " is not a "
                + c.type().sqlName());
      }
      if (value == null && !c.nullable()) {
        throw new RejectedRecord("column '" + c.name() + "': NULL in a NOT NULL column");
      }
      row.setField(i, value);
    }
    return row;
  }
}
