package io.psiflink.jobs.psi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.JoinMode;
import io.psiflink.api.Role;
import io.psiflink.nativepsi.ProtocolInfo;
import io.psiflink.nativepsi.PsiParams;
import io.psiflink.nativepsi.PsiRole;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The job's protocol selection and role mapping, from the library's descriptions. */
class ProtocolChoiceTest {

  @Test
  void everyListedProtocolIsSelectableForAJoin() {
    for (ProtocolInfo p : ProtocolInfo.all()) {
      assertEquals(p, ProtocolChoice.check(p.name(), false, JoinMode.BOTH, true));
    }
  }

  @Test
  void countOnlyNeedsACardinalityOutputAndNamesTheProtocolsThatHaveOne() {
    assertEquals("ecdh", ProtocolChoice.check("ecdh", true, JoinMode.BOTH, true).name());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ProtocolChoice.check("kkrt", true, JoinMode.BOTH, true));
    assertEquals(
        "SELECT COUNT(DISTINCT ...) needs a protocol that can reveal only the count "
            + "(--protocol ecdh): kkrt offers output receiver/both/labels",
        e.getMessage());
  }

  @Test
  void anUnknownProtocolNamesTheKnownOnes() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ProtocolChoice.check("rsa", false, JoinMode.BOTH, true));
    assertEquals("unknown protocol 'rsa' (known: rr22, kkrt, ecdh)", e.getMessage());
  }

  @Test
  void outputModes() {
    assertEquals(PsiParams.Output.CARDINALITY, ProtocolChoice.output(true, JoinMode.BOTH, true));
    assertEquals(PsiParams.Output.BOTH, ProtocolChoice.output(false, JoinMode.BOTH, true));
    assertEquals(PsiParams.Output.LABELS, ProtocolChoice.output(false, JoinMode.LABELED, true));
    // a labeled semi- or anti-join: no column of B to carry, only A learns the matches
    assertEquals(PsiParams.Output.RECEIVER, ProtocolChoice.output(false, JoinMode.LABELED, false));
    assertEquals(PsiParams.Output.CARDINALITY, ProtocolChoice.output(true, JoinMode.LABELED, true));
  }

  @Test
  void partyAIsTheReceiverAndPartyBTheSenderOfEveryTwoPartyProtocol() {
    for (ProtocolInfo p : ProtocolInfo.all()) {
      assertEquals(PsiRole.RECEIVER, ProtocolRoles.of(Role.A, p), p.name());
      assertEquals(PsiRole.SENDER, ProtocolRoles.of(Role.B, p), p.name());
    }
  }

  @Test
  void rolesAProtocolDoesNotHaveAreRefused() {
    ProtocolInfo kkrt = ProtocolInfo.byName("kkrt");
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> ProtocolRoles.of(Role.HELPER, kkrt))
            .getMessage()
            .contains("no role for the helper"));
    assertThrows(IllegalArgumentException.class, () -> ProtocolRoles.of(Role.PROVIDER, kkrt));
    assertEquals(
        "protocol kkrt is for 2 parties, not 3 (role P1)",
        assertThrows(IllegalArgumentException.class, () -> ProtocolRoles.of(Role.party(0, 3), kkrt))
            .getMessage());
  }

  @Test
  void aHelperProtocolMapsTheHelper() {
    // a description as a future server-aided protocol would give it: the mapping needs no edit
    ProtocolInfo aided =
        new ProtocolInfo(
            "aided",
            "",
            3,
            List.of(PsiRole.RECEIVER, PsiRole.SENDER, PsiRole.HELPER),
            java.util.Set.of(PsiParams.Output.BOTH),
            PsiParams.Output.BOTH,
            false,
            false,
            16,
            16,
            1L << 20,
            List.of());
    assertEquals(PsiRole.HELPER, ProtocolRoles.of(Role.HELPER, aided));
    assertEquals(PsiRole.RECEIVER, ProtocolRoles.of(Role.A, aided));
    assertEquals(PsiRole.SENDER, ProtocolRoles.of(Role.B, aided));
  }
}
