package io.psiflink.tools.bench;

/**
 * Keyed bijections used by the {@link TableGenerator}: a 64-bit Feistel permutation (keys of the
 * generated tables, invertible, so that "which index does this key belong to" is decidable) and a
 * small-domain permutation of {@code [0, n)} (row order), both deterministic from a seed. These are
 * mixing functions for synthetic data, not cryptography.
 */
final class Permutations {
  private Permutations() {}

  /** The splitmix64 / murmur3 finaliser: a bijection on 64-bit values with good avalanche. */
  static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** Round keys derived from a seed and a domain-separation constant. */
  static long[] roundKeys(long seed, long domain, int rounds) {
    long[] k = new long[rounds];
    long s = mix64(seed ^ mix64(domain));
    for (int i = 0; i < rounds; i++) {
      s += 0x9e3779b97f4a7c15L;
      k[i] = mix64(s);
    }
    return k;
  }

  /** A keyed permutation of all 2^64 long values, with its inverse (balanced Feistel, 6 rounds). */
  static final class Feistel64 {
    private final long[] keys;

    Feistel64(long seed, long domain) {
      this.keys = roundKeys(seed, domain, 6);
    }

    private static int f(int half, long key) {
      return (int) (mix64((half & 0xffffffffL) ^ key) >>> 32);
    }

    long apply(long x) {
      int l = (int) (x >>> 32);
      int r = (int) x;
      for (long k : keys) {
        int t = l ^ f(r, k);
        l = r;
        r = t;
      }
      return ((long) l << 32) | (r & 0xffffffffL);
    }

    long invert(long y) {
      int l = (int) (y >>> 32);
      int r = (int) y;
      for (int i = keys.length - 1; i >= 0; i--) {
        int t = r ^ f(l, keys[i]);
        r = l;
        l = t;
      }
      return ((long) l << 32) | (r & 0xffffffffL);
    }
  }

  /**
   * A keyed permutation of {@code [0, n)}: a balanced Feistel network on the smallest even number
   * of bits covering n (a domain of less than 4n values), with cycle walking back into range.
   */
  static final class SmallDomain {
    private final long n;
    private final int halfBits;
    private final long halfMask;
    private final long[] keys;

    SmallDomain(long n, long seed, long domain) {
      if (n < 0) {
        throw new IllegalArgumentException("n < 0");
      }
      this.n = n;
      int bits = Math.max(2, 64 - Long.numberOfLeadingZeros(Math.max(1, n - 1)));
      if ((bits & 1) == 1) {
        bits++;
      }
      if (bits > 62) {
        throw new IllegalArgumentException("domain too large: " + n);
      }
      this.halfBits = bits / 2;
      this.halfMask = (1L << halfBits) - 1;
      this.keys = roundKeys(seed, domain, 4);
    }

    private long once(long x) {
      long l = x >>> halfBits;
      long r = x & halfMask;
      for (long k : keys) {
        long t = l ^ (mix64(r ^ k) & halfMask);
        l = r;
        r = t;
      }
      return (l << halfBits) | r;
    }

    long apply(long x) {
      if (x < 0 || x >= n) {
        throw new IndexOutOfBoundsException(x + " not in [0, " + n + ")");
      }
      long y = once(x);
      while (y >= n) {
        y = once(y);
      }
      return y;
    }
  }
}
