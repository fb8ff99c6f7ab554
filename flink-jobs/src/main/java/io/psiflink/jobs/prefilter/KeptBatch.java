package io.psiflink.jobs.prefilter;

import io.psiflink.connectors.row.Varint;
import java.util.Arrays;

/**
 * Tokenized rows on their way from {@link BloomPartial} to {@link CandidateSelect}, many to one
 * Flink record: per row its first filter position (4 bytes, big-endian; L ≤ 32), the varint length
 * of its {@link io.psiflink.jobs.bin.TokenRecord}, then the record. One Flink record per row cost
 * more in the shuffle (serializing, buffer bookkeeping and dispatch per record, 10^8 times at party
 * A of issue 14's benchmark) than the test the row waits for; and with its first position at hand
 * the selection drops nearly every non-candidate without computing its positions again.
 */
final class KeptBatch {
  /** A batch is emitted once it holds this many bytes: one network buffer's worth. */
  static final int TARGET_BYTES = 32 * 1024;

  private KeptBatch() {}

  /** Packs rows into batches of about {@link #TARGET_BYTES}. Not thread-safe. */
  static final class Writer {
    private byte[] buf = new byte[TARGET_BYTES + 256];
    private int len;

    /** Appends a row; true when the batch is full and should be {@linkplain #take() taken}. */
    boolean add(long firstPosition, byte[] record) {
      int need = 4 + Varint.size(record.length) + record.length;
      if (len + need > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(2 * buf.length, len + need));
      }
      if (firstPosition >>> 32 != 0) {
        throw new IllegalArgumentException("a filter position beyond 2^32: " + firstPosition);
      }
      int p = len;
      buf[p] = (byte) (firstPosition >>> 24);
      buf[p + 1] = (byte) (firstPosition >>> 16);
      buf[p + 2] = (byte) (firstPosition >>> 8);
      buf[p + 3] = (byte) firstPosition;
      p = Varint.put(buf, p + 4, record.length);
      System.arraycopy(record, 0, buf, p, record.length);
      len = p + record.length;
      return len >= TARGET_BYTES;
    }

    boolean isEmpty() {
      return len == 0;
    }

    /** The batch so far, exactly sized; the writer starts a new one. */
    byte[] take() {
      byte[] b = Arrays.copyOf(buf, len);
      len = 0;
      if (buf.length > 2 * TARGET_BYTES) {
        buf = new byte[TARGET_BYTES + 256]; // a huge row does not keep its buffer
      }
      return b;
    }
  }

  /**
   * The rows of {@code batch}: row i's first position in {@code positions[i]}, its record at {@code
   * batch[offsets[i], offsets[i] + lengths[i])}. The arrays grow as needed.
   */
  static final class Rows {
    long[] positions = new long[1024];
    int[] offsets = new int[1024];
    int[] lengths = new int[1024];
    int count;

    /**
     * Reads {@code batch}.
     *
     * @throws IllegalArgumentException if it is not a sequence of whole rows
     */
    Rows read(byte[] batch) {
      int n = 0;
      int p = 0;
      while (p < batch.length) {
        if (n == offsets.length) {
          positions = Arrays.copyOf(positions, 2 * n);
          offsets = Arrays.copyOf(offsets, 2 * n);
          lengths = Arrays.copyOf(lengths, 2 * n);
        }
        if (batch.length - p < 4) {
          throw new IllegalArgumentException("a kept row's position truncated");
        }
        positions[n] =
            (batch[p] & 0xffL) << 24
                | (batch[p + 1] & 0xffL) << 16
                | (batch[p + 2] & 0xffL) << 8
                | (batch[p + 3] & 0xffL);
        long len = Varint.read(batch, p + 4, batch.length);
        int off = Varint.next(len);
        int size = Varint.value(len);
        if (size > batch.length - off) {
          throw new IllegalArgumentException("a kept row truncated");
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
