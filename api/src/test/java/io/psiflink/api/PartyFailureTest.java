package io.psiflink.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class PartyFailureTest {
  @Test
  void theReasonIsReadBackAsPrintedEvenWhenItSaysFailedItself() {
    String reason = "bin 1 failed after 3 attempt(s): peer 'party-b' disconnected";
    assertEquals("psi party A failed: " + reason, PartyFailure.line("A", reason));
    assertEquals(reason, PartyFailure.reason(PartyFailure.line("A", reason)));
    assertEquals(reason, PartyFailure.reason(PartyFailure.line("P3", reason)));
  }

  @Test
  void aRefusedCommandLineHasNoParty() {
    assertEquals(
        "psi party: --table is required", PartyFailure.commandLineLine("--table is required"));
    assertEquals("--table is required", PartyFailure.reason("psi party: --table is required"));
  }

  @Test
  void otherLinesHaveNoReason() {
    assertNull(PartyFailure.reason("party A: 4 bins (0 retried), 10 intersecting keys"));
    assertNull(PartyFailure.reason("15:01:25 INFO psi party A failed: not at the start"));
    assertNull(PartyFailure.reason("psi party A done"));
  }
}
