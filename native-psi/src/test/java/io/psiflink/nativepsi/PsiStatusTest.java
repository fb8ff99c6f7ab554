package io.psiflink.nativepsi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The Java enums mirror the C header; the names are checked against the library itself. */
class PsiStatusTest {

  @Test
  void codesRoundTrip() {
    for (PsiStatus s : PsiStatus.values()) {
      assertEquals(s, PsiStatus.fromCode(s.code()));
      assertEquals(s.ordinal(), s.code());
    }
    assertThrows(IllegalArgumentException.class, () -> PsiStatus.fromCode(8));
    assertThrows(IllegalArgumentException.class, () -> PsiStatus.fromCode(-1));
  }

  @Test
  void namesMatchTheNativeLibrary() {
    for (PsiStatus s : PsiStatus.values()) {
      assertEquals(s.nativeName(), PsiNative.psi_status_name(s.code()));
    }
  }

  @Test
  void enumCodesMatchTheHeader() {
    assertEquals(0, PsiRole.RECEIVER.code());
    assertEquals(1, PsiRole.SENDER.code());
    assertEquals(2, PsiRole.HELPER.code());
    assertEquals(0, PsiPhase.SETUP.code());
    assertEquals(1, PsiPhase.ONLINE.code());
  }

  @Test
  void libraryReportsAVersion() {
    assertFalse(PsiSession.libraryVersion().isBlank());
  }

  @Test
  void exceptionMessageNamesStatusThenNativeText() {
    PsiException e =
        new PsiException(
            PsiStatus.PEER_MESSAGE, "kkrt online round 1: expected 8388608 bytes, got 12");
    assertEquals(
        "PSI_ERR_PEER_MESSAGE: kkrt online round 1: expected 8388608 bytes, got 12",
        e.getMessage());
    assertEquals("PSI_ERR_STATE", new PsiException(PsiStatus.STATE, "").getMessage());
  }
}
