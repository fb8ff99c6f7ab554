package io.psiflink.tools.bench;

import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Locale;
import org.apache.flink.types.Row;

/**
 * An order-independent digest of a multiset of rows: the number of rows and the sum, modulo 2^128,
 * of a 128-bit hash of each row. Two pipelines that produce the same rows in any order, on any
 * number of workers, digest equal; one row more, less or different changes the digest (except with
 * probability about 2^-128 per difference for non-adversarial data).
 *
 * <h2>Row hash</h2>
 *
 * The first 16 bytes of SHA-256 over a canonical encoding (all integers big-endian):
 *
 * <pre>
 *   row   := 0x01 (version) · arity:int32 · value*
 *   value := 0x00                                    NULL
 *          | 0x01 · (0x00 | 0x01)                    Boolean
 *          | 0x02 · int64                            Byte, Short, Integer, Long (one integer class)
 *          | 0x03 · float64 bits                     Float, Double (float widened exactly; -0.0 → 0.0;
 *                                                    every NaN → the canonical NaN)
 *          | 0x04 · len:int32 · UTF-8 bytes          String, any CharSequence (e.g. Avro Utf8)
 *          | 0x05 · len:int32 · bytes                byte[], ByteBuffer (remaining bytes)
 *          | 0x06 · len:int32 · UTF-8 of plain text  BigDecimal, BigInteger (trailing zeros stripped)
 *          | 0x07 · arity:int32 · value*             nested Row
 *          | 0x08 · len:int32 · UTF-8 of toString()  java.time values (ISO-8601 text)
 * </pre>
 *
 * Field names and the row kind are not part of a row's identity; rows must be positional (or
 * position-and-name, as Flink's {@code toDataStream} gives them), purely name-based rows are
 * rejected. The sum is kept as two longs ({@code hi}, {@code lo}) with carry. The result is the
 * same on every JVM.
 *
 * <p>Mutable and not thread-safe; {@link Serializable} so that it can be a Flink accumulator value.
 */
public final class RowDigest implements Serializable {
  private static final long serialVersionUID = 1L;

  private long count;
  private long hi;
  private long lo;

  private transient MessageDigest sha;
  private transient ByteBuffer buf;

  public RowDigest() {}

  private RowDigest(long count, long hi, long lo) {
    this.count = count;
    this.hi = hi;
    this.lo = lo;
  }

  /** The digest of the given rows. */
  public static RowDigest of(Iterable<Row> rows) {
    RowDigest d = new RowDigest();
    for (Row r : rows) {
      d.add(r);
    }
    return d;
  }

  /** The digest of the given rows. */
  public static RowDigest of(Row... rows) {
    return of(Arrays.asList(rows));
  }

  /** Parses {@link #toString()}. */
  public static RowDigest parse(String s) {
    int colon = s.indexOf(':');
    if (colon < 0 || s.length() - colon - 1 != 32) {
      throw new IllegalArgumentException("not a RowDigest: " + s);
    }
    long n = Long.parseLong(s.substring(0, colon));
    long h = Long.parseUnsignedLong(s.substring(colon + 1, colon + 17), 16);
    long l = Long.parseUnsignedLong(s.substring(colon + 17), 16);
    return new RowDigest(n, h, l);
  }

  /** Adds one row. Returns this. */
  public RowDigest add(Row row) {
    long[] h = hash(row);
    addHash(h[0], h[1]);
    count++;
    return this;
  }

  /** Adds every row of {@code other} (multiset union). Returns this. */
  public RowDigest merge(RowDigest other) {
    addHash(other.hi, other.lo);
    count += other.count;
    return this;
  }

  private void addHash(long h, long l) {
    long newLo = lo + l;
    long carry = Long.compareUnsigned(newLo, lo) < 0 ? 1 : 0;
    lo = newLo;
    hi = hi + h + carry;
  }

  public long count() {
    return count;
  }

  /** The 128-bit sum as 32 lower-case hex digits. */
  public String sumHex() {
    return String.format(Locale.ROOT, "%016x%016x", hi, lo);
  }

  public RowDigest copy() {
    return new RowDigest(count, hi, lo);
  }

