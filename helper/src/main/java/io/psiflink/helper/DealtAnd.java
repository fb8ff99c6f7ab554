package io.psiflink.helper;

/**
 * The bitwise steps of the helper-dealt AND of two filters x (A's) and y (B's), one random OT per
 * bit (docs/security.md, "Pre-filtering with a helper"). The helper deals (m0, m1) to B and (σ,
 * m_σ) to A; then A sends e = x ⊕ σ, B answers w = y ⊕ m_{1⊕e}, and A computes c = x · (w ⊕ m_σ) =
 * x · y, which it sends to B. All arrays are 64-bit words of the same filter chunk; each method
 * works on {@code words} words and writes its result over its first argument.
 *
 * <p>The same random OTs serve the other direction too, without a word more from the helper (the
 * reversal of a random OT: m_σ ⊕ r·σ = m0 for r = m0 ⊕ m1): B can choose with r = m0 ⊕ m1 and its
 * output m_r = m0, and A answer with the messages (m_σ, m_σ ⊕ σ). So whichever party's filter is
 * ready first can send its e while the other still builds its own ({@link #reverseChooser}, {@link
 * #reverseSender}).
 */
public final class DealtAnd {
  private DealtAnd() {}

  /**
   * The helper's deal of {@code words} words from word {@code first} of the filter: m0 and m1 from
   * B's streams {@code ofB}, σ from A's {@code ofA}, then m0 becomes m_σ ({@link #dealChoice}).
   */
  public static void deal(
      CorrelationStreams ofA,
      CorrelationStreams ofB,
      long first,
      long[] m0,
      long[] m1,
      long[] sigma,
      int words) {
    ofB.expand(CorrelationStreams.M0, first, m0, words);
    ofB.expand(CorrelationStreams.M1, first, m1, words);
    ofA.expand(CorrelationStreams.SIGMA, first, sigma, words);
    dealChoice(m0, m1, sigma, words);
  }

  /** The helper: m0 becomes m_σ = σ ? m1 : m0, bitwise. */
  public static void dealChoice(long[] m0, long[] m1, long[] sigma, int words) {
    for (int i = 0; i < words; i++) {
      m0[i] ^= sigma[i] & (m0[i] ^ m1[i]);
    }
  }

  /** A: sigma becomes e = x ⊕ σ (σ is a one-time pad: e tells B nothing). */
  public static void maskChoice(long[] sigma, long[] x, int words) {
    for (int i = 0; i < words; i++) {
      sigma[i] ^= x[i];
    }
  }

  /** B: e becomes w = y ⊕ m_{1⊕e}, bitwise (m_{1⊕e} = e ? m0 : m1). */
  public static void answer(long[] e, long[] y, long[] m0, long[] m1, int words) {
    for (int i = 0; i < words; i++) {
      long e1 = e[i];
      e[i] = y[i] ^ m1[i] ^ (e1 & (m0[i] ^ m1[i]));
    }
  }

  /** B choosing (the reversal): m1 becomes its choice string r = m0 ⊕ m1; m0 is its m_r. */
  public static void reverseChooser(long[] m0, long[] m1, int words) {
    for (int i = 0; i < words; i++) {
      m1[i] ^= m0[i];
    }
  }

  /** A answering (the reversal): sigma becomes its message n1 = m_σ ⊕ σ; m_σ is its n0. */
  public static void reverseSender(long[] mSigma, long[] sigma, int words) {
    for (int i = 0; i < words; i++) {
      sigma[i] ^= mSigma[i];
    }
  }

  /** A: w becomes c = x · (w ⊕ m_σ) = x · y. */
  public static void open(long[] w, long[] x, long[] mSigma, int words) {
    for (int i = 0; i < words; i++) {
      w[i] = x[i] & (w[i] ^ mSigma[i]);
    }
  }

  /**
   * B: whether c can be x · y for B's y, i.e. c ⊆ y (A's answer is hostile input); the index of the
   * first word that is not, or -1.
   */
  public static int firstOutside(long[] c, long[] y, int words) {
    for (int i = 0; i < words; i++) {
      if ((c[i] & ~y[i]) != 0) {
        return i;
      }
    }
    return -1;
  }
}
