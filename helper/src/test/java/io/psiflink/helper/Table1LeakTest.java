package io.psiflink.helper;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Why the pre-filter does not run the seed paper's Table 1 as written (docs/security.md,
 * "Pre-filtering with a helper"), and that the helper-dealt AND it runs instead gives each party
 * only x·y. Filters here are random bit strings: the algebra does not depend on their content.
 */
class Table1LeakTest {
  static final int WORDS = 1 << 10;

  static long[] random(SplittableRandom r, double fill) {
    long[] f = new long[WORDS];
    for (int i = 0; i < WORDS * 64; i++) {
      if (r.nextDouble() < fill) {
        f[i >>> 6] |= 1L << i;
      }
    }
    return f;
  }

  static long[] xnor(long[] a, long[] b) {
    long[] out = new long[a.length];
    for (int i = 0; i < a.length; i++) {
      out[i] = ~(a[i] ^ b[i]);
    }
    return out;
  }

  /** What the helper deals from fresh seeds: m0, m1 (B's), σ and m_σ (A's). */
  static long[][] deal(SplittableRandom r) {
    byte[] seedA = new byte[16];
    byte[] seedB = new byte[16];
    r.nextBytes(seedA);
    r.nextBytes(seedB);
    CorrelationStreams ofB = new CorrelationStreams(seedB);
    long[] mSigma = new long[WORDS];
    long[] m1 = new long[WORDS];
    long[] sigma = new long[WORDS];
    DealtAnd.deal(new CorrelationStreams(seedA), ofB, 0, mSigma, m1, sigma, WORDS);
    long[] m0 = new long[WORDS]; // B's m0, which the deal turned into A's m_σ
    ofB.expand(CorrelationStreams.M0, 0, m0, WORDS);
    return new long[][] {m0, m1, sigma, mSigma};
  }

  /**
   * Where the chooser's filter bit is 0, what it holds about the other's bit (w ⊕ m_r) agrees with
   * that bit as a fair coin would: within 8 standard deviations of half.
   */
  static void assertPaddedWhereZero(long[] chooser, long[] w, long[] mr, long[] other) {
    int agree = 0;
    int zeros = 0;
    for (int i = 0; i < WORDS * 64; i++) {
      if ((chooser[i >>> 6] >>> i & 1) == 0) {
        zeros++;
        agree += (int) (((w[i >>> 6] ^ mr[i >>> 6]) >>> i & 1) ^ (other[i >>> 6] >>> i & 1)) ^ 1;
      }
    }
    assertTrue(Math.abs(agree - zeros / 2.0) < 8 * Math.sqrt(zeros / 4.0), agree + " of " + zeros);
  }

  @Test
  void table1GivesEachPartyTheOthersWholeFilter() {
    SplittableRandom r = new SplittableRandom(1);
    long[] filterA = random(r, 0.3);
    long[] filterB = random(r, 0.6);
    long[] mask = random(r, 0.5); // the same M at both parties: it comes from the shared seed r2
    long[] combined = xnor(xnor(filterA, mask), xnor(filterB, mask)); // the helper's B_C
    assertArrayEquals(xnor(filterA, filterB), combined, "the mask cancels");
    assertArrayEquals(filterB, xnor(combined, filterA), "A reads B's whole filter");
    assertArrayEquals(filterA, xnor(combined, filterB), "B reads A's whole filter");
  }

  @Test
  void theDealtAndGivesAOnlyTheAndAndBOnlyAPad() {
    SplittableRandom r = new SplittableRandom(2);
    long[] x = random(r, 0.3);
    long[] y = random(r, 0.6);
    long[][] deal = deal(r);
    long[] m0 = deal[0];
    long[] m1 = deal[1];
    long[] sigma = deal[2];
    long[] mSigma = deal[3];
    // A -> B: e; B -> A: w; A: c
    long[] e = sigma.clone();
    DealtAnd.maskChoice(e, x, WORDS);
    long[] w = e.clone();
    DealtAnd.answer(w, y, m0, m1, WORDS);
    long[] c = w.clone();
    DealtAnd.open(c, x, mSigma, WORDS);
    for (int i = 0; i < WORDS; i++) {
      assertEquals(x[i] & y[i], c[i], "word " + i);
    }
    assertEquals(-1, DealtAnd.firstOutside(c, y, WORDS));
    // Where x = 0, what A holds about y (w ⊕ m_σ) is y ⊕ m0 ⊕ m1: a pad A does not know.
    assertPaddedWhereZero(x, w, mSigma, y);
    // a forged c (a bit outside y) is caught by B
    c[3] |= ~y[3] & - ~y[3];
    assertEquals(~y[3] == 0 ? -1 : 3, DealtAnd.firstOutside(c, y, WORDS));
  }

  /**
   * The same dealing reversed (DealtAnd.reverseChooser/reverseSender): B chooses with r = m0 ⊕ m1
   * and m_r = m0, A answers with (m_σ, m_σ ⊕ σ); B gets x·y, and where y = 0 what B holds about x
   * is padded by σ, which B does not know.
   */
  @Test
  void theReversedDealtAndGivesBOnlyTheAndAndAOnlyAPad() {
    SplittableRandom r = new SplittableRandom(4);
    long[] x = random(r, 0.3);
    long[] y = random(r, 0.6);
    long[][] deal = deal(r);
    long[] m0 = deal[0];
    long[] m1 = deal[1];
    long[] sigma = deal[2];
    long[] mSigma = deal[3];
    // B: r = m0 ⊕ m1, e = y ⊕ r
    long[] choice = m1.clone();
    DealtAnd.reverseChooser(m0, choice, WORDS);
    long[] e = choice.clone();
    DealtAnd.maskChoice(e, y, WORDS);
    // A: (n0, n1) = (m_σ, m_σ ⊕ σ), w = x ⊕ n_{1⊕e}
    long[] n1 = sigma.clone();
    DealtAnd.reverseSender(mSigma, n1, WORDS);
    long[] w = e.clone();
    DealtAnd.answer(w, x, mSigma, n1, WORDS);
    // B: c = y · (w ⊕ m0)
    long[] c = w.clone();
    DealtAnd.open(c, y, m0, WORDS);
    for (int i = 0; i < WORDS; i++) {
      assertEquals(x[i] & y[i], c[i], "word " + i);
    }
    assertEquals(-1, DealtAnd.firstOutside(c, x, WORDS));
    assertPaddedWhereZero(y, w, m0, x);
  }
}
