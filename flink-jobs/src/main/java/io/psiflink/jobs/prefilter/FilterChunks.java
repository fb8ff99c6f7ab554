package io.psiflink.jobs.prefilter;

/**
 * A piece of a Bloom filter as it travels between the job's operators: one {@code long[]} whose
 * element 0 is the index of the piece's first word in the filter and the rest its words (bit i of
 * the filter is bit {@code i & 63} of word {@code i >>> 6}). A plain array because Flink ships
 * primitive arrays with its cheapest serializer. Only pieces with a set bit are sent: a partial
 * filter of a few tokens costs a few pieces, not the whole filter.
 */
public final class FilterChunks {
  /** Words per piece: 512 KiB, well inside a task's network buffers' reach. */
  public static final int WORDS = 1 << 16;

  private FilterChunks() {}

  /** The piece of {@code words[from, from + len)}, which starts at word {@code from}. */
  public static long[] of(long[] words, int from, int len) {
    long[] c = new long[len + 1];
    c[0] = from;
    System.arraycopy(words, from, c, 1, len);
    return c;
  }

  /** The filter word where piece {@code c} starts, checked against a filter of {@code words}. */
  public static int offset(long[] c, long filterWords) {
    long off = c[0];
    if (c.length < 1 || off < 0 || off + c.length - 1 > filterWords) {
      throw new IllegalArgumentException(
          "a filter piece of "
              + (c.length - 1)
              + " words at word "
              + off
              + " does not fit a filter of "
              + filterWords
              + " words");
    }
    return (int) off;
  }

  /** ORs piece {@code c} into {@code filter}. */
  public static void orInto(long[] c, long[] filter) {
    int off = offset(c, filter.length);
    for (int i = 1; i < c.length; i++) {
      filter[off + i - 1] |= c[i];
    }
  }

  /** Copies piece {@code c} into {@code filter}. */
  public static void copyInto(long[] c, long[] filter) {
    int off = offset(c, filter.length);
    System.arraycopy(c, 1, filter, off, c.length - 1);
  }

  /** Hands each piece of {@code filter} that has a set bit to {@code out}, in order. */
  public static void forEachSetPiece(long[] filter, java.util.function.Consumer<long[]> out) {
    for (int from = 0; from < filter.length; from += WORDS) {
      int len = Math.min(WORDS, filter.length - from);
      if (anySet(filter, from, len)) {
        out.accept(of(filter, from, len));
      }
    }
  }

  /** Whether {@code words[from, from + len)} has a set bit. */
  public static boolean anySet(long[] words, int from, int len) {
    for (int i = from; i < from + len; i++) {
      if (words[i] != 0) {
        return true;
      }
    }
    return false;
  }

  /** Sets the bits at {@code positions[from, from + count)} of {@code filter}. */
  public static void set(long[] filter, long[] positions, int count) {
    for (int i = 0; i < count; i++) {
      long p = positions[i];
      filter[(int) (p >>> 6)] |= 1L << p; // Java masks the shift to p & 63
    }
  }

  /** Whether every bit at {@code positions[from, from + k)} of {@code filter} is set. */
  public static boolean allSet(long[] filter, long[] positions, int from, int k) {
    for (int j = from; j < from + k; j++) {
      long p = positions[j];
      if ((filter[(int) (p >>> 6)] & (1L << p)) == 0) {
        return false;
      }
    }
    return true;
  }

  /** The number of set bits of {@code filter}. */
  public static long ones(long[] filter) {
    long n = 0;
    for (long w : filter) {
      n += Long.bitCount(w);
    }
    return n;
  }
}
