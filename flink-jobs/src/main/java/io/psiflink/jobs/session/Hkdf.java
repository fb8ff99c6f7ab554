package io.psiflink.jobs.session;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** HKDF-SHA256 (RFC 5869), for deriving the session keys from the key agreement. */
public final class Hkdf {
  private Hkdf() {}

  /**
   * HKDF-Extract of RFC 5869 section 2.2; an empty salt stands for 32 zero bytes, as the RFC says.
   */
  public static byte[] extract(byte[] salt, byte[] ikm) {
    return hmac(salt.length == 0 ? new byte[32] : salt, ikm);
  }

  /** {@link #expand(byte[], byte[], int)} with the UTF-8 of {@code info}. */
  public static byte[] expand(byte[] prk, String info, int length) {
    return expand(prk, info.getBytes(StandardCharsets.UTF_8), length);
  }

  /** HKDF-Expand of RFC 5869 section 2.3: {@code length} bytes of output keying material. */
  public static byte[] expand(byte[] prk, byte[] infoBytes, int length) {
    if (length <= 0 || length > 255 * 32) {
      throw new IllegalArgumentException("bad HKDF output length " + length);
    }
    byte[] out = new byte[length];
    byte[] t = new byte[0];
    int pos = 0;
    for (int i = 1; pos < length; i++) {
      byte[] in = new byte[t.length + infoBytes.length + 1];
      System.arraycopy(t, 0, in, 0, t.length);
      System.arraycopy(infoBytes, 0, in, t.length, infoBytes.length);
      in[in.length - 1] = (byte) i;
      t = hmac(prk, in);
      int n = Math.min(t.length, length - pos);
      System.arraycopy(t, 0, out, pos, n);
      pos += n;
    }
    return out;
  }

  private static byte[] hmac(byte[] key, byte[] data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable in this JVM", e);
    }
  }
}
