package io.psiflink.bridge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.bridge.proto.v1.Frame;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FramesTest {
  /** A frame as the receiver sees it: serialized, parsed, checked. */
  private static Frame wire(Frame f, int max) throws Frames.MalformedFrameException {
    Frames.Parsed p = Frames.parse(f.toByteArray());
    Frames.check(p, max);
    return p.frame();
  }

  @Test
  void roundTrips() throws Exception {
    Frame data = wire(Frames.data(new byte[] {9, 1, 2, 3, 9}, 1, 3), 3);
    assertEquals(Frame.KindCase.DATA, Frames.check(data, 3));
    assertArrayEquals(new byte[] {1, 2, 3}, Frames.dataPayload(data));

    Frame paired = wire(Frames.paired(7, "party-b"), 0);
    assertEquals(Frame.KindCase.PAIRED, paired.getKindCase());
    assertEquals(7, paired.getPaired().getAttempt());
    assertEquals("party-b", paired.getPaired().getPeerParty());

    assertEquals(Frame.KindCase.FINISH, wire(Frames.finish(), 0).getKindCase());

    Frame abort = wire(Frames.abort("bin 3 failed: é"), 0);
    assertEquals(Frame.KindCase.ABORT, abort.getKindCase());
    assertEquals("bin 3 failed: é", abort.getAbort().getReason());
  }

  /** A DATA frame's payload is read in place: the message array is not copied while parsing. */
  @Test
  void parsingAliasesTheMessage() {
    byte[] message = Frames.data(new byte[] {1, 2, 3}, 0, 3).toByteArray();
    Frame f = Frames.parse(message).frame();
    message[message.length - 1] = 7;
    assertEquals(7, f.getData().byteAt(2));
  }

  /** The wire form is protobuf's, as its encoding spec gives it (field 1, length-delimited). */
  @Test
  void dataFrameIsTheProtobufEncodingOfFieldOne() throws Exception {
    assertArrayEquals(
        new byte[] {0x0a, 3, 1, 2, 3}, Frames.data(new byte[] {1, 2, 3}, 0, 3).toByteArray());
    assertArrayEquals(new byte[] {0x0a, 0}, Frames.data(new byte[0], 0, 0).toByteArray());
    assertArrayEquals(new byte[] {0x1a, 0}, Frames.finish().toByteArray());
    // an empty DATA frame keeps its kind (oneof members have presence)
    assertEquals(Frame.KindCase.DATA, wire(Frames.data(new byte[0], 0, 0), 0).getKindCase());
  }

  @Test
  void longReasonsAreCutAtACharacterBoundary() throws Exception {
    String reason = "é".repeat(Frames.MAX_TEXT_BYTES); // 2 bytes each
    Frame abort = wire(Frames.abort(reason), 0);
    String cut = abort.getAbort().getReason();
    assertEquals(Frames.MAX_TEXT_BYTES / 2, cut.length());
    assertTrue(reason.startsWith(cut));
  }

  @Test
  void rejectsMalformedFrames() {
    assertProblem(new byte[0], 10, "empty frame");
    assertProblem(new byte[] {0}, 10, "not a psiflink.bridge.v1 frame");
    assertProblem(new byte[] {(byte) 0xff}, 10, "not a psiflink.bridge.v1 frame");
    assertProblem(new byte[] {0x0a, 5, 1}, 10, "not a psiflink.bridge.v1 frame"); // truncated
    assertProblem(new byte[] {0x7a, 0}, 10, "unknown frame kind (field [15])");
    assertProblem(
        Frames.data(new byte[11], 0, 11).toByteArray(), 10, "exceeds the limit of 10 bytes");
    assertProblem(new byte[] {0x1a, 2, 0x48, 1}, 10, "FINISH frame with unknown field(s) [9]");
    assertProblem(new byte[] {0x0a, 0, 0x48, 1}, 10, "DATA frame with unknown field(s) [9]");
    assertProblem(new byte[] {0x22, 3, 0x0a, 1, (byte) 0xc3}, 10, "invalid UTF-8");
    byte[] reason = new byte[Frames.MAX_TEXT_BYTES + 1];
    Arrays.fill(reason, (byte) 'x');
    Frame longAbort =
        Frame.newBuilder()
            .setAbort(
                io.psiflink.bridge.proto.v1.Abort.newBuilder()
                    .setReason(new String(reason, StandardCharsets.US_ASCII)))
            .build();
    assertProblem(longAbort.toByteArray(), 10, "ABORT reason of 1025 bytes");
    Frame longName =
        Frame.newBuilder()
            .setPaired(
                io.psiflink.bridge.proto.v1.Paired.newBuilder()
                    .setAttempt(1)
                    .setPeerParty(new String(reason, StandardCharsets.US_ASCII)))
            .build();
    assertProblem(longName.toByteArray(), 10, "PAIRED peer name of 1025 bytes");
    Frame negative =
        Frame.newBuilder()
            .setPaired(io.psiflink.bridge.proto.v1.Paired.newBuilder().setAttempt(-1))
            .build();
    assertProblem(negative.toByteArray(), 10, "PAIRED attempt 4294967295 is out of range");
  }

  private static void assertProblem(byte[] message, int max, String problem) {
    Frames.MalformedFrameException e =
        assertThrows(
            Frames.MalformedFrameException.class, () -> Frames.check(Frames.parse(message), max));
    assertTrue(e.getMessage().contains(problem), e.getMessage());
  }
}
