package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import io.psiflink.connectors.row.RecordView;
import java.util.Base64;

/**
 * A {@link RecordView} of the CSV source's packed records ({@link CsvFields}) once {@link
 * CsvFieldDecoder#check} passed them: numbers and booleans from the values it stored, strings as
 * slices of the record (valid UTF-8, so always exact). It reads the same values as the {@code Row}
 * that {@link CsvFieldDecoder#decode} makes of the record.
 */
public final class CsvRecordView extends RecordView<byte[]> {
  private static final long serialVersionUID = 1L;

  private final ColumnType[] types;
  private transient byte[] p;
  // p's field count, read once per record
  private transient int n;

  CsvRecordView(TableSchema schema) {
    types = schema.columns().stream().map(Column::type).toArray(ColumnType[]::new);
  }

  @Override
  public CsvRecordView set(byte[] record) {
    p = record;
    n = CsvFields.count(record);
    return this;
  }

  @Override
  public boolean isNull(int field) {
    return CsvFields.isNull(p, n, field);
  }

  @Override
  public boolean getBoolean(int field) {
    return CsvFields.value(p, n, field) != 0;
  }

  @Override
  public long getLong(int field) {
    return CsvFields.value(p, n, field);
  }

  @Override
  public float getFloat(int field) {
    return Float.intBitsToFloat((int) CsvFields.value(p, n, field));
  }

  @Override
  public double getDouble(int field) {
    return types[field] == ColumnType.FLOAT
        ? getFloat(field)
        : Double.longBitsToDouble(CsvFields.value(p, n, field));
  }

  @Override
  public boolean bytes(int field, boolean exact, Bytes to) {
    int from = CsvFields.start(p, n, field);
    int end = CsvFields.end(p, n, field);
    if (types[field] == ColumnType.BYTES) {
      byte[] b = Base64.getDecoder().decode(CsvValues.text(p, from, end));
      to.set(b, 0, b.length);
    } else {
      to.set(p, from, end - from);
    }
    return true;
  }
}
