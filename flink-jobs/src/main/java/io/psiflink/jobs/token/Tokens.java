package io.psiflink.jobs.token;

/**
 * The 128-bit element space fed to PSI, as (hi, lo) longs; the wire form is 16 bytes big-endian.
 * Real tokens have the top bit clear. Dummies have it set, the next bit names the party that made
 * them (so A's and B's dummies never collide), then the bin, then a counter: dummies are distinct from
 * every real token, from each other and from the peer's dummies by construction.
 */
public final class Tokens {
  public static final int BYTES = 16;
  private static final long DUMMY = Long.MIN_VALUE;
  private static final long PARTY_B = 1L << 62;

  private Tokens() {}

  public static boolean isDummy(long hi) {
    return hi < 0;
  }

  /** The {@code i}-th dummy of {@code bin} made by party A ({@code partyB=false}) or B. */
  public static long dummyHi(boolean partyB, int bin) {
    return DUMMY | (partyB ? PARTY_B : 0) | (bin & 0x7fffffffL);
  }

  public static void put(byte[] dst, int off, long hi, long lo) {
    for (int i = 0; i < 8; i++) {
      dst[off + i] = (byte) (hi >>> (56 - 8 * i));
      dst[off + 8 + i] = (byte) (lo >>> (56 - 8 * i));
    }
  }

  public static long hiAt(byte[] src, int off) {
    return Tokenizer.be64(src, off);
  }

  public static long loAt(byte[] src, int off) {
    return Tokenizer.be64(src, off + 8);
  }
}
