package io.psiflink.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class RoleTest {

  @Test
  void labelsRoundTrip() {
    for (Role r : new Role[] {Role.A, Role.B, Role.HELPER, Role.PROVIDER}) {
      assertEquals(r, Role.parse(r.label()));
    }
    for (int i = 0; i < 5; i++) {
      Role p = Role.party(i, 5);
      assertEquals("P" + (i + 1), p.label());
      assertEquals(p, Role.parse(p.label(), 5));
    }
  }

  @Test
  void twoPartyPeersAndTables() {
    assertEquals(Role.B, Role.A.peer());
    assertEquals(Role.A, Role.B.peer());
    assertEquals("a", Role.A.table());
    assertEquals("b", Role.B.table());
    assertEquals(Role.A, Role.parse(" a "));
  }

  @Test
  void serializedRolesComeBackAsThemselves() throws Exception {
    for (Role r : new Role[] {Role.A, Role.B, Role.HELPER, Role.PROVIDER}) {
      assertSame(r, roundTrip(r));
    }
    assertEquals(Role.party(2, 5), roundTrip(Role.party(2, 5)));
  }

  private static Object roundTrip(Object o) throws Exception {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(o);
    }
    try (java.io.ObjectInputStream in =
        new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
      return in.readObject();
    }
  }

  @Test
  void twoPartyRolesAreAOrB() {
    assertEquals(Role.A, Role.twoParty("a"));
    assertEquals(Role.B, Role.twoParty("B"));
    for (String t : new String[] {"helper", "provider", "C", "P1", ""}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> Role.twoParty(t));
      assertEquals("must be A or B, not '" + t + "'", e.getMessage());
    }
  }

  @Test
  void refusesWhatIsNotARole() {
    assertThrows(IllegalArgumentException.class, () -> Role.parse("C"));
    assertThrows(IllegalArgumentException.class, () -> Role.parse("P3"));
    assertThrows(IllegalArgumentException.class, () -> Role.parse("P0", 3));
    assertThrows(IllegalArgumentException.class, () -> Role.parse("P4", 3));
    assertThrows(IllegalArgumentException.class, () -> Role.party(2, 2));
    assertThrows(IllegalStateException.class, () -> Role.HELPER.peer());
    assertThrows(IllegalStateException.class, () -> Role.party(0, 3).peer());
  }
}
