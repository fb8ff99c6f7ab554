package io.psiflink.jobs.prefilter;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What {@link PrefilterPrefetch} received while the table was read, as it travels to {@link
 * PrefilterExchange} beside the filter pieces ({@link FilterChunks}): one {@code long[]} whose word
 * 0 is −1 − kind (a piece's word 0, its offset, is never negative), word 1 the chunk's index and
 * the rest its words. The records stay inside this party's job.
 */
final class Received {
  /** This party's seed from the helper (two words). */
  static final int SEED = 0;

  /** A chunk of m_σ, from the helper (party A). */
  static final int M_SIGMA = 1;

  /** A chunk of the chooser's e (the sender). */
  static final int CHOICE = 2;

  private Received() {}

  static long[] of(int kind, int index, long[] words) {
    long[] r = new long[words.length + 2];
    r[0] = -1L - kind;
    r[1] = index;
    System.arraycopy(words, 0, r, 2, words.length);
    return r;
  }

  static long[] seed(byte[] seed) {
    long[] words = new long[seed.length / 8];
    ByteBuffer.wrap(seed).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(words);
    return of(SEED, 0, words);
  }

  /** Whether {@code r} is a received record rather than a filter piece. */
  static boolean is(long[] r) {
    return r.length >= 2 && r[0] < 0;
  }

  static int kind(long[] r) {
    return (int) (-1L - r[0]);
  }

  static int index(long[] r) {
    return (int) r[1];
  }

  static long[] words(long[] r) {
    long[] words = new long[r.length - 2];
    System.arraycopy(r, 2, words, 0, words.length);
    return words;
  }

  static byte[] seedBytes(long[] r) {
    long[] words = words(r);
    byte[] seed = new byte[8 * words.length];
    ByteBuffer.wrap(seed).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().put(words);
    return seed;
  }
}
