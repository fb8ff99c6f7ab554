package io.psiflink.helper;

import static io.psiflink.helper.HelperServiceTest.assertMentions;
import static io.psiflink.helper.HelperServiceTest.failure;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeClientConfig;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.IncomingCall;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.ThrowawayPki;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.Set;
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
 * A party against a helper double that speaks the wire protocol but misbehaves: the party must
 * refuse it with a clear HelperException, never hand a bad chunk to its sink (HelperBed checks the
 * sink's calls), and never hang.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostileHelperTest {
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

  enum Misbehaviour {
    SILENT_AFTER_HELLO,
    SILENT_AFTER_SEED,
    SEED_OF_WRONG_LENGTH,
    SEED_SEALED_AS_A_CHUNK,
    NO_SEED,
    WRONG_CHUNK_LENGTH,
    BAD_SEAL,
    CHUNK_OF_ANOTHER_INDEX,
    MISSING_CHUNK,
    FOREIGN_SIGNATURE,
    WRONG_NAME_CERTIFICATE,
    TOO_MANY_CHUNKS,
    A_CHUNK_TO_B,
    SILENT_AFTER_SEED_TO_B
  }

  /**
   * Answers each caller alone (no second party needed) with {@code misbehaviour}; signs as {@code
   * signer} with {@code presented}'s certificate chain.
   */
  private void fakeHelper(
      BridgeClient client, PartyCredentials presented, PartyCredentials signer, Misbehaviour how)
      throws Exception {
    client.listen(call -> pool.execute(() -> serve(client, call, presented, signer, how)));
  }

  private static void serve(
      BridgeClient client,
      IncomingCall call,
      PartyCredentials presented,
      PartyCredentials signer,
      Misbehaviour how) {
    try (BridgeStream s = client.open(call.session(), call.channel())) {
      HelperWire.PartyHelloView party =
          HelperWire.verifyPartyHello(
              s.receive(),
              call.session(),
              HelperWire.roleOfChannel(call.channel()),
              s.peerParty(),
              pki.credentials(HelperBed.HELPER),
              Set.of(HelperBed.A, HelperBed.B),
              java.util.Map.of(),
              36);
      KeyPair dh = HelperWire.x25519();
      byte[] hello =
          HelperWire.helperHello(call.session(), party, presented, dh.getPublic().getEncoded());
      s.send(HelperWire.sign(signer, "helper hello", call.session(), hello));
      HelperWire.ChunkCipher cipher =
          new HelperWire.ChunkCipher(
              HelperWire.frameKey(
                  dh.getPrivate(), party.dhPublic(), call.session(), party.helloBytes(), hello));
      int bytes = HelperClient.chunkWords(party.filterBits(), 0) * 8;
      byte[] seed = new byte[CorrelationStreams.SEED_BYTES];
      switch (how) {
        case SILENT_AFTER_HELLO -> Thread.sleep(30_000);
        case SEED_OF_WRONG_LENGTH -> s.send(cipher.seal(HelperWire.SEED, 0, new byte[24]));
        case SEED_SEALED_AS_A_CHUNK -> s.send(cipher.seal(HelperWire.TO_PARTY, 0, seed));
        case NO_SEED -> s.finish();
        default -> s.send(cipher.seal(HelperWire.SEED, 0, seed));
      }
      switch (how) {
        case WRONG_CHUNK_LENGTH -> s.send(cipher.seal(HelperWire.TO_PARTY, 0, new byte[bytes + 8]));
        case BAD_SEAL -> {
          byte[] sealed = cipher.seal(HelperWire.TO_PARTY, 0, new byte[bytes]);
          sealed[5] ^= 1;
          s.send(sealed);
        }
        case CHUNK_OF_ANOTHER_INDEX -> s.send(cipher.seal(HelperWire.TO_PARTY, 1, new byte[bytes]));
        case MISSING_CHUNK -> s.finish();
        case TOO_MANY_CHUNKS -> {
          s.send(cipher.seal(HelperWire.TO_PARTY, 0, new byte[bytes]));
          s.send(cipher.seal(HelperWire.TO_PARTY, 1, new byte[bytes]));
          s.finish();
        }
        case A_CHUNK_TO_B -> {
          s.send(cipher.seal(HelperWire.TO_PARTY, 0, new byte[bytes]));
          s.finish();
        }
        default -> Thread.sleep(30_000);
      }
      Thread.sleep(30_000); // let the party judge
    } catch (Exception e) {
      // the party hung up on the double: expected
    }
  }

  private Future<HelperBed.Received> party(
      HelperBed bed, Role role, String session, Duration timeout) throws Exception {
    String name = role.equals(Role.A) ? HelperBed.A : HelperBed.B;
    return HelperBed.receive(
        pool, bed.client(name), bed.creds(name), HelperBed.request(session, role, 10, timeout));
  }

  private BridgeClient helperClient(HelperBed bed) throws Exception {
    return BridgeClient.connect(
        BridgeClientConfig.defaults("127.0.0.1", bed.relay.port(), bed.creds(HelperBed.HELPER)));
  }

  private HelperException against(Misbehaviour how, Duration timeout) throws Exception {
    try (HelperBed bed = new HelperBed(pki);
        BridgeClient helper = helperClient(bed)) {
      PartyCredentials h = bed.creds(HelperBed.HELPER);
      switch (how) {
        case FOREIGN_SIGNATURE -> fakeHelper(helper, h, bed.creds(HelperBed.X), how);
        case WRONG_NAME_CERTIFICATE ->
            fakeHelper(helper, bed.creds(HelperBed.X), bed.creds(HelperBed.X), how);
        default -> fakeHelper(helper, h, h, how);
      }
      Role role =
          how == Misbehaviour.A_CHUNK_TO_B || how == Misbehaviour.SILENT_AFTER_SEED_TO_B
              ? Role.B
              : Role.A;
      return failure(party(bed, role, "hostile-" + how, timeout));
    }
  }

  @Test
  void aChunkOfTheWrongLengthIsRejected() throws Exception {
    assertMentions(
        against(Misbehaviour.WRONG_CHUNK_LENGTH, Duration.ofSeconds(20)),
        "helper 'helper' sent chunk 0 of 152 bytes, expected 144");
  }

  @Test
  void aBadSealIsRejected() throws Exception {
    assertMentions(
        against(Misbehaviour.BAD_SEAL, Duration.ofSeconds(20)),
        "helper 'helper'",
        "chunk 0 failed authentication");
  }

  @Test
  void aChunkSealedForAnotherIndexIsRejected() throws Exception {
    assertMentions(
        against(Misbehaviour.CHUNK_OF_ANOTHER_INDEX, Duration.ofSeconds(20)),
        "chunk 0 failed authentication");
  }

  @Test
  void moreChunksThanTheFilterHasAreRejected() throws Exception {
    assertMentions(
        against(Misbehaviour.TOO_MANY_CHUNKS, Duration.ofSeconds(20)),
        "sent more than the seed and the 1 chunks");
  }

  @Test
  void aChunkMissingAtTheEndIsRejected() throws Exception {
    assertMentions(
        against(Misbehaviour.MISSING_CHUNK, Duration.ofSeconds(20)),
        "helper 'helper' ended the stream after 0 of 1 chunks");
  }

  @Test
  void aSeedOfTheWrongLengthIsRejected() throws Exception {
    assertMentions(
        against(Misbehaviour.SEED_OF_WRONG_LENGTH, Duration.ofSeconds(20)),
        "helper 'helper' sent a seed frame of 40 bytes, expected 32");
  }

  @Test
  void aSeedSealedAsAChunkIsRejected() throws Exception {
    assertMentions(
        against(Misbehaviour.SEED_SEALED_AS_A_CHUNK, Duration.ofSeconds(20)),
        "helper 'helper''s seed failed authentication");
  }

  @Test
  void noSeedIsRejected() throws Exception {
    assertMentions(
        against(Misbehaviour.NO_SEED, Duration.ofSeconds(20)),
        "helper 'helper' ended the stream before this party's seed");
  }

  @Test
  void anythingAfterBsSeedIsRejected() throws Exception {
    assertMentions(
        against(Misbehaviour.A_CHUNK_TO_B, Duration.ofSeconds(20)),
        "helper 'helper' sent more than the seed");
  }

  @Test
  void aHelperSilentAfterTheSeedFailsThePartyWithinItsTimeout() throws Exception {
    assertMentions(
        against(Misbehaviour.SILENT_AFTER_SEED, Duration.ofSeconds(2)),
        "helper 'helper' made no progress for PT2S",
        "chunk 0 of 1");
  }

  /**
   * B sees nothing while the helper deals A's m_σ after B's seed: it allows a second per MiB of m_σ
   * beyond its timeout (at least one second), then fails.
   */
  @Test
  void aHelperSilentAfterBsSeedFailsBWithinItsTimeoutAndAllowance() throws Exception {
    long start = System.nanoTime();
    HelperException e = against(Misbehaviour.SILENT_AFTER_SEED_TO_B, Duration.ofSeconds(2));
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertMentions(e, "helper 'helper' made no progress for PT3S", "the end of the stream");
    assertTrue(ms >= 3_000 && ms < 10_000, "failed after " + ms + " ms, not after 3 s");
  }

  @Test
  void aHelloSignedWithAnotherKeyIsRejected() throws Exception {
    assertMentions(
        against(Misbehaviour.FOREIGN_SIGNATURE, Duration.ofSeconds(20)),
        "rejected the HELLO of helper 'helper'",
        "signature");
  }

  @Test
  void aHelperCertificateOfAnotherNameIsRejected() throws Exception {
    assertMentions(
        against(Misbehaviour.WRONG_NAME_CERTIFICATE, Duration.ofSeconds(20)),
        "rejected the HELLO of helper 'helper'",
        "helper's certificate is not acceptable",
        "party-x");
  }

  @Test
  void aSilentHelperFailsThePartyWithinItsTimeout() throws Exception {
    long start = System.nanoTime();
    HelperException e = against(Misbehaviour.SILENT_AFTER_HELLO, Duration.ofSeconds(2));
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertMentions(e, "helper 'helper' made no progress for PT2S");
    assertTrue(ms < 10_000, "failed after " + ms + " ms, not within its timeout");
  }
}
