package io.psiflink.jobs.prefilter;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The prefilter's mask M (Table 1 of the paper): the AES-128-CTR keystream under the session's
 * 32-byte mask seed (AES key = seed[0, 16), initial counter block = seed[16, 32), incremented as
 * one 128-bit big-endian number). Word w of M is the little-endian long of keystream bytes [8w, 8w
 * + 8), so M lines up with the filter's wire form. Both parties derive the same seed in the
 * handshake; the helper never has it, so each masked bit it sees is a one-time-padded bit. Not
 * thread-safe: one per operator.
 */
public final class FilterMask {
  private static final int BLOCK = 16;
  private static final int STEP_WORDS = 1 << 12;

  private final SecretKeySpec key;
  private final byte[] iv;
  private final Cipher cipher;
  private final byte[] zeros = new byte[STEP_WORDS * 8 + BLOCK];
  private final byte[] stream = new byte[STEP_WORDS * 8 + BLOCK];

  public FilterMask(byte[] seed) {
    if (seed == null || seed.length != 32) {
      throw new IllegalArgumentException("the mask seed has 32 bytes");
    }
    key = new SecretKeySpec(seed, 0, 16, "AES");
    iv = java.util.Arrays.copyOfRange(seed, 16, 32);
    try {
      cipher = Cipher.getInstance("AES/CTR/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no AES/CTR in this JVM", e);
    }
  }

  /**
   * {@code dst[dstOff + i] = ~(src[srcOff + i] ^ M[word + i])} for i in [0, len): the filter's
   * words XNOR the mask (m = B' XNOR M). {@code src} and {@code dst} may be the same array.
   */
  public void xnor(long word, long[] src, int srcOff, long[] dst, int dstOff, int len) {
    if (word < 0 || len < 0) {
      throw new IllegalArgumentException("negative word index or length");
    }
    try {
      for (int done = 0; done < len; ) {
        // each step restarts CTR at the block holding its first word (an odd word skips the
        // block's first half): a step costs one init, and every word's mask depends only on w
        long w = word + done;
        int n = Math.min(STEP_WORDS, len - done);
        int skip = (int) (w & 1) * 8;
        int rounded = (n * 8 + skip + BLOCK - 1) / BLOCK * BLOCK;
        cipher.init(Cipher.ENCRYPT_MODE, key, new IvParameterSpec(counter(w >>> 1)));
        cipher.update(zeros, 0, rounded, stream, 0);
        ByteBuffer b = ByteBuffer.wrap(stream, skip, n * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
          dst[dstOff + done + i] = ~(src[srcOff + done + i] ^ b.getLong());
        }
        done += n;
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES/CTR failed", e);
    }
  }

  /** The initial counter block plus {@code blocks}, as a 128-bit big-endian sum. */
  private byte[] counter(long blocks) {
    byte[] c = iv.clone();
    long carry = blocks;
    for (int i = BLOCK - 1; i >= 0 && carry != 0; i--) {
      long sum = (c[i] & 0xffL) + (carry & 0xff);
      c[i] = (byte) sum;
      carry = (carry >>> 8) + (sum >>> 8);
    }
    return c;
  }
}
