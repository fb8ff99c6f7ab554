package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertThrows;

import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.PartyTrust;
import io.psiflink.bridge.ThrowawayPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay alice's coordinator runs: her jobs only with her pinned job certificate (or her CA),
 * bob's only from bob's CA, although both CAs are trusted by TLS. Each CA's forgery of the other's
 * name is refused (the relay's interceptor applies these, bridge's PartyTrustTest).
 */
class RelayTrustTest {
  @TempDir Path dir;

  static X509Certificate leaf(Path pem) throws Exception {
    try (var in = Files.newInputStream(pem)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  CoordinatorConfig config(Path aliceDir, Path bothCas, Path partyCa, Path peerCa) {
    return new CoordinatorConfig(
        "alice",
        new CoordinatorConfig.Listen("127.0.0.1", 0),
        new CoordinatorConfig.Tls(
            aliceDir.resolve("alice.pem"), aliceDir.resolve("alice.key"), bothCas),
        null,
        dir.resolve("tokens"),
        new CoordinatorConfig.Peer("bob", "https://bob", dir),
        new CoordinatorConfig.Bridge(
            "127.0.0.1:7443",
            aliceDir.resolve("alice.pem"),
            new CoordinatorConfig.Relay(
                "127.0.0.1:7443",
                aliceDir.resolve("relay.pem"),
                aliceDir.resolve("relay.key"),
                bothCas,
                Duration.ofSeconds(5),
                partyCa,
                peerCa)),
        null,
        null,
        null,
        null);
  }

  @Test
  void theRelaysPinsAreTheCertificatesTheSessionNames() throws Exception {
    Db db = new Db("jdbc:sqlite:" + dir.resolve("pins.db"), null, null);
    db.migrate();
    String sid = java.util.UUID.randomUUID().toString();
    String qid = java.util.UUID.randomUUID().toString();
    db.tx(
        c -> {
          Store.insertQuery(
              c,
              new Model.QueryRecord(
                  qid,
                  Model.Direction.INCOMING,
                  "bob",
                  "alice",
                  io.psiflink.api.Role.A,
                  "p",
                  "c",
                  "SELECT a.x FROM a JOIN b ON a.k = b.k",
                  "fp",
                  0,
                  40,
                  "kkrt",
                  io.psiflink.api.JoinMode.BOTH,
                  null,
                  Model.Prefiltering.NONE,
                  "bob.example:7443",
                  "bb".repeat(32),
                  Model.QueryStatus.APPROVED,
                  null,
                  0,
                  1,
                  0L,
                  null));
          Store.insertSession(
              c,
              new Model.SessionRecord(
                  sid,
                  qid,
                  "alice",
                  "bob",
                  0,
                  40,
                  "kkrt",
                  io.psiflink.api.JoinMode.BOTH,
                  null,
                  Model.Prefiltering.NONE,
                  "alice.example:7443",
                  "aa".repeat(32),
                  "bob.example:7443",
                  "bb".repeat(32),
                  0L));
          return null;
        });
    var pins = CoordinatorServer.sessionPins(db);
    org.junit.jupiter.api.Assertions.assertEquals("aa".repeat(32), pins.pin(sid, "alice"));
    org.junit.jupiter.api.Assertions.assertEquals("bb".repeat(32), pins.pin(sid, "bob"));
    org.junit.jupiter.api.Assertions.assertNull(
        pins.pin(java.util.UUID.randomUUID().toString(), "bob"));
    org.junit.jupiter.api.Assertions.assertNull(pins.pin("../x", "bob"));
  }

  @Test
  void eachPartyIsTiedToItsOwnCaOrPin() throws Exception {
    Path a = dir.resolve("a");
    Path b = dir.resolve("b");
    ThrowawayPki alice = ThrowawayPki.create(a, "alice", "relay", "bob");
    ThrowawayPki bob = ThrowawayPki.create(b, "bob", "alice");
    Path both = dir.resolve("both.pem");
    List<String> pem = new ArrayList<>(Files.readAllLines(alice.caCertificate()));
    pem.addAll(Files.readAllLines(bob.caCertificate()));
    Files.write(both, pem);

    Map<String, PartyTrust> t =
        CoordinatorServer.relayTrust(config(a, both, null, bob.caCertificate()));
    t.get("alice").check(leaf(a.resolve("alice.pem")));
    t.get("bob").check(leaf(b.resolve("bob.pem")));
    // bob's CA issues CN=alice: not alice's pinned job certificate
    assertThrows(BridgeException.class, () -> t.get("alice").check(leaf(b.resolve("alice.pem"))));
    // alice's CA issues CN=bob: not from bob's CA
    assertThrows(BridgeException.class, () -> t.get("bob").check(leaf(a.resolve("bob.pem"))));

    // with partyCa, another certificate of alice's CA may speak for alice; still not bob's forgery
    Map<String, PartyTrust> withCa =
        CoordinatorServer.relayTrust(config(a, both, alice.caCertificate(), bob.caCertificate()));
    withCa.get("alice").check(leaf(a.resolve("alice.pem")));
    assertThrows(
        BridgeException.class, () -> withCa.get("alice").check(leaf(b.resolve("alice.pem"))));
  }

  /**
   * A registered helper connects to the relay as a client: its name is admitted, only with the very
   * certificate both coordinators registered (its pin), never with another certificate of the same
   * CN from a trusted CA; a session's pin for the helper is the session's helper pin.
   */
  @Test
  void aRegisteredHelperIsAdmittedOnlyWithItsPinnedCertificate() throws Exception {
    Path a = dir.resolve("a");
    Path b = dir.resolve("b");
    ThrowawayPki alice = ThrowawayPki.create(a, "alice", "relay", "carol");
    ThrowawayPki bob = ThrowawayPki.create(b, "bob", "carol");
    Path both = dir.resolve("both.pem");
    List<String> pem = new ArrayList<>(Files.readAllLines(alice.caCertificate()));
    pem.addAll(Files.readAllLines(bob.caCertificate()));
    Files.write(both, pem);
    String carolPin = Tls.fingerprint(a.resolve("carol.pem"));
    CoordinatorConfig base = config(a, both, null, bob.caCertificate());
    CoordinatorConfig c =
        new CoordinatorConfig(
            base.party(),
            base.listen(),
            base.tls(),
            base.database(),
            base.tokensFile(),
            base.peer(),
            base.bridge(),
            base.approvalTtl(),
            base.sweepInterval(),
            base.defaults(),
            base.protocols(),
            null,
            null,
            List.of(new CoordinatorConfig.Helper("carol", carolPin, "the helper")));
    org.junit.jupiter.api.Assertions.assertEquals(
        java.util.Set.of("alice", "bob", "carol"), CoordinatorServer.allowedParties(c));
    org.junit.jupiter.api.Assertions.assertEquals(
        java.util.Set.of("alice", "bob"), CoordinatorServer.allowedParties(base));
    Map<String, PartyTrust> t = CoordinatorServer.relayTrust(c);
    org.junit.jupiter.api.Assertions.assertEquals(
        java.util.Set.of("alice", "bob", "carol"), t.keySet());
    t.get("carol").check(leaf(a.resolve("carol.pem")));
    // another CN=carol, from bob's CA (trusted by TLS): not the registered helper
    assertThrows(BridgeException.class, () -> t.get("carol").check(leaf(b.resolve("carol.pem"))));
    // nor does carol's certificate speak for a party
    assertThrows(BridgeException.class, () -> t.get("alice").check(leaf(a.resolve("carol.pem"))));
    assertThrows(BridgeException.class, () -> t.get("bob").check(leaf(a.resolve("carol.pem"))));

    // a session with carol as its helper pins her to the session's helper pin
    Db db = new Db("jdbc:sqlite:" + dir.resolve("helper-pins.db"), null, null);
    db.migrate();
    String sid = java.util.UUID.randomUUID().toString();
    String qid = java.util.UUID.randomUUID().toString();
    Model.Prefiltering helped =
        new Model.Prefiltering(io.psiflink.api.Prefilter.HELPER, "carol", carolPin, 0, 0);
    db.tx(
        conn -> {
          Store.insertQuery(
              conn,
              new Model.QueryRecord(
                  qid,
                  Model.Direction.INCOMING,
                  "bob",
                  "alice",
                  io.psiflink.api.Role.A,
                  "p",
                  "c",
                  "SELECT b.x FROM a JOIN b ON a.k = b.k",
                  "fp",
                  0,
                  40,
                  "rr22",
                  io.psiflink.api.JoinMode.BOTH,
                  null,
                  helped,
                  "bob.example:7443",
                  "bb".repeat(32),
                  Model.QueryStatus.APPROVED,
                  null,
                  0,
                  1,
                  0L,
                  null));
          Store.insertSession(
              conn,
              new Model.SessionRecord(
                  sid,
                  qid,
                  "alice",
                  "bob",
                  0,
                  40,
                  "rr22",
                  io.psiflink.api.JoinMode.BOTH,
                  null,
                  helped,
                  "alice.example:7443",
                  "aa".repeat(32),
                  "bob.example:7443",
                  "bb".repeat(32),
                  0L));
          return null;
        });
    var pins = CoordinatorServer.sessionPins(db);
    org.junit.jupiter.api.Assertions.assertEquals(carolPin, pins.pin(sid, "carol"));
    org.junit.jupiter.api.Assertions.assertEquals("aa".repeat(32), pins.pin(sid, "alice"));
    org.junit.jupiter.api.Assertions.assertEquals(
        io.psiflink.bridge.SessionPins.NOT_IN_SESSION, pins.pin(sid, "dave"));
  }
}
