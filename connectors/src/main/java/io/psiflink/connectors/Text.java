package io.psiflink.connectors;

import java.nio.charset.StandardCharsets;

/** Small text helpers. */
final class Text {
  private Text() {}

  /** {@code s} cut to at most {@code maxBytes} UTF-8 bytes, on a character boundary. */
  static String truncateUtf8(String s, int maxBytes) {
    if (s.length() * 3L <= maxBytes) {
      return s;
    }
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    if (b.length <= maxBytes) {
      return s;
    }
    int n = maxBytes;
    while (n > 0 && (b[n] & 0xC0) == 0x80) {
      n--;
    }
    return new String(b, 0, n, StandardCharsets.UTF_8);
  }
}
