package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.coordinator.CoordinatorConfig.Provider;
import io.psiflink.coordinator.Model.Direction;
import io.psiflink.coordinator.Model.GroupMember;
import io.psiflink.coordinator.Model.GroupQueryRecord;
import io.psiflink.coordinator.Model.GroupSessionRecord;
import io.psiflink.coordinator.Model.QueryStatus;
import io.psiflink.coordinator.Tokens.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The configuration of n-party joins: {@code peers} and {@code providers} read as written, every
 * name one organisation's, peer tokens labelled with the organisation they were issued to, and the
 * relay admitting every party and the provider (pinned, and per session as the session names them).
 */
class GroupConfigTest {
  @TempDir Path dir;

  static final String PIN = "ab".repeat(32);

  CoordinatorConfig load(String extra) throws Exception {
    Path f = dir.resolve("c.yaml");
    Files.writeString(f, HelperConfigTest.BASE + extra);
    return CoordinatorConfig.load(f);
  }

  IllegalArgumentException refused(String extra) {
    return assertThrows(
        IllegalArgumentException.class, () -> ConfigAndTokensTest.unwrap(() -> load(extra)));
  }

  @Test
  void peersAndProvidersAreReadWithPathsRelativeToTheFile() throws Exception {
    CoordinatorConfig c =
        load(
            "peers:\n"
                + "  - {name: carol, url: \"https://carol:8443\", tokenFile: carol-token,"
                + " jobCa: carol-ca.pem}\n"
                + "  - {name: dave, url: \"https://dave:8443\", tokenFile: dave-token}\n"
                + "providers:\n"
                + "  - {name: olivia, certSha256: \""
                + PIN.toUpperCase()
                + "\", description: \" Olivia plc \"}\n");
    assertEquals(
        List.of("bob", "carol", "dave"),
        c.organisations().stream().map(CoordinatorConfig.Peer::name).toList());
    assertEquals(dir.resolve("carol-token"), c.organisation("carol").orElseThrow().tokenFile());
    assertEquals(dir.resolve("carol-ca.pem"), c.organisation("carol").orElseThrow().jobCa());
    assertNull(c.organisation("dave").orElseThrow().jobCa());
    assertTrue(c.organisation("olivia").isEmpty());
    assertEquals(List.of(new Provider("olivia", PIN, "Olivia plc")), c.providers());
    // none: a two-party coordinator, as before
    assertEquals(List.of(), load("").peers());
    assertEquals(List.of(), load("").providers());
  }

  @Test
  void everyNameIsOneOrganisationsAndABadEntryIsNamed() {
    String pin = "cd".repeat(32);
    assertTrue(
        refused("peers: [{name: bob, url: \"https://b\", tokenFile: t}]\n")
            .getMessage()
            .contains("peers: bob is this party, the peer, or listed twice"));
    assertTrue(
        refused("peers: [{name: carol, url: \"https://c\"}]\n")
            .getMessage()
            .contains("peers: carol: tokenFile"));
    assertTrue(
        refused("providers: [{name: olivia, certSha256: abc}]\n")
            .getMessage()
            .contains("config: providers: olivia: certSha256"));
    assertTrue(
        refused("providers: [{name: bob, certSha256: " + pin + "}]\n")
            .getMessage()
            .contains("bob is a party of this coordinator, not a provider"));
    assertTrue(
        refused(
                "helpers: [{name: olivia, certSha256: "
                    + pin
                    + "}]\nproviders: [{name: olivia, certSha256: "
                    + pin
                    + "}]\n")
            .getMessage()
            .contains("olivia is a helper too"));
    assertThrows(
        Exception.class,
        () -> load("providers: [{name: olivia, certSha256: " + pin + ", pin: " + pin + "}]\n"));
  }

