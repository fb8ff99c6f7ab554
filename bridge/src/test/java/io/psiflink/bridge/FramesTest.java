package io.psiflink.bridge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FramesTest {
  @Test
  void roundTrips() throws Exception {
    byte[] data = Frames.data(new byte[] {9, 1, 2, 3, 9}, 1, 3);
    assertEquals(Frames.DATA, Frames.check(data, 3));
    assertArrayEquals(new byte[] {1, 2, 3}, Frames.dataPayload(data));

    byte[] paired = Frames.paired(7, "party-b");
    assertEquals(Frames.PAIRED, Frames.check(paired, 0));
    assertEquals(7, Frames.pairedAttempt(paired));
    assertEquals("party-b", Frames.pairedPeer(paired));

    assertEquals(Frames.FINISH, Frames.check(Frames.finish(), 0));

    byte[] abort = Frames.abort("bin 3 failed: é");
    assertEquals(Frames.ABORT, Frames.check(abort, 0));
    assertEquals("bin 3 failed: é", Frames.abortReason(abort));
  }

  @Test
  void longReasonsAreCutAtACharacterBoundary() throws Exception {
    String reason = "é".repeat(Frames.MAX_TEXT_BYTES); // 2 bytes each
    byte[] abort = Frames.abort(reason);
    Frames.check(abort, 0);
    String cut = Frames.abortReason(abort);
    assertEquals(Frames.MAX_TEXT_BYTES / 2, cut.length());
    assertTrue(reason.startsWith(cut));
  }

  @Test
  void rejectsMalformedFrames() {
    assertProblem(new byte[0], 10, "empty frame");
    assertProblem(new byte[] {0}, 10, "unknown frame type 0x00");
    assertProblem(new byte[] {(byte) 0xff}, 10, "unknown frame type 0xff");
    assertProblem(Frames.data(new byte[11], 0, 11), 10, "exceeds the limit of 10 bytes");
    assertProblem(new byte[] {Frames.FINISH, 0}, 10, "FINISH frame with a body");
    assertProblem(new byte[] {Frames.PAIRED, 0, 0}, 10, "PAIRED frame with a body of 2 bytes");
    assertProblem(new byte[] {Frames.ABORT, (byte) 0xc3}, 10, "ABORT reason is not valid UTF-8");
    byte[] longAbort = new byte[2 + Frames.MAX_TEXT_BYTES];
    longAbort[0] = Frames.ABORT;
    java.util.Arrays.fill(longAbort, 1, longAbort.length, (byte) 'x');
    assertProblem(longAbort, 10, "ABORT reason of");
    assertEquals("x".repeat(3), new String(new byte[] {'x', 'x', 'x'}, StandardCharsets.US_ASCII));
  }

  private static void assertProblem(byte[] frame, int max, String problem) {
    Frames.MalformedFrameException e = assertThrows(Frames.MalformedFrameException.class, () -> Frames.check(frame, max));
    assertTrue(e.getMessage().contains(problem), e.getMessage());
  }
}
