package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import org.apache.flink.types.Row;

/**
 * Types the fields of a packed CSV record ({@link CsvFields}) by the table schema ({@link
 * CsvValues} rules), numbers straight from their bytes. {@link #check} is the one place that judges
 * a record; {@link #decode} makes a {@code Row} of a checked one, {@link CsvRecordView} reads one
 * without.
 */
final class CsvFieldDecoder implements FieldDecoder {
  private static final long serialVersionUID = 3L;

  private final TableSchema schema;

  CsvFieldDecoder(TableSchema schema) {
    this.schema = schema;
  }

  /**
   * Checks every field of the record against its column and stores the value of each fixed-size one
   * in the record ({@link CsvValues#parseBits}); a quoted empty field of a type without an empty
   * value becomes NULL there. Checking a record twice changes nothing.
   *
   * @throws RejectedRecord if the record is not a row of the table; its message is the reason
   */
  void check(byte[] p) throws RejectedRecord {
    int n = CsvFields.count(p);
    if (n != schema.size()) {
      throw new RejectedRecord("expected " + schema.size() + " fields, found " + n);
    }
    for (int i = 0; i < n; i++) {
      Column c = schema.column(i);
      if (!CsvFields.isNull(p, i)) {
        int from = CsvFields.start(p, i);
        int to = CsvFields.end(p, i);
        if (from == to) {
          if (CsvValues.parse("", c.type()) == null) {
            CsvFields.setNull(p, i);
          }
        } else if (c.type() != ColumnType.STRING) {
          try {
            CsvFields.setValue(p, i, CsvValues.parseBits(p, from, to, c.type()));
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
      }
      if (CsvFields.isNull(p, i) && !c.nullable()) {
        throw new RejectedRecord("column '" + c.name() + "': NULL in a NOT NULL column");
      }
    }
  }

  @Override
  public Row decode(Object payload) throws RejectedRecord {
    byte[] p = (byte[]) payload;
    check(p);
    Row row = new Row(schema.size());
    for (int i = 0; i < schema.size(); i++) {
      if (!CsvFields.isNull(p, i)) {
        ColumnType type = schema.column(i).type();
        row.setField(
            i,
            type == ColumnType.STRING || type == ColumnType.BYTES
                ? CsvValues.parse(p, CsvFields.start(p, i), CsvFields.end(p, i), type)
                : CsvValues.value(CsvFields.value(p, i), type));
      }
    }
    return row;
  }

  /** Reads checked records of this table without making a {@code Row}. */
  CsvRecordView view() {
    return new CsvRecordView(schema);
  }

  @Override
  public String raw(Object payload) {
    return CsvFields.raw((byte[]) payload);
  }
}
