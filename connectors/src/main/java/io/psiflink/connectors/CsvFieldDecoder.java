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
      if (!CsvFields.isNull(p, n, i)) {
        int from = CsvFields.start(p, n, i);
        int to = CsvFields.end(p, n, i);
        if (from == to) {
          if (CsvValues.parse("", c.type()) == null) {
            CsvFields.setNull(p, i);
          }
        } else if (c.type() != ColumnType.STRING) {
          try {
            CsvFields.setValue(p, n, i, CsvValues.parseBits(p, from, to, c.type()));
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
      if (!c.nullable() && CsvFields.isNull(p, n, i)) {
        throw new RejectedRecord("column '" + c.name() + "': NULL in a NOT NULL column");
      }
    }
  }

  @Override
  public Row decode(Object payload) throws RejectedRecord {
    byte[] p = (byte[]) payload;
    check(p);
    int n = schema.size(); // check found as many fields
    Row row = new Row(n);
    for (int i = 0; i < n; i++) {
      if (!CsvFields.isNull(p, n, i)) {
        ColumnType type = schema.column(i).type();
        row.setField(
            i,
            type == ColumnType.STRING || type == ColumnType.BYTES
                ? CsvValues.parse(p, CsvFields.start(p, n, i), CsvFields.end(p, n, i), type)
                : CsvValues.value(CsvFields.value(p, n, i), type));
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
