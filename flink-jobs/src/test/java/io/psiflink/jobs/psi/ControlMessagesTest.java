package io.psiflink.jobs.psi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
import io.psiflink.jobs.control.v1.BinHello;
import io.psiflink.jobs.control.v1.Done;
import io.psiflink.jobs.control.v1.PayloadEnd;
import io.psiflink.jobs.control.v1.RoleId;
import io.psiflink.jobs.control.v1.SessionHello;
import org.junit.jupiter.api.Test;

/**
 * The control messages' wire form, checked against protobuf's encoding written out by hand (an
 * oracle independent of the generated code), and their checks on arrival.
 */
class ControlMessagesTest {
  @Test
  void frameTypesKeepTheirBytes() {
    // the type bytes of the frames before control.proto: the wire of PSI/PAYLOAD is unchanged
    assertEquals(1, Frames.HELLO);
    assertEquals(2, Frames.PSI);
    assertEquals(3, Frames.PAYLOAD);
    assertEquals(4, Frames.PAYLOAD_END);
    assertEquals(5, Frames.DONE);
    assertEquals(6, Frames.REVEAL);
    assertEquals("PAYLOAD_END", Frames.name(Frames.PAYLOAD_END));
    assertEquals("unknown frame type 9", Frames.name((byte) 9));
  }

  @Test
  void payloadEndIsTwoVarints() throws Exception {
    byte[] frame =
        Frames.of(Frames.PAYLOAD_END, PayloadEnd.newBuilder().setKeys(3).setRows(300).build());
    // type 4, field 1 varint 3, field 2 varint 300 (0xac 0x02)
    assertArrayEquals(new byte[] {4, 0x08, 3, 0x10, (byte) 0xac, 0x02}, frame);
    PayloadEnd end =
        ControlMessages.parse(
            PayloadEnd.parser(),
            Frames.body(frame, Frames.PAYLOAD_END, "test"),
            "the peer's PAYLOAD_END");
    assertEquals(3, end.getKeys());
    assertEquals(300, end.getRows());
    assertArrayEquals(new byte[] {5}, Frames.of(Frames.DONE, Done.getDefaultInstance()));
  }

  @Test
  void rolesRoundTripAndAreChecked() throws Exception {
    for (Role r : new Role[] {Role.A, Role.B, Role.HELPER, Role.PROVIDER, Role.party(2, 5)}) {
      assertEquals(r, ControlMessages.role(ControlMessages.roleId(r), "x"));
    }
    // B: kind PARTY (1), index 1, parties 2
    assertArrayEquals(
        new byte[] {0x08, 1, 0x10, 1, 0x18, 2}, ControlMessages.roleId(Role.B).toByteArray());
    assertProblem(
        () -> ControlMessages.role(RoleId.newBuilder().setKindValue(7).build(), "the HELLO"),
        "the HELLO names no known role kind (7)");
    assertProblem(
        () -> ControlMessages.role(RoleId.getDefaultInstance(), "the HELLO"),
        "no known role kind (0)");
    assertProblem(
        () ->
            ControlMessages.role(
                RoleId.newBuilder().setKind(RoleId.Kind.PARTY).setIndex(2).setParties(2).build(),
                "the HELLO"),
        "names no valid role");
    assertProblem(
        () ->
            ControlMessages.role(
                RoleId.newBuilder().setKind(RoleId.Kind.PARTY).setIndex(-1).setParties(2).build(),
                "the HELLO"),
        "names no valid role");
  }

  @Test
  void unknownFieldsAreRefusedAtAnyDepth() {
    // BinHello with field 15 (varint 1): a later version
    assertProblem(
        () ->
            ControlMessages.parse(
                BinHello.parser(), new byte[] {0x10, 3, 0x78, 1}, "the peer's HELLO"),
        "the peer's HELLO has fields [15] that psiflink.control.v1.BinHello does not know");
    // BinHello whose role (field 1) holds field 9
    assertProblem(
        () ->
            ControlMessages.parse(
                BinHello.parser(), new byte[] {0x0a, 2, 0x48, 1}, "the peer's HELLO"),
        "psiflink.control.v1.RoleId does not know");
    // SessionHello whose second key column (field 8) holds field 5
    assertProblem(
        () ->
            ControlMessages.parse(
                SessionHello.parser(),
                new byte[] {0x42, 3, 0x0a, 1, 'k', 0x42, 2, 0x28, 1},
                "the peer's HELLO"),
        "psiflink.control.v1.Column does not know");
  }

  @Test
  void bytesThatAreNoMessageAreMalformed() {
    assertProblem(
        () -> ControlMessages.parse(BinHello.parser(), new byte[] {0x0a, 5, 1}, "the peer's HELLO"),
        "the peer's HELLO is malformed");
    assertProblem(
        () ->
            ControlMessages.parse(BinHello.parser(), new byte[] {(byte) 0xff}, "the peer's HELLO"),
        "the peer's HELLO is malformed");
    // a string that is not UTF-8 (proto3 strings must be)
    assertProblem(
        () ->
            ControlMessages.parse(
                SessionHello.parser(), new byte[] {0x12, 1, (byte) 0xc3}, "the peer's HELLO"),
        "the peer's HELLO is malformed");
  }

  private interface Call {
    void run() throws Exception;
  }

  private static void assertProblem(Call call, String problem) {
    PeerProtocolException e = assertThrows(PeerProtocolException.class, call::run);
    assertTrue(e.getMessage().contains(problem), e.getMessage());
  }
}
