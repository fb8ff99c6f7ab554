package io.psiflink.bridge;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A cursor over DER content octets: definite lengths only, every length checked against its
 * container; {@link IllegalArgumentException} for anything else.
 */
final class DerReader {
  private final byte[] b;
  private final int tagAt; // where this element's tag is (its contents follow the header)
  private final int start;
  private final int end;
  private int pos;

  private DerReader(byte[] b, int tagAt, int start, int end) {
    this.b = b;
    this.tagAt = tagAt;
    this.start = start;
    this.end = end;
    this.pos = start;
  }

  /** The whole of {@code der}, as the contents of an element around it. */
  static DerReader of(byte[] der) {
    return new DerReader(der, 0, 0, der.length);
  }

  boolean more() {
    return pos < end;
  }

  int peekTag() {
    if (pos >= end) {
      throw new IllegalArgumentException("truncated DER");
    }
    return b[pos] & 0xff;
  }

  /** The contents of the next element, which must have tag {@code tag}. */
  DerReader enter(int tag) {
    if (peekTag() != tag || (tag & 0x1f) == 0x1f) {
      throw new IllegalArgumentException("unexpected DER tag " + peekTag());
    }
    int tagAt = pos++;
    if (pos >= end) {
      throw new IllegalArgumentException("truncated DER");
    }
    int first = b[pos++] & 0xff;
    long length = first;
    if (first >= 0x80) {
      int n = first & 0x7f;
      if (n == 0 || n > 3 || end - pos < n) {
        throw new IllegalArgumentException("unsupported DER length");
      }
      length = 0;
      for (int i = 0; i < n; i++) {
        length = (length << 8) | (b[pos++] & 0xff);
      }
    }
    if (length > end - pos) {
      throw new IllegalArgumentException("DER length beyond its container");
    }
    DerReader inner = new DerReader(b, tagAt, pos, pos + (int) length);
    pos += (int) length;
    return inner;
  }

  /** A copy of this element's contents. */
  byte[] contents() {
    return Arrays.copyOfRange(b, start, end);
  }

  boolean is(byte[] content) {
    return Arrays.equals(b, start, end, content, 0, content.length);
  }

  /** A string value by its ASN.1 type; any other type as "#" and its DER in hex. */
  String string(int tag) {
    return switch (tag) {
      case 0x0c -> new String(b, start, end - start, StandardCharsets.UTF_8);
      case 0x12, 0x13, 0x14, 0x16, 0x1a -> // Numeric, Printable, T61, IA5, Visible
          new String(b, start, end - start, StandardCharsets.ISO_8859_1);
      case 0x1e -> new String(b, start, end - start, StandardCharsets.UTF_16BE); // BMPString
      case 0x1c -> new String(b, start, end - start, Charset.forName("UTF-32BE")); // Universal
      default -> "#" + HexFormat.of().formatHex(b, tagAt, end);
    };
  }
}
