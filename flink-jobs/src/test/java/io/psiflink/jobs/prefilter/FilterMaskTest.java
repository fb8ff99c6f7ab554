package io.psiflink.jobs.prefilter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.jobs.token.Tokens;
import io.psiflink.nativepsi.FilterPositions;
import java.math.BigInteger;
import java.util.SplittableRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class FilterMaskTest {
  private static byte[] seed() {
    byte[] s = new byte[32];
    new SplittableRandom(7).nextBytes(s);
    // a counter block near 2^64 - 1 in its low half: the sum must carry into the high half
    for (int i = 24; i < 32; i++) {
      s[i] = (byte) 0xff;
    }
    s[31] = (byte) 0xf0;
    return s;
  }

  /**
   * The oracle: mask word w is the little-endian long of bytes [8w, 8w + 8) of AES-128-ECB over the
   * counter blocks iv + 0, iv + 1, ... (BigInteger arithmetic mod 2^128), computed block by block.
   */
  private static long[] oracleMask(byte[] seed, int words) throws Exception {
    Cipher ecb = Cipher.getInstance("AES/ECB/NoPadding");
    ecb.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(seed, 0, 16, "AES"));
    BigInteger iv = new BigInteger(1, java.util.Arrays.copyOfRange(seed, 16, 32));
    BigInteger mod = BigInteger.ONE.shiftLeft(128);
    byte[] stream = new byte[words * 8 + 16];
    for (int b = 0; b * 16 < words * 8; b++) {
      byte[] ctr = iv.add(BigInteger.valueOf(b)).mod(mod).toByteArray();
      byte[] block = new byte[16];
      int n = Math.min(16, ctr.length);
      System.arraycopy(ctr, ctr.length - n, block, 16 - n, n);
      System.arraycopy(ecb.doFinal(block), 0, stream, b * 16, 16);
    }
    long[] m = new long[words];
    for (int w = 0; w < words; w++) {
      long v = 0;
      for (int i = 7; i >= 0; i--) {
        v = v << 8 | (stream[8 * w + i] & 0xff);
      }
      m[w] = v;
    }
    return m;
  }

  @Test
  void maskIsTheAesCtrKeystreamAtEveryOffset() throws Exception {
    byte[] seed = seed();
    int words = 3 * 4096 + 37; // crosses the mask's internal steps, odd length
    long[] expected = oracleMask(seed, words);
    long[] zero = new long[words];
    long[] whole = new long[words];
    FilterMask mask = new FilterMask(seed);
    mask.xnor(0, zero, 0, whole, 0, words);
    for (int w = 0; w < words; w++) {
      assertEquals(~expected[w], whole[w], "word " + w); // XNOR with 0 is NOT M
    }
    // pieces at odd and even offsets give the same words as the whole
    SplittableRandom r = new SplittableRandom(3);
    long[] filter = new long[words];
    for (int i = 0; i < words; i++) {
      filter[i] = r.nextLong();
    }
    long[] pieces = new long[words];
    int[] cuts = {0, 1, 2, 5, 4097, 4098, 9000, words};
    for (int c = 0; c + 1 < cuts.length; c++) {
      mask.xnor(cuts[c], filter, cuts[c], pieces, cuts[c], cuts[c + 1] - cuts[c]);
    }
    for (int w = 0; w < words; w++) {
      assertEquals(~(filter[w] ^ expected[w]), pieces[w], "word " + w);
    }
  }

  /** The algebra of Table 1: (m_A XNOR m_B) AND B'_A = B'_A AND B'_B, word by word. */
  @Test
  void combiningTwoMaskedFiltersAndTheOwnGivesTheIntersection() {
    SplittableRandom r = new SplittableRandom(11);
    int words = 1000;
    long[] a = new long[words];
    long[] b = new long[words];
    for (int i = 0; i < words; i++) {
      a[i] = r.nextLong();
      b[i] = r.nextLong();
    }
    FilterMask mask = new FilterMask(seed());
    long[] ma = new long[words];
    long[] mb = new long[words];
    mask.xnor(0, a, 0, ma, 0, words);
    mask.xnor(0, b, 0, mb, 0, words);
    for (int i = 0; i < words; i++) {
      long combined = ~(ma[i] ^ mb[i]); // the helper's B_C
      assertEquals(a[i] & b[i], combined & a[i]);
      assertEquals(a[i] & b[i], combined & b[i]);
    }
  }

  @Test
  void aSeedOfAnotherLengthIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new FilterMask(new byte[16]));
    assertThrows(IllegalArgumentException.class, () -> new FilterMask(null));
  }

  /**
   * What the helper sees does not depend on the set: the masked filters of a nearly empty set (a
   * few tokens) and of a nearly full one (98 % of the bits set) both have a share of ones within
   * the Hoeffding bound t = sqrt(ln(2 * 2^40) / (2 len)) of 1/2 (so a balanced sequence fails this
   * with probability at most 2^-40); the unmasked filters are far outside it, so the check can
   * fail. Fixed seeds: the test is deterministic.
   */
  @Test
  void maskedFiltersOfNearlyEmptyAndNearlyFullSetsAreBalanced() {
    int bits = 18;
    int words = 1 << (bits - 6);
    long len = 1L << bits;
    double bound = Math.sqrt(Math.log(2) * 41 / (2.0 * len));
    SplittableRandom r = new SplittableRandom(2026);
    long[] empty = filterOf(r, 5, 2, bits);
    long[] full = filterOf(r, 1 << 19, 4, bits); // n k / len = 8: 1 - e^-8 of the bits set
    FilterMask mask = new FilterMask(seed());
    for (long[] f : new long[][] {empty, full}) {
      double plain = FilterChunks.ones(f) / (double) len;
      assertTrue(Math.abs(plain - 0.5) > 0.4, "the unmasked filter is unbalanced: " + plain);
      long[] m = new long[words];
      mask.xnor(0, f, 0, m, 0, words);
      double masked = FilterChunks.ones(m) / (double) len;
      assertTrue(
          Math.abs(masked - 0.5) < bound,
          "the masked filter's share of ones " + masked + " is off 1/2 by more than " + bound);
    }
  }

  /** The filter of n random tokens, positions by the job's own FilterPositions (native FF1). */
  private static long[] filterOf(SplittableRandom r, int n, int k, int bits) {
    long[] f = new long[1 << (bits - 6)];
    byte[] key = new byte[32];
    r.nextBytes(key);
    byte[] tokens = new byte[n * Tokens.BYTES];
    r.nextBytes(tokens);
    long[] positions = new long[n * k];
    try (FilterPositions fp = FilterPositions.create(key, bits, k)) {
      fp.positions(tokens, n, Tokens.BYTES, positions);
    }
    FilterChunks.set(f, positions, positions.length);
    return f;
  }

  @Test
  void piecesRoundTripAndRefuseWhatDoesNotFit() {
    long[] filter = new long[FilterChunks.WORDS * 2];
    filter[FilterChunks.WORDS + 3] = 42;
    long[] piece = FilterChunks.of(filter, FilterChunks.WORDS, FilterChunks.WORDS);
    long[] other = new long[filter.length];
    FilterChunks.orInto(piece, other);
    assertArrayEquals(filter, other);
    long[] bad = {filter.length - 1, 1, 2};
    assertThrows(IllegalArgumentException.class, () -> FilterChunks.orInto(bad, other));
    long[] negative = {-1, 1};
    assertThrows(IllegalArgumentException.class, () -> FilterChunks.copyInto(negative, other));
  }
}
