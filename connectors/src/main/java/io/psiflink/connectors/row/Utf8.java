package io.psiflink.connectors.row;

/**
 * Checks that bytes are well-formed UTF-8 (RFC 3629: shortest form, no surrogates, at most
 * U+10FFFF) without decoding them: per call the JDK's decoder would allocate a decoder and a buffer
 * for a check that runs for every string the peer sends.
 */
public final class Utf8 {
  private Utf8() {}

  /**
   * The index of the first unpaired UTF-16 surrogate in {@code s}, or -1 when every surrogate is
   * half of a pair: then, and only then, the string has an exact UTF-8 encoding.
   */
  public static int unpairedSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }

  /** Whether {@code b[off, off + len)} is well-formed UTF-8 (the JDK's strict decoder's rules). */
  public static boolean isValid(byte[] b, int off, int len) {
    int i = off;
    int end = off + len;
    while (i < end) {
      int c = b[i] & 0xFF;
      if (c < 0x80) {
        i++;
        continue;
      }
      int n; // continuation bytes
      int lo = 0x80; // bounds of the first continuation byte
      int hi = 0xBF;
      if (c >= 0xC2 && c <= 0xDF) {
        n = 1;
      } else if (c >= 0xE0 && c <= 0xEF) {
        n = 2;
        if (c == 0xE0) {
          lo = 0xA0; // no overlong forms
        } else if (c == 0xED) {
          hi = 0x9F; // no surrogates
        }
      } else if (c >= 0xF0 && c <= 0xF4) {
        n = 3;
        if (c == 0xF0) {
          lo = 0x90;
        } else if (c == 0xF4) {
          hi = 0x8F; // nothing above U+10FFFF
        }
      } else {
        return false;
      }
      if (end - i <= n) {
        return false;
      }
      int c1 = b[i + 1] & 0xFF;
      if (c1 < lo || c1 > hi) {
        return false;
      }
      for (int k = 2; k <= n; k++) {
        if ((b[i + k] & 0xC0) != 0x80) {
          return false;
        }
      }
      i += n + 1;
    }
    return true;
  }
}
