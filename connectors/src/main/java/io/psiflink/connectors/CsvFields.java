package io.psiflink.connectors;

import io.psiflink.connectors.row.RowCodec;
import java.nio.charset.StandardCharsets;

/**
 * A CSV record packed into one byte array: the payload the CSV source hands to {@link RowParser},
 * so that reading makes no object per field and numbers are parsed from the bytes ({@link
 * CsvFieldDecoder}). Layout, integers big-endian, offsets relative to the bytes:
 *
 * <pre>
 * i32 n | n × i32 start | n × i32 end (bit 31 set: the field is NULL) | i32 rawFrom | i32 rawLen
 *       | n × i64 value | bytes
 * </pre>
 *
 * The values are empty when read; {@link CsvFieldDecoder#check} fills them with each fixed-size
 * field's value ({@link CsvValues#parseBits}), so that {@link CsvRecordView} reads numbers without
 * parsing them again.
 *
 * <p>Field i is bytes[start, end), valid UTF-8, unquoted. The raw text is bytes[rawFrom, rawFrom +
 * rawLen): the record as read, at most its first {@link CsvRecordReader#RAW_LIMIT} bytes (cut on a
 * character boundary), for error reports. A record without quotes is packed as its line, the fields
 * and the raw text slices of it ({@link #packLine}); one with quotes as its unquoted fields back to
 * back, then the raw text ({@link #pack}). Built only by {@link CsvRecordReader}; a payload is
 * never read from another party.
 */
final class CsvFields {
  private static final int NULL = 0x8000_0000;

  private CsvFields() {}

  /** The record whose fields are {@code data[starts[i], ends[i])}, followed by its raw text. */
  static byte[] pack(
      byte[] data, int dataLen, int[] starts, int[] ends, int n, byte[] raw, int rawLen) {
    byte[] p = header(starts, ends, n, dataLen, rawLen, dataLen + rawLen);
    int base = base(n);
    System.arraycopy(data, 0, p, base, dataLen);
    System.arraycopy(raw, 0, p, base + dataLen, rawLen);
    return p;
  }

  /**
   * The record that is the line {@code line[from, from + len)}: fields at {@code [starts[i],
   * ends[i])} relative to {@code from}, the raw text its first {@code rawLen} bytes.
   */
  static byte[] packLine(
      byte[] line, int from, int len, int[] starts, int[] ends, int n, int rawLen) {
    byte[] p = header(starts, ends, n, 0, rawLen, len);
    System.arraycopy(line, from, p, base(n), len);
    return p;
  }

  private static byte[] header(
      int[] starts, int[] ends, int n, int rawFrom, int rawLen, int bytes) {
    byte[] p = new byte[base(n) + bytes];
    putInt(p, 0, n);
    for (int i = 0; i < n; i++) {
      putInt(p, 4 * (1 + i), starts[i]);
      putInt(p, 4 * (1 + n + i), ends[i]);
    }
    putInt(p, 4 * (1 + 2 * n), rawFrom);
    putInt(p, 4 * (2 + 2 * n), rawLen);
    return p;
  }

  /** The end entry of a NULL field that ends at {@code end}. */
  static int nullAt(int end) {
    return end | NULL;
  }

  static int count(byte[] p) {
    return RowCodec.getInt(p, 0);
  }

  /**
   * Field i's value as {@link CsvFieldDecoder#check} stored it, of a record of {@code n} fields.
   */
  static long value(byte[] p, int n, int i) {
    return RowCodec.getLong(p, valueAt(n, i));
  }

  /** Stores field i's value big-endian, as {@link #value} reads it: two ints, not a VarHandle. */
  static void setValue(byte[] p, int n, int i, long value) {
    int at = valueAt(n, i);
    putInt(p, at, (int) (value >>> 32));
    putInt(p, at + 4, (int) value);
  }

  /** Marks field i NULL (a quoted empty field of a type that has no empty value). */
  static void setNull(byte[] p, int i) {
    int at = 4 * (1 + count(p) + i);
    putInt(p, at, RowCodec.getInt(p, at) | NULL);
  }

  /**
   * Whether field i of a record of {@code n} fields ({@link #count}) is NULL. Readers of several
   * fields read n once: these run for every field of every row, on C1 in small joins.
   */
  static boolean isNull(byte[] p, int n, int i) {
    return (RowCodec.getInt(p, 4 * (1 + n + i)) & NULL) != 0;
  }

  /** Where field i's bytes start in {@code p}, a record of {@code n} fields. */
  static int start(byte[] p, int n, int i) {
    return base(n) + RowCodec.getInt(p, 4 * (1 + i));
  }

  /** Where field i's bytes end in {@code p}, a record of {@code n} fields (exclusive). */
  static int end(byte[] p, int n, int i) {
    return base(n) + (RowCodec.getInt(p, 4 * (1 + n + i)) & ~NULL);
  }

  /** Field i as text: null for NULL. */
  static String text(byte[] p, int i) {
    int n = count(p);
    if (isNull(p, n, i)) {
      return null;
    }
    return CsvValues.text(p, start(p, n, i), end(p, n, i));
  }

  /** Every field as text. */
  static String[] texts(byte[] p) {
    String[] t = new String[count(p)];
    for (int i = 0; i < t.length; i++) {
      t[i] = text(p, i);
    }
    return t;
  }

  /** The record's raw text (invalid UTF-8 in it becomes U+FFFD). */
  static String raw(byte[] p) {
    int n = count(p);
    return new String(
        p,
        base(n) + RowCodec.getInt(p, 4 * (1 + 2 * n)),
        RowCodec.getInt(p, 4 * (2 + 2 * n)),
        StandardCharsets.UTF_8);
  }

  private static int valueAt(int n, int i) {
    return 4 * (3 + 2 * n) + 8 * i;
  }

  private static int base(int n) {
    return valueAt(n, n);
  }

  /** Big-endian, byte by byte: see {@link RowCodec#getInt}. */
  private static void putInt(byte[] b, int p, int x) {
    b[p] = (byte) (x >>> 24);
    b[p + 1] = (byte) (x >>> 16);
    b[p + 2] = (byte) (x >>> 8);
    b[p + 3] = (byte) x;
  }
}
