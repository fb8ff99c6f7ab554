package io.psiflink.jobs.token;

import io.psiflink.api.Role;

/**
 * The 128-bit element space fed to PSI, as (hi, lo) longs; the wire form is 16 bytes big-endian.
 * Real tokens have the top bit clear. Dummies have it set, the next bit names the party that made
 * them (so A's and B's dummies never collide), and the other 126 bits are drawn at random for every
 * bin attempt: a dummy is distinct from every real token and from the peer's dummies by
 * construction, from this party's other dummies except with probability about bound²/2¹²⁷, and
 * tells nothing (not the bin, not its position in the padding) to anyone who sees it.
 */
public final class Tokens {
  public static final int BYTES = 16;
  private static final long DUMMY = Long.MIN_VALUE;
  private static final long PARTY_B = 1L << 62;

  private Tokens() {}

  public static boolean isDummy(long hi) {
    return hi < 0;
  }

  /**
   * The high half of a dummy of {@code owner} ({@link Role#A} or {@link Role#B}: one bit tells them
   * apart) with 62 random bits.
   */
  public static long dummyHi(Role owner, long random) {
    return DUMMY | (bitOf(owner) ? PARTY_B : 0) | (random & (PARTY_B - 1));
  }

  /** The party whose dummy {@code hi} is; only defined for dummies. */
  public static Role dummyOwner(long hi) {
    if (!isDummy(hi)) {
      throw new IllegalArgumentException("not a dummy");
    }
    return (hi & PARTY_B) != 0 ? Role.B : Role.A;
  }

  private static boolean bitOf(Role owner) {
    if (!owner.isParty() || owner.parties() != 2) {
      throw new IllegalArgumentException("dummies are drawn by the two parties, not by " + owner);
    }
    return owner.index() == 1;
  }

  public static void put(byte[] dst, int off, long hi, long lo) {
    put64(dst, off, hi);
    put64(dst, off + 8, lo);
  }

  /** Big-endian; unrolled: the client compiler, which runs small joins, keeps loops. */
  private static void put64(byte[] dst, int off, long x) {
    dst[off] = (byte) (x >>> 56);
    dst[off + 1] = (byte) (x >>> 48);
    dst[off + 2] = (byte) (x >>> 40);
    dst[off + 3] = (byte) (x >>> 32);
    dst[off + 4] = (byte) (x >>> 24);
    dst[off + 5] = (byte) (x >>> 16);
    dst[off + 6] = (byte) (x >>> 8);
    dst[off + 7] = (byte) x;
  }

  public static long hiAt(byte[] src, int off) {
    return Tokenizer.be64(src, off);
  }

  public static long loAt(byte[] src, int off) {
    return Tokenizer.be64(src, off + 8);
  }
}
