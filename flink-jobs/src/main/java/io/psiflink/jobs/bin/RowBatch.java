package io.psiflink.jobs.bin;

import io.psiflink.connectors.row.RowCodec;
import io.psiflink.connectors.row.Varint;
import java.util.Arrays;

/**
 * Rows many to one Flink record, as they pass between the job's tasks: per row a 32-bit tag (4
 * bytes, big-endian), the varint length of its bytes, then the bytes. On the way to the bins the
 * tag is the row's bin and the bytes the rest of its {@link TokenRecord} ({@link BinBatcher}); on
 * the way to the prefilter's candidate selection the tag is the row's first filter position and the
 * bytes its whole record. One Flink record per row cost more than the rows' own work on the way:
 * serializing, buffer bookkeeping and dispatch per record on both sides of the shuffle (at 10^8
 * rows, tens of seconds of CPU).
 */
public final class RowBatch {
  /** A batch is emitted once it holds this many bytes: one network buffer's worth. */
  public static final int TARGET_BYTES = 32 * 1024;

  private RowBatch() {}

  /** The tag of the first row of a non-empty {@code batch}. */
  public static int firstTag(byte[] batch) {
    if (batch.length < 4) {
      throw new IllegalArgumentException("a batch of " + batch.length + " bytes has no row");
    }
    return RowCodec.getInt(batch, 0);
  }

  /** Packs rows into batches of about {@link #TARGET_BYTES}. Not thread-safe. */
  public static final class Writer {
    private RowCodec.Out buf = new RowCodec.Out();

    /**
     * Appends a row: {@code tag} (an unsigned 32-bit value) and {@code src[off, off + n)}.
     *
     * @return true when the batch is full and should be {@linkplain #take() taken}
     */
    public boolean add(long tag, byte[] src, int off, int n) {
      if (tag >>> 32 != 0) {
        throw new IllegalArgumentException("a row's tag beyond 32 bits: " + tag);
      }
      buf.putInt((int) tag);
      buf.putBytes(src, off, n);
      return buf.size() >= TARGET_BYTES;
    }

    public boolean isEmpty() {
      return buf.size() == 0;
    }

    /** The batch so far, exactly sized; the writer starts a new one. */
    public byte[] take() {
      byte[] b = buf.toByteArray();
      if (buf.array().length > 2 * TARGET_BYTES) {
        buf = new RowCodec.Out(); // a huge row does not keep its buffer
      } else {
        buf.reset();
      }
      return b;
    }
  }

  /**
   * The rows of a batch: row i's tag in {@code tags[i]} (unsigned), its bytes at {@code
   * batch[offsets[i], offsets[i] + lengths[i])}. The arrays grow as needed; the reader is reused
   * from batch to batch. Not thread-safe.
   */
  public static final class Rows {
    public long[] tags = new long[1024];
    public int[] offsets = new int[1024];
    public int[] lengths = new int[1024];
    public int count;

    /**
     * Reads {@code batch}.
     *
     * @throws IllegalArgumentException if it is not a sequence of whole rows
     */
    public Rows read(byte[] batch) {
      int n = 0;
      int p = 0;
      while (p < batch.length) {
        if (n == offsets.length) {
          tags = Arrays.copyOf(tags, 2 * n);
          offsets = Arrays.copyOf(offsets, 2 * n);
          lengths = Arrays.copyOf(lengths, 2 * n);
        }
        if (batch.length - p < 4) {
          throw new IllegalArgumentException("a row's tag truncated");
        }
        tags[n] = Integer.toUnsignedLong(RowCodec.getInt(batch, p));
        long len = Varint.read(batch, p + 4, batch.length);
        int off = Varint.next(len);
        int size = Varint.value(len);
        if (size > batch.length - off) {
          throw new IllegalArgumentException("a row truncated");
        }
        offsets[n] = off;
        lengths[n] = size;
        n++;
        p = off + size;
      }
      count = n;
      return this;
    }
  }
}
