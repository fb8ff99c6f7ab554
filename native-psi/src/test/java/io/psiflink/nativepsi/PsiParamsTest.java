package io.psiflink.nativepsi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Pure-Java checks of the parameter format; no native library needed. */
class PsiParamsTest {

  @Test
  void rendersInInsertionOrder() {
    PsiParams p =
        PsiParams.builder()
            .receiverSize(4096)
            .senderSize(100)
            .instance(17)
            .output(PsiParams.Output.BOTH)
            .with("x", "y")
            .build();
    assertEquals("receiver_size=4096,sender_size=100,instance=17,output=both,x=y", p.toString());
    assertEquals(Optional.of("both"), p.get("output"));
    assertEquals(Optional.empty(), p.get("missing"));
  }

  @Test
  void laterValueReplacesEarlier() {
    PsiParams p = PsiParams.builder().instance(1).receiverSize(5).instance(2).build();
    assertEquals("instance=2,receiver_size=5", p.toString());
  }

  @Test
  void instanceIsUnsigned64() {
    assertEquals(
        "instance=18446744073709551615", PsiParams.builder().instance(-1L).build().toString());
  }

  @Test
  void instanceOf32BytesIs64LowercaseHexDigits() {
    byte[] inst = new byte[32];
    for (int i = 0; i < 32; i++) {
      inst[i] = (byte) (0xA0 + i); // high bit set: no sign trouble
    }
    String hex = PsiParams.builder().instance(inst).build().get(PsiParams.INSTANCE).orElseThrow();
    // independent oracle: two hex digits per byte, byte 0 first
    StringBuilder want = new StringBuilder();
    for (byte b : inst) {
      want.append(String.format("%02x", b & 0xff));
    }
    assertEquals(want.toString(), hex);
    assertEquals(64, hex.length());
    inst[0] = 0; // the builder copied the array
    assertEquals(
        want.toString(), PsiParams.parse("instance=" + hex).get(PsiParams.INSTANCE).orElseThrow());
  }

  @Test
  void instanceOfAnyOtherLengthIsRefused() {
    for (int len : new int[] {0, 8, 16, 31, 33, 64}) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> PsiParams.builder().instance(new byte[len]));
      assertTrue(e.getMessage().contains("32 bytes"), e.getMessage());
    }
    assertThrows(NullPointerException.class, () -> PsiParams.builder().instance((byte[]) null));
  }

  @Test
  void emptyRendersEmpty() {
    assertEquals("", PsiParams.empty().toString());
    assertEquals(PsiParams.empty(), PsiParams.builder().build());
    assertEquals(PsiParams.empty(), PsiParams.parse(""));
  }

  @Test
  void parseRoundTrips() {
    PsiParams p =
        PsiParams.builder()
            .receiverSize(3)
            .senderSize(4)
            .instance(5)
            .output(PsiParams.Output.RECEIVER)
            .build();
    assertEquals(p, PsiParams.parse(p.toString()));
    assertEquals(p.toString(), PsiParams.parse(p.toString()).toString());
  }

  @Test
  void rejectsSeparatorsWhitespaceAndEmpties() {
    for (String bad : List.of("a,b", "a=b", "a b", "", "a\tb", "a\0b")) {
      assertThrows(
          IllegalArgumentException.class,
          () -> PsiParams.builder().with(bad, "v"),
          "key \"" + bad + "\"");
      assertThrows(
          IllegalArgumentException.class,
          () -> PsiParams.builder().with("k", bad),
          "value \"" + bad + "\"");
    }
    assertThrows(NullPointerException.class, () -> PsiParams.builder().with("k", null));
    assertThrows(IllegalArgumentException.class, () -> PsiParams.builder().receiverSize(-1));
    for (String bad : List.of("a", "a=1,", "a=1,a=2", "=1", "a=")) {
      assertThrows(IllegalArgumentException.class, () -> PsiParams.parse(bad), bad);
    }
  }

  @Test
  void builtParamsAreImmutable() {
    PsiParams.Builder b = PsiParams.builder().instance(1);
    PsiParams p = b.build();
    b.instance(2);
    assertEquals("instance=1", p.toString());
    assertThrows(UnsupportedOperationException.class, () -> p.asMap().put("x", "y"));
    assertTrue(p.toBuilder().instance(3).build().toString().endsWith("=3"));
    assertEquals("instance=1", p.toString());
  }
}
