package io.psiflink.jobs.token;

/**
 * SipHash-2-4 with 64-bit output (Aumasson and Bernstein), a keyed PRF: the keyed bin hash {@code
 * h_s(token)} in Java, the oracle of the native one ({@code TokenBins}) that the tokenizer calls.
 */
public final class SipHash {
  private final long k0;
  private final long k1;

  /**
   * @param key 16 bytes, little-endian k0 || k1 as in the reference implementation
   */
  public SipHash(byte[] key) {
    if (key.length != 16) {
      throw new IllegalArgumentException("SipHash key must be 16 bytes, got " + key.length);
    }
    this.k0 = le64(key, 0);
    this.k1 = le64(key, 8);
  }

  /** SipHash-2-4 of an arbitrary message. */
  public long hash(byte[] m, int off, int len) {
    long[] v = initial();
    int end = off + (len & ~7);
    for (int i = off; i < end; i += 8) {
      compress(v, le64(m, i));
    }
    long last = ((long) len & 0xff) << 56;
    for (int i = 0; i < (len & 7); i++) {
      last |= (m[end + i] & 0xffL) << (8 * i);
    }
    compress(v, last);
    return finish(v);
  }

  /** SipHash-2-4 of the 16-byte message {@code le64(a) || le64(b)}. */
  public long hash128(long a, long b) {
    long[] v = initial();
    compress(v, a);
    compress(v, b);
    compress(v, 16L << 56);
    return finish(v);
  }

  private long[] initial() {
    return new long[] {
      0x736f6d6570736575L ^ k0,
      0x646f72616e646f6dL ^ k1,
      0x6c7967656e657261L ^ k0,
      0x7465646279746573L ^ k1
    };
  }

  private static void compress(long[] v, long m) {
    v[3] ^= m;
    sipRound(v);
    sipRound(v);
    v[0] ^= m;
  }

  private static long finish(long[] v) {
    v[2] ^= 0xff;
    for (int r = 0; r < 4; r++) {
      sipRound(v);
    }
    return v[0] ^ v[1] ^ v[2] ^ v[3];
  }

  private static void sipRound(long[] v) {
    v[0] += v[1];
    v[1] = Long.rotateLeft(v[1], 13);
    v[1] ^= v[0];
    v[0] = Long.rotateLeft(v[0], 32);
    v[2] += v[3];
    v[3] = Long.rotateLeft(v[3], 16);
    v[3] ^= v[2];
    v[0] += v[3];
    v[3] = Long.rotateLeft(v[3], 21);
    v[3] ^= v[0];
    v[2] += v[1];
    v[1] = Long.rotateLeft(v[1], 17);
    v[1] ^= v[2];
    v[2] = Long.rotateLeft(v[2], 32);
  }

  static long le64(byte[] b, int off) {
    long x = 0;
    for (int i = 7; i >= 0; i--) {
      x = (x << 8) | (b[off + i] & 0xffL);
    }
    return x;
  }
}
