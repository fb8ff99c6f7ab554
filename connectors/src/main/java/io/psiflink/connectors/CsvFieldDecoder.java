package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.TableSchema;
import org.apache.flink.types.Row;

/**
 * Types the fields of a packed CSV record ({@link CsvFields}) by the table schema ({@link
 * CsvValues} rules), numbers straight from their bytes.
 */
final class CsvFieldDecoder implements FieldDecoder {
  private static final long serialVersionUID = 2L;

  private final TableSchema schema;

  CsvFieldDecoder(TableSchema schema) {
    this.schema = schema;
  }

  @Override
  public Row decode(Object payload) throws RejectedRecord {
    byte[] p = (byte[]) payload;
    int n = CsvFields.count(p);
    if (n != schema.size()) {
      throw new RejectedRecord("expected " + schema.size() + " fields, found " + n);
    }
    Row row = new Row(n);
    for (int i = 0; i < n; i++) {
      Column c = schema.column(i);
      Object value = null;
      if (!CsvFields.isNull(p, i)) {
        try {
          value = CsvValues.parse(p, CsvFields.start(p, i), CsvFields.end(p, i), c.type());
        } catch (IllegalArgumentException e) {
          throw new RejectedRecord(
              "column '"
                  + c.name()
                  + "': "
                  + CsvValues.quoteForMessage(CsvFields.text(p, i))
                  + " is not a "
                  + c.type().sqlName());
        }
      }
      if (value == null && !c.nullable()) {
        throw new RejectedRecord("column '" + c.name() + "': NULL in a NOT NULL column");
      }
      row.setField(i, value);
    }
    return row;
  }

  @Override
  public String raw(Object payload) {
    return CsvFields.raw((byte[]) payload);
  }
}
