package io.psiflink.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two organisations, each with its own CA, both trusted by the relay and by each other's jobs. A's
 * CA issues a certificate with B's name: the relay refuses it for B once each party is tied to its
 * own CA (or pin), and so does a job's peer check; B's genuine certificate passes both.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PartyTrustTest {
  @TempDir static Path dirA;
  @TempDir static Path dirB;
  @TempDir static Path shared;

  /** A's CA: the relay, A, and a forged certificate with B's CN. */
  static ThrowawayPki pkiA;

  /** B's CA: B's genuine certificate. */
  static ThrowawayPki pkiB;

  static Path bothCas;

  @BeforeAll
  static void pki() throws Exception {
    pkiA = ThrowawayPki.create(dirA, TestBed.RELAY, TestBed.A, TestBed.B);
    pkiB = ThrowawayPki.create(dirB, TestBed.B);
    bothCas = shared.resolve("both-cas.pem");
    List<String> pem = new ArrayList<>(Files.readAllLines(pkiA.caCertificate()));
    pem.addAll(Files.readAllLines(pkiB.caCertificate()));
    Files.write(bothCas, pem);
  }

  /** The relay (A's certificate), trusting both CAs, with or without per-party trust. */
  static RelayConfig relay(RelayConfig defaults, boolean tied) {
    PartyCredentials server =
        PartyCredentials.load(
            dirA.resolve(TestBed.RELAY + ".pem"), dirA.resolve(TestBed.RELAY + ".key"), bothCas);
    RelayConfig rc =
        new RelayConfig(
            defaults.bindHost(),
            defaults.port(),
            server,
            defaults.allowedParties(),
            defaults.pairTimeout(),
            defaults.maxFrameBytes());
    return !tied
        ? rc
        : rc.withPartyTrust(
            Map.of(
                TestBed.A, PartyTrust.load(pkiA.caCertificate(), List.of()),
                TestBed.B, PartyTrust.load(pkiB.caCertificate(), List.of())));
  }

  static PartyCredentials genuineB() {
    return PartyCredentials.load(
        dirB.resolve(TestBed.B + ".pem"), dirB.resolve(TestBed.B + ".key"), bothCas);
  }

  static PartyCredentials forgedB() {
    return PartyCredentials.load(
        dirA.resolve(TestBed.B + ".pem"), dirA.resolve(TestBed.B + ".key"), bothCas);
  }

  /** Opens A's and the given B's stream of one session and exchanges a message. */
  static void exchange(TestBed bed, PartyCredentials b, String session) throws Exception {
    PartyCredentials a =
        PartyCredentials.load(
            dirA.resolve(TestBed.A + ".pem"), dirA.resolve(TestBed.A + ".key"), bothCas);
    BridgeClient ca = bed.client(a, c -> c.withPairTimeout(java.time.Duration.ofSeconds(10)));
    BridgeClient cb = bed.client(b, c -> c.withPairTimeout(java.time.Duration.ofSeconds(10)));
    var fa =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              try {
                return ca.open(session, "c");
              } catch (BridgeException e) {
                throw new java.util.concurrent.CompletionException(e);
              }
            });
    BridgeStream sb = cb.open(session, "c");
    BridgeStream sa = fa.get(20, TimeUnit.SECONDS);
    sa.send(new byte[] {1, 2, 3});
    assertEquals(3, sb.receive().length);
    sa.close();
    sb.close();
  }

  @Test
  void withoutTiesAnyTrustedCaMayIssueAPartysName() throws Exception {
    // the hole this closes: the CN alone admits A's forgery of B
    try (TestBed bed = new TestBed(pkiA, d -> relay(d, false))) {
      exchange(bed, forgedB(), "untied");
    }
  }

  @Test
  void theRelayRefusesACertificateForBIssuedByAsCa() throws Exception {
    try (TestBed bed = new TestBed(pkiA, d -> relay(d, true))) {
      BridgeClient forged =
          bed.client(forgedB(), c -> c.withPairTimeout(java.time.Duration.ofSeconds(5)));
      BridgeException e = assertThrows(BridgeException.class, () -> forged.open("s1", "c"));
      assertTrue(
          e.getMessage().contains("not issued by that party's CA")
              || e.getMessage().contains("PERMISSION_DENIED"),
          e.getMessage());
      assertEquals(0, bed.relay.stats().streamsOpened());
      exchange(bed, genuineB(), "s2");
    }
  }

  @Test
  void aSessionThatNamesBsCertificateAdmitsOnlyThatOne() throws Exception {
    String pinB = HexFormat.of().formatHex(PartyTrust.sha256(genuineB().certificate()));
    String pinA =
        HexFormat.of()
            .formatHex(
                PartyTrust.sha256(
                    PartyCredentials.load(
                            dirA.resolve(TestBed.A + ".pem"),
                            dirA.resolve(TestBed.A + ".key"),
                            bothCas)
                        .certificate()));
    SessionPins pins =
        (session, party) ->
            !session.equals("pinned") ? null : party.equals(TestBed.B) ? "00".repeat(32) : pinA;
    try (TestBed bed = new TestBed(pkiA, d -> relay(d, true), pins)) {
      // the session names another certificate for B: B's genuine one is refused for it
      BridgeClient b =
          bed.client(genuineB(), c -> c.withPairTimeout(java.time.Duration.ofSeconds(5)));
      BridgeException e = assertThrows(BridgeException.class, () -> b.open("pinned", "c"));
      assertTrue(
          e.getMessage().contains("not the one session")
              || e.getMessage().contains("PERMISSION_DENIED"),
          e.getMessage());
      // a session this relay does not know: the CA tie alone
      exchange(bed, genuineB(), "unknown-here");
    }
    SessionPins right = (session, party) -> party.equals(TestBed.B) ? pinB : pinA;
    try (TestBed bed = new TestBed(pkiA, d -> relay(d, true), right)) {
      exchange(bed, genuineB(), "pinned");
    }
    // a session that B is no party of: B's genuine certificate is refused for it
    SessionPins without =
        (session, party) -> party.equals(TestBed.B) ? SessionPins.NOT_IN_SESSION : pinA;
    try (TestBed bed = new TestBed(pkiA, d -> relay(d, true), without)) {
      BridgeClient b =
          bed.client(genuineB(), c -> c.withPairTimeout(java.time.Duration.ofSeconds(5)));
      assertThrows(BridgeException.class, () -> b.open("pinned", "c"));
    }
  }

  @Test
  void aPinnedCertificateIsAdmittedAndNoOtherOfThatCa() throws Exception {
    String pin = HexFormat.of().formatHex(PartyTrust.sha256(genuineB().certificate()));
    PartyTrust pinned = PartyTrust.pinned(List.of(pin));
    pinned.check(genuineB().certificate());
    assertThrows(BridgeException.class, () -> pinned.check(forgedB().certificate()));
    assertThrows(IllegalArgumentException.class, () -> PartyTrust.pinned(List.of("00")));
    assertThrows(IllegalArgumentException.class, () -> PartyTrust.pinned(List.of()));
  }

  @Test
  void aJobsPeerCheckRefusesTheForgeryToo() throws Exception {
    PartyCredentials a =
        PartyCredentials.load(
            dirA.resolve(TestBed.A + ".pem"), dirA.resolve(TestBed.A + ".key"), bothCas);
    PartyTrust bTrust = PartyTrust.load(pkiB.caCertificate(), List.of());
    // the CN check alone passes the forgery (both CAs are trusted) ...
    a.verifyPeer(forgedB().certificate(), TestBed.B);
    // ... tied to B's CA, it does not
    assertThrows(
        BridgeException.class, () -> a.verifyPeer(forgedB().certificate(), TestBed.B, bTrust));
    a.verifyPeer(genuineB().certificate(), TestBed.B, bTrust);
  }

  @Test
  void everyAllowedPartyNeedsItsTrust() {
    RelayConfig d =
        RelayConfig.defaults(pkiA.credentials(TestBed.RELAY), Set.of(TestBed.A, TestBed.B));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            d.withPartyTrust(Map.of(TestBed.A, PartyTrust.load(pkiA.caCertificate(), List.of()))));
  }
}
