package io.psiflink.connectors.row;

import io.psiflink.api.ColumnType;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.types.Row;

/**
 * A compact binary encoding of some columns of a row, used for the rows a bin keeps for reverse
 * lookup and for the columns one party sends the other. Per column: a presence byte (0 = NULL),
 * then the value: BOOLEAN 1 byte, INT/FLOAT 4, BIGINT/DOUBLE 8 (big-endian), STRING/BYTES a varint
 * length and the (UTF-8) bytes. Decoding checks every length against the buffer: the bytes may come
 * from the peer. Immutable.
 */
public final class RowCodec implements Serializable {
  private static final long serialVersionUID = 1L;

  private final ColumnType[] types;

  public RowCodec(List<ColumnType> types) {
    this.types = types.toArray(new ColumnType[0]);
  }

  public int arity() {
    return types.length;
  }

  /** Encodes {@code row.getField(fields[i])} for every i, typed as {@code types[i]}. */
  public byte[] encode(Row row, int[] fields) {
    Out out = new Out();
    encode(row, fields, out);
    return out.toByteArray();
  }

  /**
   * Appends the encoding of {@code row.getField(fields[i])} for every i to {@code out}: a hot path
   * reuses one buffer instead of allocating per row.
   */
  public void encode(Row row, int[] fields, Out out) {
    encode(new RowView().set(row), fields, out, new RecordView.Bytes());
  }

  /**
   * Appends the encoding of field {@code fields[i]} of the viewed record for every i to {@code
   * out}, the same bytes as for the {@code Row} of the same values; {@code bytes} is scratch space.
   */
  public void encode(RecordView<?> record, int[] fields, Out out, RecordView.Bytes bytes) {
    if (fields.length != types.length) {
      throw new IllegalArgumentException(
          "expected " + types.length + " fields, got " + fields.length);
    }
    for (int i = 0; i < fields.length; i++) {
      int f = fields[i];
      if (record.isNull(f)) {
        out.put(0);
        continue;
      }
      out.put(1);
      switch (types[i]) {
        case BOOLEAN -> out.put(record.getBoolean(f) ? 1 : 0);
        case INT -> out.putInt((int) record.getLong(f));
        case BIGINT -> out.putLong(record.getLong(f));
        case FLOAT -> out.putInt(Float.floatToRawIntBits(record.getFloat(f)));
        case DOUBLE -> out.putLong(Double.doubleToRawLongBits(record.getDouble(f)));
        case STRING, BYTES -> {
          record.bytes(f, false, bytes);
          out.putBytes(bytes.array(), bytes.offset(), bytes.length());
        }
      }
    }
  }

  /**
   * Decodes one encoded row of {@code len} bytes at {@code off} into {@code dst[dstOff..]}.
   *
   * @throws IllegalArgumentException if the bytes are not exactly one well-formed encoded row
   */
  public void decode(byte[] src, int off, int len, Object[] dst, int dstOff) {
    int[] starts = new int[types.length + 1];
    columns(src, off, len, starts, 0, false);
    for (int i = 0; i < types.length; i++) {
      dst[dstOff + i] = value(src, starts[i], i);
    }
  }

  /**
   * Checks that {@code src[off, off+len)} is exactly one well-formed encoded row and finds its
   * columns without decoding them: column i is {@code src[starts[at+i], starts[at+i+1])}, presence
   * byte included, so columns can be copied from one encoding into another as they are.
   *
   * @param starts receives arity + 1 offsets from index {@code at} on
   * @param checkUtf8 whether STRING bytes must be valid UTF-8 (for bytes from the peer, which are
   *     written to the output without being decoded)
   * @throws IllegalArgumentException if the bytes are not one well-formed encoded row
   */
  public void columns(byte[] src, int off, int len, int[] starts, int at, boolean checkUtf8) {
    int p = off;
    int end = off + len;
    for (int i = 0; i < types.length; i++) {
      starts[at + i] = p;
      if (p >= end) {
        throw new IllegalArgumentException("encoded row ends before column " + i);
      }
      int present = src[p++];
      if (present == 0) {
        continue;
      }
      if (present != 1) {
        throw new IllegalArgumentException("bad presence byte " + present + " in column " + i);
      }
      int need =
          switch (types[i]) {
            case BOOLEAN -> 1;
            case INT, FLOAT -> 4;
            case BIGINT, DOUBLE -> 8;
            case STRING, BYTES -> {
              long r = Varint.read(src, p, end);
              p = Varint.next(r);
              yield Varint.value(r);
            }
          };
      if (need > end - p) {
        throw new IllegalArgumentException("encoded row truncated in column " + i);
      }
      if (checkUtf8 && types[i] == ColumnType.STRING && !Utf8.isValid(src, p, need)) {
        throw new IllegalArgumentException("invalid UTF-8 in column " + i);
      }
      p += need;
    }
    if (p != end) {
      throw new IllegalArgumentException((end - p) + " stray bytes after the encoded row");
    }
    starts[at + types.length] = end;
  }