  /** The 128-bit hash of one row as {hi, lo} (see the class comment). */
  public long[] hash(Row row) {
    if (sha == null) {
      try {
        sha = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is required of every JVM", e);
      }
      buf = ByteBuffer.allocate(256);
    }
    buf.clear();
    put((byte) 1);
    encodeRow(row);
    sha.update(buf.array(), 0, buf.position());
    byte[] d = sha.digest();
    ByteBuffer bb = ByteBuffer.wrap(d);
    return new long[] {bb.getLong(), bb.getLong()};
  }

  /** The canonical encoding of one row (for tests and for anyone re-implementing the digest). */
  public byte[] encode(Row row) {
    hash(row); // fills buf
    return Arrays.copyOf(buf.array(), buf.position());
  }

  private void ensure(int n) {
    if (buf.remaining() < n) {
      ByteBuffer bigger =
          ByteBuffer.allocate(Math.max(buf.capacity() * 2, buf.position() + n + 64));
      buf.flip();
      bigger.put(buf);
      buf = bigger;
    }
  }

  private void put(byte b) {
    ensure(1);
    buf.put(b);
  }

  private void putInt(int v) {
    ensure(4);
    buf.putInt(v);
  }

  private void putLong(long v) {
    ensure(8);
    buf.putLong(v);
  }

  private void putBytes(byte tag, byte[] b, int off, int len) {
    put(tag);
    putInt(len);
    ensure(len);
    buf.put(b, off, len);
  }

  private void encodeRow(Row row) {
    if (row.getFieldNames(false) != null && !hasPositions(row)) {
      throw new IllegalArgumentException(
          "RowDigest: a name-based Row has no field order; use a positional Row");
    }
    int n = row.getArity();
    putInt(n);
    for (int i = 0; i < n; i++) {
      encodeValue(row.getField(i));
    }
  }

  private static boolean hasPositions(Row row) {
    try {
      if (row.getArity() > 0) {
        row.getField(0);
      }
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private void encodeValue(Object v) {
    if (v == null) {
      put((byte) 0);
    } else if (v instanceof Boolean b) {
      put((byte) 1);
      put((byte) (b ? 1 : 0));
    } else if (v instanceof Long
        || v instanceof Integer
        || v instanceof Short
        || v instanceof Byte) {
      put((byte) 2);
      putLong(((Number) v).longValue());
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (d == 0) {
        d = 0.0; // -0.0 and 0.0 are the same SQL value
      }
      put((byte) 3);
      putLong(Double.doubleToLongBits(d)); // canonical NaN
    } else if (v instanceof CharSequence cs) {
      byte[] b = cs.toString().getBytes(StandardCharsets.UTF_8);
      putBytes((byte) 4, b, 0, b.length);
    } else if (v instanceof byte[] b) {
      putBytes((byte) 5, b, 0, b.length);
    } else if (v instanceof ByteBuffer bb) {
      ByteBuffer d = bb.duplicate();
      byte[] b = new byte[d.remaining()];
      d.get(b);
      putBytes((byte) 5, b, 0, b.length);
    } else if (v instanceof BigDecimal bd) {
      String s = bd.signum() == 0 ? "0" : bd.stripTrailingZeros().toPlainString();
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      putBytes((byte) 6, b, 0, b.length);
    } else if (v instanceof BigInteger bi) {
      byte[] b = bi.toString().getBytes(StandardCharsets.UTF_8);
      putBytes((byte) 6, b, 0, b.length);
    } else if (v instanceof Row r) {
      put((byte) 7);
      encodeRow(r);
    } else if (v instanceof java.time.temporal.TemporalAccessor) {
      byte[] b = v.toString().getBytes(StandardCharsets.UTF_8);
      putBytes((byte) 8, b, 0, b.length);
    } else {
      throw new IllegalArgumentException(
          "RowDigest: unsupported value type " + v.getClass().getName());
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RowDigest d && d.count == count && d.hi == hi && d.lo == lo;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(count) * 31 * 31 + Long.hashCode(hi) * 31 + Long.hashCode(lo);
  }

  /** {@code count:sumhex}, e.g. {@code 3:0123…ef} (32 hex digits). */
  @Override
  public String toString() {
    return count + ":" + sumHex();
  }
}
