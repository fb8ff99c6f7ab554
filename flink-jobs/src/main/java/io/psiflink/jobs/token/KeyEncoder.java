package io.psiflink.jobs.token;

import io.psiflink.api.ColumnType;
import io.psiflink.connectors.row.RecordView;
import io.psiflink.connectors.row.RowView;
import java.util.Arrays;
import org.apache.flink.types.Row;

/**
 * The canonical, typed, length-prefixed encoding of a row's join-key values that tokens are
 * computed from. Per key column, in ON order: one tag byte for the key class, then
 *
 * <ul>
 *   <li>INTEGER (INT, BIGINT): the value as 8 bytes big-endian two's complement;
 *   <li>FLOATING (FLOAT, DOUBLE): the IEEE-754 bits of the value widened to double, -0.0 as 0.0;
 *   <li>STRING: 4-byte length, then the UTF-8 bytes of the string as it is: equal exactly when SQL
 *       compares the strings equal (no Unicode normalisation, trimming or case folding: 'Ab', 'ab '
 *       and 'ab', or a precomposed 'é' and 'e' with a combining accent, are different keys; a query
 *       that wants them equal says so in ON, e.g. {@code LOWER(TRIM(a.k)) = LOWER(TRIM(b.k))});
 *   <li>BOOLEAN: one byte 0 or 1; BYTES: 4-byte length, then the bytes.
 * </ul>
 *
 * The tag and the length prefixes make the encoding injective: ("ab","c") and ("a","bc") differ. A
 * NULL or NaN key value has no encoding: such a row never matches (SQL: NULL = x is not true) and
 * is counted instead. Neither has a string with an unpaired UTF-16 surrogate: UTF-8 cannot encode
 * it, and a lenient encoder would replace it with '?', so that two different keys shared one token
 * (the reader quarantines such rows; this is the second line). Not thread-safe: reuses one buffer.
 */
public final class KeyEncoder {
  private final int[] fields;
  private final ColumnType[] types;
  private byte[] buf = new byte[64];
  private int len;
  private final RecordView.Bytes bytes = new RecordView.Bytes();

  /**
   * @param fields positions of the key columns in the row, in ON order; types their types
   */
  public KeyEncoder(int[] fields, ColumnType[] types) {
    if (fields.length != types.length || fields.length == 0) {
      throw new IllegalArgumentException("need one type per key field and at least one key field");
    }
    this.fields = fields.clone();
    this.types = types.clone();
  }

  /**
   * Encodes the key of {@code row}; false (and nothing encoded) when a key value is NULL or NaN or
   * a string with an unpaired surrogate.
   */
  public boolean encode(Row row) {
    return encode(new RowView().set(row));
  }

  /** Encodes the key of the viewed record, exactly as {@link #encode(Row)} of the same values. */
  public boolean encode(RecordView<?> record) {
    len = 0;
    for (int i = 0; i < fields.length; i++) {
      int f = fields[i];
      if (record.isNull(f)) {
        return false;
      }
      ColumnType.KeyClass kc = types[i].keyClass();
      put((byte) (kc.ordinal() + 1));
      switch (kc) {
        case INTEGER -> putLong(record.getLong(f));
        case FLOATING -> {
          double d = record.getDouble(f);
          if (Double.isNaN(d)) {
            return false;
          }
          putLong(Double.doubleToLongBits(d == 0.0 ? 0.0 : d));
        }
        case STRING, BYTES -> {
          if (!record.bytes(f, true, bytes)) {
            return false;
          }
          putBytes(bytes.array(), bytes.offset(), bytes.length());
        }
        case BOOLEAN -> put((byte) (record.getBoolean(f) ? 1 : 0));
      }
    }
    return true;
  }

  public byte[] buffer() {
    return buf;
  }

  public int length() {
    return len;
  }

  private void ensure(int extra) {
    if (len + extra > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
    }
  }

  private void put(byte b) {
    ensure(1);
    buf[len++] = b;
  }

  private void putLong(long x) {
    ensure(8);
    for (int i = 7; i >= 0; i--) {
      buf[len++] = (byte) (x >>> (8 * i));
    }
  }

  private void putBytes(byte[] b, int off, int n) {
    ensure(4 + n);
    buf[len++] = (byte) (n >>> 24);
    buf[len++] = (byte) (n >>> 16);
    buf[len++] = (byte) (n >>> 8);
    buf[len++] = (byte) n;
    System.arraycopy(b, off, buf, len, n);
    len += n;
  }
}
