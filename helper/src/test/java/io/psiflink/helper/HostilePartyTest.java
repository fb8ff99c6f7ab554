package io.psiflink.helper;

import static io.psiflink.helper.HelperServiceTest.assertMentions;
import static io.psiflink.helper.HelperServiceTest.failure;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgePeerException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.ThrowawayPki;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The helper against a party double that speaks the wire protocol but misbehaves (a forged HELLO, a
 * HELLO of another session, data after the HELLO, which the helper never takes): the helper
 * refuses, aborting both streams naming the cause and the party at fault, and serves the next
 * session.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostilePartyTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final int BITS = 10;

  @TempDir static Path dir;
  private static ThrowawayPki pki;
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @BeforeAll
  static void createPki() {
    pki = HelperBed.pki(dir);
  }

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  /** Party A's stream after a valid handshake: the double's cipher and stream. */
  private record Handshaken(BridgeStream stream, HelperWire.ChunkCipher cipher) {}

  private static Handshaken handshake(
      BridgeClient client, PartyCredentials me, PartyCredentials signer, String session)
      throws Exception {
    return handshake(client, me, signer, session, null);
  }

  /** As above; {@code extra}, if not null, is sent right after the HELLO. */
  private static Handshaken handshake(
      BridgeClient client,
      PartyCredentials me,
      PartyCredentials signer,
      String session,
      byte[] extra)
      throws Exception {
    HelperRequest r = HelperBed.request(session, Role.A, BITS, TIMEOUT);
    KeyPair dh = HelperWire.x25519();
    byte[] hello = HelperWire.partyHello(r, me, dh.getPublic().getEncoded());
    BridgeStream s = client.open(session, HelperWire.channel(Role.A), HelperBed.HELPER);
    s.send(HelperWire.sign(signer, "party hello", session, hello));
    if (extra != null) {
      s.send(extra);
    }
    byte[] answer = s.receive();
    if (answer == null) {
      throw new AssertionError("no helper HELLO");
    }
    HelperWire.HelperHelloView h = HelperWire.verifyHelperHello(answer, me, r, hello);
    return new Handshaken(
        s,
        new HelperWire.ChunkCipher(
            HelperWire.frameKey(dh.getPrivate(), h.dhPublic(), session, hello, h.helloBytes())));
  }

  private void assertHonestBFails(
      HelperBed bed, String session, byte[] extra, Sabotage sabotage, String... why)
      throws Exception {
    Future<HelperBed.Received> b =
        HelperBed.receive(
            pool,
            bed.client(HelperBed.B),
            bed.creds(HelperBed.B),
            HelperBed.request(session, Role.B, BITS, TIMEOUT));
    Handshaken a =
        handshake(
            bed.client(HelperBed.A),
            bed.creds(HelperBed.A),
            bed.creds(HelperBed.A),
            session,
            extra);
    sabotage.run(a);
    // A's stream carries what was dealt to it (its seed, its one chunk), then the abort
    BridgePeerException toA =
        assertThrows(
            BridgePeerException.class,
            () -> {
              for (int i = 0; i < 3; i++) {
                if (a.stream().receive() == null) {
                  return;
                }
              }
            });
    assertMentions(toA, why);
    HelperException toB = failure(b);
    assertMentions(toB, "party A ('party-a') broke off the session");
    assertMentions(toB, why);
  }

  @FunctionalInterface
  private interface Sabotage {
    void run(Handshaken a) throws Exception;
  }

  @Test
  void aSealedFrameAfterTheHelloIsRefusedNamingItAndTheHelperServesOn() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      assertHonestBFails(
          bed,
          "sealed-data",
          null,
          a -> a.stream().send(a.cipher().seal(HelperWire.TO_HELPER, 0, new byte[128])),
          "sent data after its HELLO (the helper takes none)");
      HelperServiceTest.assertDeals(
          pool, bed, bed.client(HelperBed.A), bed.client(HelperBed.B), "after-data", BITS);
    }
  }

  @Test
  void bytesRightAfterTheHelloAreRefusedNamingThem() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      assertHonestBFails(
          bed,
          "raw-data",
          new byte[] {1, 2, 3},
          a -> {},
          "sent data after its HELLO (the helper takes none)");
    }
  }

  @Test
  void aHelloForAnotherSessionThanTheStreamsIsRefusedNamingIt() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      PartyCredentials me = bed.creds(HelperBed.A);
      HelperRequest r = HelperBed.request("session-in-hello", Role.A, BITS, TIMEOUT);
      byte[] hello = HelperWire.partyHello(r, me, HelperWire.x25519().getPublic().getEncoded());
      try (BridgeStream s =
          bed.client(HelperBed.A)
              .open("session-of-stream", HelperWire.channel(Role.A), HelperBed.HELPER)) {
        // signed for the stream's session, so that only the session field is wrong
        s.send(HelperWire.sign(me, "party hello", "session-of-stream", hello));
        BridgePeerException e = assertThrows(BridgePeerException.class, s::receive);
        assertMentions(e, "helper 'helper' refused", "another session than the stream's");
      }
    }
  }

  @Test
  void aHelloSignedWithAnotherKeyIsRefused() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      Exception e =
          assertThrows(
              Exception.class,
              () ->
                  handshake(
                      bed.client(HelperBed.A),
                      bed.creds(HelperBed.A),
                      bed.creds(HelperBed.X),
                      "forged"));
      assertMentions(e, "helper 'helper' refused", "signature of the HELLO does not verify");
    }
  }
}
