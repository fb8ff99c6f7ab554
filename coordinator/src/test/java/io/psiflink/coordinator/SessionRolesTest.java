package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.psiflink.api.Role;
import io.psiflink.coordinator.Model.SessionRecord;
import org.junit.jupiter.api.Test;

/** A session's parties, endpoints and fingerprints by role, and the query form's tables. */
class SessionRolesTest {
  private static final SessionRecord S =
      new SessionRecord(
          "s",
          "q",
          "alice",
          "bob",
          0,
          40,
          "kkrt",
          io.psiflink.api.JoinMode.BOTH,
          null,
          Model.Prefiltering.NONE,
          "alice.example:7443",
          "fa",
          "bob.example:7443",
          "fb",
          0L);

  @Test
  void eachRoleHasItsOwnColumns() {
    assertEquals("alice", S.party(Role.A));
    assertEquals("bob", S.party(Role.B));
    assertEquals("alice.example:7443", S.endpoint(Role.A));
    assertEquals("bob.example:7443", S.endpoint(Role.B));
    assertEquals("fa", S.fingerprint(Role.A));
    assertEquals("fb", S.fingerprint(Role.B));
    // a two-party session has no helper or provider
    assertThrows(IllegalStateException.class, () -> S.party(Role.HELPER));
    assertThrows(IllegalStateException.class, () -> S.endpoint(Role.party(0, 3)));
  }

  @Test
  void tablesAreTheRolesQualifiers() {
    assertEquals(Role.A, Roles.ofTable("a"));
    assertEquals(Role.B, Roles.ofTable("b"));
    assertNull(Roles.ofTable("A"));
    assertNull(Roles.ofTable("c"));
  }
}
