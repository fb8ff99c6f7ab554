package io.psiflink.connectors.row;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The hand-written check against the JDK's strict decoder as the oracle. */
class Utf8Test {
  private static boolean jdk(byte[] b, int off, int len) {
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(b, off, len));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  @Test
  void agreesWithTheJdkOnRandomAndOnEdgeBytes() {
    SplittableRandom r = new SplittableRandom(17);
    byte[] edges = {
      0,
      0x7F,
      (byte) 0x80,
      (byte) 0xBF,
      (byte) 0xC0,
      (byte) 0xC1,
      (byte) 0xC2,
      (byte) 0xDF,
      (byte) 0xE0,
      (byte) 0xED,
      (byte) 0xEF,
      (byte) 0xF0,
      (byte) 0xF4,
      (byte) 0xF5,
      (byte) 0xFF,
      (byte) 0x9F,
      (byte) 0xA0,
      (byte) 0x8F,
      (byte) 0x90,
      'a'
    };
    for (int i = 0; i < 300_000; i++) {
      byte[] b = new byte[2 + r.nextInt(7)];
      for (int j = 0; j < b.length; j++) {
        b[j] = r.nextBoolean() ? edges[r.nextInt(edges.length)] : (byte) r.nextInt();
      }
      int off = r.nextInt(2);
      int len = r.nextInt(b.length - off + 1);
      assertEquals(jdk(b, off, len), Utf8.isValid(b, off, len), java.util.Arrays.toString(b));
    }
    for (String s : new String[] {"", "abc", "h\u00e9", "\u20ac", "\uD83D\uDE00", "\uFFFF"}) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      assertTrue(Utf8.isValid(b, 0, b.length), s);
    }
    assertFalse(
        Utf8.isValid(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, 0, 3)); // surrogate
    assertFalse(Utf8.isValid(new byte[] {(byte) 0xC0, (byte) 0x80}, 0, 2)); // overlong NUL
  }
}
