package io.psiflink.nativepsi;

import java.util.Objects;

/**
 * The bins of tokens ({@code psi_token_bins} in {@code psi_native.h}; docs/private-join.md, step
 * 3): token {@code i} of a batch the {@link TokenPrf} wrote, {@code tokens[16i, 16i+16)}, has the
 * bin {@code SipHash-2-4_s(le64(hi) || le64(lo)) mod bins}, {@code hi} its first 8 bytes big-endian
 * with the top bit cleared, {@code lo} its last 8. Native because the client compiler that runs
 * small joins spent about 50 ns a token on SipHash in Java. Stateless; JNA copies the arrays across
 * on each call, so pass batches.
 */
public final class TokenBins {
  /** Bytes of the bin key (SipHash's k0 || k1, little-endian). */
  public static final int KEY_BYTES = 16;

  private TokenBins() {}

  /**
   * Writes the bins of the first {@code count} tokens of {@code tokens} to {@code out[0, count)}.
   *
   * @throws IllegalArgumentException for a key that is not {@value #KEY_BYTES} bytes, {@code bins
   *     <= 0}, or arrays shorter than {@code count} tokens or bins
   */
  public static void compute(byte[] key, byte[] tokens, int count, int bins, int[] out) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(tokens, "tokens");
    Objects.requireNonNull(out, "out");
    if (key.length != KEY_BYTES) {
      throw new IllegalArgumentException(
          "bin key must be " + KEY_BYTES + " bytes, got " + key.length);
    }
    if (bins <= 0) {
      throw new IllegalArgumentException("bins must be positive, got " + bins);
    }
    if (count < 0 || (long) count * TokenPrf.OUT_BYTES > tokens.length || count > out.length) {
      throw new IllegalArgumentException(
          count + " tokens: tokens has " + tokens.length + " bytes, out " + out.length + " bins");
    }
    int rc = PsiNative.psi_token_bins(key, KEY_BYTES, tokens, count, bins, out, count);
    if (rc != 0) {
      throw new PsiException(PsiSession.statusOf(rc), "psi_token_bins refused its arguments");
    }
  }
}
