package io.psiflink.jobs.row;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Checks UTF-8 without building a String: ASCII in a tight loop, the rest by the JDK's decoder. */
final class Utf8 {
  private Utf8() {}

  static boolean isValid(byte[] b, int off, int len) {
    int i = off;
    int end = off + len;
    while (i < end && b[i] >= 0) {
      i++;
    }
    if (i == end) {
      return true;
    }
    try {
      StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(b, i, end - i));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }
}
