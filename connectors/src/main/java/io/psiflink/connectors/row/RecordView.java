package io.psiflink.connectors.row;

import java.io.Serializable;

/**
 * One record's values, read by position as their column's type says, without an object per value:
 * what the tokenizer encodes keys and kept columns from ({@link RowCodec#encode(RecordView, int[],
 * RowCodec.Out)}). A view is pointed at one record at a time ({@link #set}) and reused, so an
 * operator holds one per parallel instance. Reading a field with the accessor of another type, or a
 * NULL field with any accessor but {@link #isNull}, is a programming error.
 *
 * @param <T> the records viewed: Flink {@code Row}s ({@link RowView}) or the CSV source's packed
 *     records
 */
public abstract class RecordView<T> implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Points the view at {@code record}; returns this view. */
  public abstract RecordView<T> set(T record);

  public abstract boolean isNull(int field);

  public abstract boolean getBoolean(int field);

  /** An INT or BIGINT field. */
  public abstract long getLong(int field);

  /** A FLOAT field. */
  public abstract float getFloat(int field);

  /** A FLOAT (widened) or DOUBLE field. */
  public abstract double getDouble(int field);

  /**
   * A STRING field's UTF-8 bytes, or a BYTES field's bytes, into {@code to}. With {@code exact}, a
   * string that has no exact UTF-8 encoding (an unpaired UTF-16 surrogate) gives false and nothing;
   * without it, such a character is encoded as '?'.
   */
  public abstract boolean bytes(int field, boolean exact, Bytes to);

  /**
   * Where {@link #bytes} puts them: {@code array[offset, offset + length)}, valid until the next
   * call.
   */
  public static final class Bytes {
    private byte[] array;
    private int offset;
    private int length;

    public void set(byte[] array, int offset, int length) {
      this.array = array;
      this.offset = offset;
      this.length = length;
    }

    public byte[] array() {
      return array;
    }

    public int offset() {
      return offset;
    }

    public int length() {
      return length;
    }
  }
}
