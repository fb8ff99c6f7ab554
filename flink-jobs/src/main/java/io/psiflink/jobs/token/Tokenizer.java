package io.psiflink.jobs.token;

import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import javax.crypto.Mac;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.SecretKeySpec;

/**
 * Computes 128-bit tokens of canonical key encodings and their bins.
 *
 * <p>{@code token = HMAC-SHA256(k, canonical(keys))} truncated to 128 bits with the top bit
 * cleared: real tokens live in the lower half of the 128-bit space, so a dummy (top bit set, see
 * {@link Tokens}) can never equal a real token. {@code bin = SipHash-2-4_s(token) mod m}. Both keys
 * are agreed between the two parties' jobs for one session only. Not thread-safe.
 */
public final class Tokenizer {
  private final Mac mac;
  private final SipHash binHash;
  private final int bins;
  private final byte[] out = new byte[32];
  private long hi;
  private long lo;

  public Tokenizer(byte[] tokenKey, byte[] binSeed, int bins) {
    if (tokenKey.length != 32) {
      throw new IllegalArgumentException("token key must be 32 bytes");
    }
    if (bins <= 0) {
      throw new IllegalArgumentException("bins must be positive, got " + bins);
    }
    try {
      this.mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(tokenKey, "HmacSHA256"));
    } catch (InvalidKeyException e) {
      throw new IllegalArgumentException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable in this JVM", e);
    }
    this.binHash = new SipHash(binSeed);
    this.bins = bins;
  }

  /**
   * Tokenizes {@code len} bytes of {@code encoding}; read the result with {@link #hi}/{@link #lo}.
   */
  public void tokenize(byte[] encoding, int len) {
    mac.update(encoding, 0, len);
    try {
      mac.doFinal(out, 0);
    } catch (ShortBufferException e) {
      throw new IllegalStateException(e);
    }
    hi = be64(out, 0) & Long.MAX_VALUE;
    lo = be64(out, 8);
  }

  public long hi() {
    return hi;
  }

  public long lo() {
    return lo;
  }

  /** The bin of the last token: {@code SipHash_s(token) mod m}, in [0, m). */
  public int bin() {
    return binOf(hi, lo);
  }

  public int binOf(long tokenHi, long tokenLo) {
    return (int) Long.remainderUnsigned(binHash.hash128(tokenHi, tokenLo), bins);
  }

  static long be64(byte[] b, int off) {
    long x = 0;
    for (int i = 0; i < 8; i++) {
      x = (x << 8) | (b[off + i] & 0xffL);
    }
    return x;
  }
}