  /**
   * The value of column i, which starts at {@code p} (its presence byte) of a row {@link #columns}
   * checked.
   */
  public Object value(byte[] src, int p, int i) {
    if (src[p++] == 0) {
      return null;
    }
    return switch (types[i]) {
      case BOOLEAN -> src[p] != 0;
      case INT -> getInt(src, p);
      case BIGINT -> getLong(src, p);
      case FLOAT -> Float.intBitsToFloat(getInt(src, p));
      case DOUBLE -> Double.longBitsToDouble(getLong(src, p));
      case STRING, BYTES -> {
        long r = Varint.read(src, p, src.length);
        int from = Varint.next(r);
        byte[] bytes = Arrays.copyOfRange(src, from, from + Varint.value(r));
        yield types[i] == ColumnType.STRING ? new String(bytes, StandardCharsets.UTF_8) : bytes;
      }
    };
  }

  /** The type of column i. */
  public ColumnType type(int i) {
    return types[i];
  }

  /**
   * The big-endian int at {@code b[p, p + 4)}. Byte by byte, not through a VarHandle: the client
   * compiler (C1), which runs small joins, calls a VarHandle through its method handles, which cost
   * a 10^6-row join 3 % of its CPU here; C2 compiles either to a few instructions.
   */
  public static int getInt(byte[] b, int p) {
    return (b[p] << 24) | (b[p + 1] & 0xff) << 16 | (b[p + 2] & 0xff) << 8 | (b[p + 3] & 0xff);
  }

  /** The big-endian long at {@code b[p, p + 8)}: two {@link #getInt}s, for C1 as they are. */
  public static long getLong(byte[] b, int p) {
    return (long) getInt(b, p) << 32 | (getInt(b, p + 4) & 0xffff_ffffL);
  }

  /**
   * A growable byte buffer with the encodings used here; not synchronized (ByteArrayOutputStream
   * is, and its per-byte lock showed in profiles of the tokenize step).
   */
  public static final class Out {
    private byte[] buf = new byte[32];
    private int size;

    /** The buffer itself (valid up to {@link #size()}), without the copy of toByteArray. */
    public byte[] array() {
      return buf;
    }

    public int size() {
      return size;
    }

    /** Empties the buffer, keeping its capacity. */
    public void reset() {
      size = 0;
    }

    public byte[] toByteArray() {
      return Arrays.copyOf(buf, size);
    }

    private void ensure(int extra) {
      if (size + extra > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + extra));
      }
    }

    void put(int b) {
      ensure(1);
      buf[size++] = (byte) b;
    }

    /** Appends {@code x}, big-endian. */
    public void putInt(int x) {
      ensure(4);
      buf[size++] = (byte) (x >>> 24);
      buf[size++] = (byte) (x >>> 16);
      buf[size++] = (byte) (x >>> 8);
      buf[size++] = (byte) x;
    }

    void putLong(long x) {
      putInt((int) (x >>> 32));
      putInt((int) x);
    }

    /** Appends {@code b[off, off + len)} after its varint length. */
    public void putBytes(byte[] b, int off, int len) {
      ensure(Varint.size(len) + len);
      size = Varint.put(buf, size, len);
      System.arraycopy(b, off, buf, size, len);
      size += len;
    }
  }
}
