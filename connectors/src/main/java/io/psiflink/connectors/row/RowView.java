package io.psiflink.connectors.row;

import java.nio.charset.StandardCharsets;
import org.apache.flink.types.Row;

/** A {@link RecordView} of Flink {@code Row}s whose values are of their columns' Java classes. */
public final class RowView extends RecordView<Row> {
  private static final long serialVersionUID = 1L;

  private transient Row row;

  @Override
  public RowView set(Row record) {
    row = record;
    return this;
  }

  @Override
  public boolean isNull(int field) {
    return row.getField(field) == null;
  }

  @Override
  public boolean getBoolean(int field) {
    return (Boolean) row.getField(field);
  }

  @Override
  public long getLong(int field) {
    return ((Number) row.getField(field)).longValue();
  }

  @Override
  public float getFloat(int field) {
    return (Float) row.getField(field);
  }

  @Override
  public double getDouble(int field) {
    return ((Number) row.getField(field)).doubleValue();
  }

  @Override
  public boolean bytes(int field, boolean exact, Bytes to) {
    byte[] b;
    if (row.getField(field) instanceof String s) {
      if (exact && Utf8.unpairedSurrogate(s) >= 0) {
        return false;
      }
      b = s.getBytes(StandardCharsets.UTF_8);
    } else {
      b = (byte[]) row.getField(field);
    }
    to.set(b, 0, b.length);
    return true;
  }
}