  @Test
  void withPeersEveryPeerTokenNamesItsOrganisation() {
    Tokens ok =
        Tokens.parse(
            List.of(
                Tokens.line(Tokens.newToken(), Kind.PARTY, "alice-analyst"),
                Tokens.line(Tokens.newToken(), Kind.PEER, "bob"),
                Tokens.line(Tokens.newToken(), Kind.PEER, "carol")),
            "tokens");
    ok.requirePeerLabels(Set.of("bob", "carol"), "tokens");
    Tokens bad =
        Tokens.parse(
            List.of(Tokens.line(Tokens.newToken(), Kind.PEER, "bob-coordinator")), "tokens");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> bad.requirePeerLabels(Set.of("bob", "carol"), "tokens"));
    assertTrue(e.getMessage().contains("'bob-coordinator' names no organisation"), e.getMessage());
  }

  @Test
  void theRelayAdmitsEveryPartyAndTheProviderAsTheSessionNamesThem() throws Exception {
    Path pki = dir.resolve("pki");
    io.psiflink.bridge.ThrowawayPki.create(pki, "alice", "relay", "olivia");
    Files.writeString(dir.resolve("tokens"), "");
    String relay =
        "bridge: {endpoint: \"alice:7443\", certificate: pki/alice.pem, relay: {listen:"
            + " \"127.0.0.1:0\", certificate: pki/relay.pem, privateKey: pki/relay.key,"
            + " trustedCa: pki/ca.pem}}\n";
    String yaml =
        HelperConfigTest.BASE.replace(
                "bridge: {endpoint: \"alice:7443\", certificate: a.pem}\n", relay)
            + "peers: [{name: carol, url: \"https://carol:8443\", tokenFile: t, jobCa:"
            + " pki/ca.pem}]\n"
            + "providers: [{name: olivia, certSha256: "
            + Tls.fingerprint(pki.resolve("olivia.pem"))
            + "}]\n";
    Path f = dir.resolve("relay.yaml");
    Files.writeString(f, yaml);
    CoordinatorConfig c = CoordinatorConfig.load(f);
    assertEquals(Set.of("alice", "bob", "carol", "olivia"), CoordinatorServer.allowedParties(c));
    var trust = CoordinatorServer.relayTrust(c);
    assertEquals(Set.of("alice", "bob", "carol", "olivia"), trust.keySet());
    trust.get("olivia").check(RelayTrustTest.leaf(pki.resolve("olivia.pem")));
    assertThrows(
        io.psiflink.bridge.BridgeException.class,
        () -> trust.get("olivia").check(RelayTrustTest.leaf(pki.resolve("alice.pem"))));

    // an n-party session pins each party to the certificate the session names, the provider to
    // the query's pin; other names and sessions get none
    Db db = new Db("jdbc:sqlite:" + dir.resolve("pins.db"), null, null);
    db.migrate();
    String qid = UUID.randomUUID().toString();
    String sid = UUID.randomUUID().toString();
    List<GroupMember> members =
        List.of(
            new GroupMember("alice", "a", "01".repeat(32)),
            new GroupMember("bob", "b", "02".repeat(32)),
            new GroupMember("carol", "c", "03".repeat(32)));
    db.tx(
        x -> {
          GroupStore.insertQuery(
              x,
              new GroupQueryRecord(
                  qid,
                  Direction.OUTGOING,
                  "alice",
                  0,
                  "SELECT 1",
                  "f",
                  2,
                  40,
                  "olivia",
                  "04".repeat(32),
                  members,
                  "alice:7443",
                  QueryStatus.APPROVED,
                  null,
                  1,
                  2,
                  null,
                  null),
              null);
          GroupStore.insertSession(x, new GroupSessionRecord(sid, qid, "alice:7443", members, 3));
          return null;
        });
    var pins = CoordinatorServer.sessionPins(db);
    assertEquals("02".repeat(32), pins.pin(sid, "bob"));
    assertEquals("03".repeat(32), pins.pin(sid, "carol"));
    assertEquals("04".repeat(32), pins.pin(sid, "olivia"));
    assertEquals(io.psiflink.bridge.SessionPins.NOT_IN_SESSION, pins.pin(sid, "mallory"));
    assertNull(pins.pin(UUID.randomUUID().toString(), "bob"));
  }
}
