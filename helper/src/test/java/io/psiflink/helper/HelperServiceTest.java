package io.psiflink.helper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgePeerException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.PartyTrust;
import io.psiflink.bridge.ThrowawayPki;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
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
 * Two parties' clients and the helper service over a real relay with TLS on loopback; what they are
 * dealt is checked against an AES-ECB expansion of the seeds done in the test (HelperBed).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HelperServiceTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

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

  /** Runs a session of both parties and checks their deals form one random OT per bit. */
  static HelperBed.Received[] assertDeals(
      ExecutorService pool, HelperBed bed, BridgeClient a, BridgeClient b, String session, int bits)
      throws Exception {
    Future<HelperBed.Received> fa =
        HelperBed.receive(
            pool, a, bed.creds(HelperBed.A), HelperBed.request(session, Role.A, bits, TIMEOUT));
    Future<HelperBed.Received> fb =
        HelperBed.receive(
            pool, b, bed.creds(HelperBed.B), HelperBed.request(session, Role.B, bits, TIMEOUT));
    HelperBed.Received ra = fa.get(30, TimeUnit.SECONDS);
    HelperBed.Received rb = fb.get(30, TimeUnit.SECONDS);
    assertNull(rb.mSigma(), "B gets no m_σ");
    HelperBed.assertCorrelated(ra, rb, bits, session.hashCode());
    return new HelperBed.Received[] {ra, rb};
  }

  @Test
  void chunkArithmetic() {
    assertEquals(1, HelperClient.chunks(6));
    assertEquals(1, HelperClient.chunkWords(6, 0));
    assertEquals(1, HelperClient.chunks(10));
    assertEquals(16, HelperClient.chunkWords(10, 0));
    assertEquals(1, HelperClient.chunks(22));
    assertEquals(2, HelperClient.chunks(23));
    assertEquals(1 << 14, HelperClient.chunks(36));
    assertEquals(HelperClient.CHUNK_WORDS, HelperClient.chunkWords(36, (1 << 14) - 1));
    assertThrows(IllegalArgumentException.class, () -> HelperClient.chunks(5));
    assertThrows(IllegalArgumentException.class, () -> HelperClient.chunks(37));
    assertThrows(IndexOutOfBoundsException.class, () -> HelperClient.chunkWords(23, 2));
    assertTrue(HelperClient.CHUNK_WORDS * 8L + 16 < 4 << 20, "a chunk fits the relay's frame cap");
  }

  @Test
  void theDealsAreOneRandomOtPerBitAndGiveTheAnd() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      BridgeClient a = bed.client(HelperBed.A);
      BridgeClient b = bed.client(HelperBed.B);
      assertDeals(pool, bed, a, b, "one-chunk", 10);
      assertDeals(pool, bed, a, b, "smallest", 6);
      assertDeals(pool, bed, a, b, "two-chunks", 23); // 2 chunks of 2^16 words
    }
  }

  /**
   * The sink's time is the caller's, not the helper's: A's sink may take longer than A's
   * no-progress timeout; a runtime failure in the sink aborts the session and comes out of receive
   * as it is.
   */
  @Test
  void theSinkMayTakeItsTimeAndItsFailureEndsTheSession() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      BridgeClient a = bed.client(HelperBed.A);
      BridgeClient b = bed.client(HelperBed.B);
      int bits = 23; // two chunks
      java.util.List<String> eventsA = new java.util.concurrent.CopyOnWriteArrayList<>();
      Future<HelperClient.Dealt> fa =
          pool.submit(
              () ->
                  HelperClient.receive(
                      a,
                      bed.creds(HelperBed.A),
                      HelperBed.request("slow-sink", Role.A, bits, Duration.ofSeconds(2)),
                      (c, words) -> {
                        eventsA.add("chunk " + c);
                        try {
                          Thread.sleep(3000); // longer than A's no-progress timeout
                        } catch (InterruptedException e) {
                          throw new IllegalStateException(e);
                        }
                      }));
      Future<HelperClient.Dealt> fb =
          pool.submit(
              () ->
                  HelperClient.receive(
                      b,
                      bed.creds(HelperBed.B),
                      HelperBed.request("slow-sink", Role.B, bits, Duration.ofSeconds(20)),
                      (c, words) -> {
                        throw new AssertionError("B got a chunk");
                      }));
      fa.get(60, TimeUnit.SECONDS);
      fb.get(60, TimeUnit.SECONDS);
      assertEquals(java.util.List.of("chunk 0", "chunk 1"), eventsA);

      Future<HelperClient.Dealt> failing =
          pool.submit(
              () ->
                  HelperClient.receive(
                      a,
                      bed.creds(HelperBed.A),
                      HelperBed.request("callback-fails", Role.A, 10, Duration.ofSeconds(5)),
                      (c, words) -> {
                        throw new IllegalStateException("the peer's job broke off");
                      }));
      Future<HelperClient.Dealt> other =
          pool.submit(
              () ->
                  HelperClient.receive(
                      b,
                      bed.creds(HelperBed.B),
                      HelperBed.request("callback-fails", Role.B, 10, Duration.ofSeconds(5)),
                      (c, words) -> {}));
      java.util.concurrent.ExecutionException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              java.util.concurrent.ExecutionException.class,
              () -> failing.get(30, TimeUnit.SECONDS));
      assertTrue(e.getCause() instanceof IllegalStateException, e.getCause().toString());
      assertMentions(
          (Exception)
              org.junit.jupiter.api.Assertions.assertThrows(
                      java.util.concurrent.ExecutionException.class,
                      () -> other.get(30, TimeUnit.SECONDS))
                  .getCause(),
          "helper");
    }
  }

  @Test
  void everySessionGetsFreshSeeds() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      BridgeClient a = bed.client(HelperBed.A);
      BridgeClient b = bed.client(HelperBed.B);
      HelperBed.Received[] first = assertDeals(pool, bed, a, b, "fresh-1", 10);
      HelperBed.Received[] second = assertDeals(pool, bed, a, b, "fresh-2", 10);
      assertFalse(Arrays.equals(first[0].dealt().seed(), second[0].dealt().seed()), "A's seeds");
      assertFalse(Arrays.equals(first[1].dealt().seed(), second[1].dealt().seed()), "B's seeds");
      assertFalse(Arrays.equals(first[0].mSigma(), second[0].mSigma()), "A's m_σ");
      assertFalse(first[0].dealt().toString().contains("seed=["), "toString hides the seed");
    }
  }

  /** A party double that records the sealed frames its stream carried, and opens them. */
  static List<byte[]> recordStream(BridgeClient client, PartyCredentials me, HelperRequest r)
      throws Exception {
    KeyPair dh = HelperWire.x25519();
    byte[] hello = HelperWire.partyHello(r, me, dh.getPublic().getEncoded());
    try (BridgeStream s = client.open(r.session(), HelperWire.channel(r.role()), r.helperParty())) {
      s.send(HelperWire.sign(me, "party hello", r.session(), hello));
      HelperWire.HelperHelloView h = HelperWire.verifyHelperHello(s.receive(), me, r, hello);
      HelperWire.ChunkCipher cipher =
          new HelperWire.ChunkCipher(
              HelperWire.frameKey(
                  dh.getPrivate(), h.dhPublic(), r.session(), hello, h.helloBytes()));
      int expected = r.role().equals(Role.A) ? 1 + HelperClient.chunks(r.filterBits()) : 1;
      List<byte[]> sealed = new ArrayList<>();
      for (byte[] f = s.receive(); f != null; f = s.receive()) {
        sealed.add(f);
        if (sealed.size() == expected) {
          s.finish(); // the acknowledgement; anything after it is still recorded
        }
      }
      List<byte[]> plain = new ArrayList<>();
      for (int i = 0; i < sealed.size(); i++) {
        byte[] p =
            i == 0
                ? cipher.open(HelperWire.SEED, 0, sealed.get(0))
                : cipher.open(HelperWire.TO_PARTY, i - 1, sealed.get(i));
        assertNotNull(p, "frame " + i + " opens as what it should be");
        plain.add(p);
      }
      return plain;
    }
  }

  private static boolean contains(byte[] haystack, byte[] needle) {
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
        return true;
      }
    }
    return false;
  }

  @Test
  void eachStreamCarriesOnlyItsOwnPartysDeal() throws Exception {
    int bits = 23;
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      Future<List<byte[]>> fa =
          pool.submit(
              () ->
                  recordStream(
                      bed.client(HelperBed.A),
                      bed.creds(HelperBed.A),
                      HelperBed.request("carried", Role.A, bits, TIMEOUT)));
      Future<List<byte[]>> fb =
          pool.submit(
              () ->
                  recordStream(
                      bed.client(HelperBed.B),
                      bed.creds(HelperBed.B),
                      HelperBed.request("carried", Role.B, bits, TIMEOUT)));
      List<byte[]> toA = fa.get(30, TimeUnit.SECONDS);
      List<byte[]> toB = fb.get(30, TimeUnit.SECONDS);
      assertEquals(1, toB.size(), "B's stream carries exactly one sealed frame");
      assertEquals(CorrelationStreams.SEED_BYTES, toB.get(0).length, "B's frame is a seed");
      assertEquals(1 + HelperClient.chunks(bits), toA.size(), "A: its seed and the chunks");
      byte[] sa = toA.get(0);
      byte[] sb = toB.get(0);
      assertEquals(CorrelationStreams.SEED_BYTES, sa.length);
      for (int i = 0; i < toA.size(); i++) {
        assertFalse(contains(toA.get(i), sb), "A's frame " + i + " carries B's seed");
      }
      assertFalse(Arrays.equals(sa, sb), "B's frame is not A's seed");
      // what was carried is the deal: A's chunks are m_σ for these two seeds
      long[] mSigma = new long[1 << (bits - 6)];
      for (int c = 0; c + 1 < toA.size(); c++) {
        long[] w = new long[HelperClient.chunkWords(bits, c)];
        HelperWire.toWords(toA.get(c + 1), w);
        System.arraycopy(w, 0, mSigma, c * HelperClient.CHUNK_WORDS, w.length);
      }
      HelperBed.assertCorrelated(
          new HelperBed.Received(new HelperClient.Dealt(sa), mSigma),
          new HelperBed.Received(new HelperClient.Dealt(sb), null),
          bits,
          7);
    }
  }

  @Test
  void aLonePartyIsDealtNothingAndTimesOutNamingTheMissingParty() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper(bed.config(Duration.ofSeconds(1)));
      PartyCredentials me = bed.creds(HelperBed.A);
      HelperRequest r = HelperBed.request("alone", Role.A, 10, TIMEOUT);
      byte[] hello = HelperWire.partyHello(r, me, HelperWire.x25519().getPublic().getEncoded());
      try (BridgeStream s =
          bed.client(HelperBed.A).open("alone", HelperWire.channel(Role.A), HelperBed.HELPER)) {
        s.send(HelperWire.sign(me, "party hello", "alone", hello));
        // the first thing on the stream is the abort: no HELLO, no seed, no chunk
        BridgePeerException e = assertThrows(BridgePeerException.class, s::receive);
        assertMentions(e, "party B ('party-b') did not reach the helper within PT1S");
        assertEquals(0, s.bytesReceived(), "a lone party receives nothing");
      }
      // and through the client: a clear error, the sink never called
      Future<HelperBed.Received> fa =
          HelperBed.receive(
              pool,
              bed.client(HelperBed.A),
              me,
              HelperBed.request("alone-client", Role.A, 10, TIMEOUT));
      assertMentions(failure(fa), "party B ('party-b') did not reach the helper within PT1S");
    }
  }

  @Test
  void aPinnedHelperCertificateIsAcceptedAndAnotherRefused() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      String right =
          HexFormat.of().formatHex(PartyTrust.sha256(bed.creds(HelperBed.HELPER).certificate()));
      String wrong =
          HexFormat.of().formatHex(PartyTrust.sha256(bed.creds(HelperBed.X).certificate()));
      // the right pin: the session works
      Future<HelperBed.Received> fa =
          HelperBed.receive(
              pool,
              bed.client(HelperBed.A),
              bed.creds(HelperBed.A),
              new HelperRequest(
                  "pin-ok", Role.A, HelperBed.B, HelperBed.HELPER, right, 10, TIMEOUT));
      Future<HelperBed.Received> fb =
          HelperBed.receive(
              pool,
              bed.client(HelperBed.B),
              bed.creds(HelperBed.B),
              HelperBed.request("pin-ok", Role.B, 10, TIMEOUT));
      HelperBed.assertCorrelated(fa.get(30, TimeUnit.SECONDS), fb.get(30, TimeUnit.SECONDS), 10, 3);
      // another pin: A refuses the helper, and B learns that A broke off
      Future<HelperBed.Received> ga =
          HelperBed.receive(
              pool,
              bed.client(HelperBed.A),
              bed.creds(HelperBed.A),
              new HelperRequest(
                  "pin-bad", Role.A, HelperBed.B, HelperBed.HELPER, wrong, 10, TIMEOUT));
      Future<HelperBed.Received> gb =
          HelperBed.receive(
              pool,
              bed.client(HelperBed.B),
              bed.creds(HelperBed.B),
              HelperBed.request("pin-bad", Role.B, 10, TIMEOUT));
      HelperException ea = failure(ga);
      assertMentions(ea, "rejected the HELLO of helper 'helper'", "not the pinned one", wrong);
      HelperException eb = failure(gb);
      assertMentions(eb, "helper 'helper'", "party A ('party-a')");
    }
  }

  @Test
  void mismatchedFilterBitsAreRefusedNamingThem() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      Future<HelperBed.Received> fa =
          HelperBed.receive(
              pool,
              bed.client(HelperBed.A),
              bed.creds(HelperBed.A),
              HelperBed.request("bits", Role.A, 10, TIMEOUT));
      Future<HelperBed.Received> fb =
          HelperBed.receive(
              pool,
              bed.client(HelperBed.B),
              bed.creds(HelperBed.B),
              HelperBed.request("bits", Role.B, 12, TIMEOUT));
      assertMentions(
          failure(fa), "helper 'helper'", "different filter bits", "L = 10 at A, 12 at B");
      assertMentions(failure(fb), "helper 'helper'", "different filter bits");
    }
  }

  @Test
  void mismatchedNamesAreRefusedNamingThem() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      Future<HelperBed.Received> fa =
          HelperBed.receive(
              pool,
              bed.client(HelperBed.A),
              bed.creds(HelperBed.A),
              new HelperRequest("names", Role.A, HelperBed.X, HelperBed.HELPER, null, 10, TIMEOUT));
      Future<HelperBed.Received> fb =
          HelperBed.receive(
              pool,
              bed.client(HelperBed.B),
              bed.creds(HelperBed.B),
              HelperBed.request("names", Role.B, 10, TIMEOUT));
      assertMentions(failure(fa), "do not name each other", "names 'party-x'");
      assertMentions(failure(fb), "do not name each other");
    }
  }

  @Test
  void mismatchedSessionsMeetNobodyAndTimeOutNamingTheMissingParty() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper(bed.config(Duration.ofSeconds(1)));
      long start = System.nanoTime();
      Future<HelperBed.Received> fa =
          HelperBed.receive(
              pool,
              bed.client(HelperBed.A),
              bed.creds(HelperBed.A),
              HelperBed.request("session-1", Role.A, 10, TIMEOUT));
      Future<HelperBed.Received> fb =
          HelperBed.receive(
              pool,
              bed.client(HelperBed.B),
              bed.creds(HelperBed.B),
              HelperBed.request("session-2", Role.B, 10, TIMEOUT));
      assertMentions(failure(fa), "party B ('party-b') did not reach the helper within");
      assertMentions(failure(fb), "party A ('party-a') did not reach the helper within");
      assertTrue(
          System.nanoTime() - start < TimeUnit.SECONDS.toNanos(15),
          "the session timeout, not the party's");
    }
  }

  @Test
  void aPartyTheHelperDoesNotServeIsRefused() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      Future<HelperBed.Received> fx =
          HelperBed.receive(
              pool,
              bed.client(HelperBed.X),
              bed.creds(HelperBed.X),
              new HelperRequest("x", Role.A, HelperBed.B, HelperBed.HELPER, null, 10, TIMEOUT));
      assertMentions(
          failure(fx), "helper 'helper'", "'party-x' is not among the parties this helper serves");
    }
  }

  @Test
  void withPartyCasACertificateMustComeFromThatPartysOwnCa() throws Exception {
    ThrowawayPki foreign = ThrowawayPki.create(dir.resolve("foreign"), "someone");
    try (HelperBed bed = new HelperBed(pki)) {
      // B's certificate is from the shared CA, but the helper ties B to another CA
      bed.helper(
          bed.config(Duration.ofSeconds(20))
              .withPartyCas(
                  java.util.Map.of(
                      HelperBed.A, pki.caCertificate(), HelperBed.B, foreign.caCertificate())));
      Future<HelperBed.Received> fa =
          HelperBed.receive(
              pool,
              bed.client(HelperBed.A),
              bed.creds(HelperBed.A),
              HelperBed.request("own-ca", Role.A, 10, Duration.ofSeconds(3)));
      Future<HelperBed.Received> fb =
          HelperBed.receive(
              pool,
              bed.client(HelperBed.B),
              bed.creds(HelperBed.B),
              HelperBed.request("own-ca", Role.B, 10, TIMEOUT));
      assertMentions(
          failure(fb), "helper 'helper' refused", "the party's certificate is not acceptable");
      failure(fa); // A alone: no second party, its timeout
    }
  }

  @Test
  void tooManyFilterBitsAreRefused() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper(); // max 34
      Future<HelperBed.Received> fa =
          pool.submit(
              () -> {
                HelperClient.receive(
                    bed.client(HelperBed.A),
                    bed.creds(HelperBed.A),
                    HelperBed.request("big", Role.A, 35, TIMEOUT),
                    (c, w) -> {
                      throw new AssertionError("no chunk may be dealt");
                    });
                return null;
              });
      assertMentions(failure(fa), "filter bits 35 outside 6..34");
    }
  }

  @Test
  void garbageInsteadOfAHelloIsRefusedAndTheHelperServesOn() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      BridgeClient a = bed.client(HelperBed.A);
      try (BridgeStream s = a.open("garbage", "prefilter-A", HelperBed.HELPER)) {
        s.send(new byte[] {1, 2, 3, 4});
        BridgePeerException e = assertThrows(BridgePeerException.class, s::receive);
        assertMentions(e, "helper 'helper' refused", "not a psiflink.helper.v1 message");
      }
      assertDeals(pool, bed, a, bed.client(HelperBed.B), "after-garbage", 10);
    }
  }

  @Test
  void noHelperListeningFailsAtOnce() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      Future<HelperBed.Received> fa =
          HelperBed.receive(
              pool,
              bed.client(HelperBed.A),
              bed.creds(HelperBed.A),
              HelperBed.request("nobody", Role.A, 10, TIMEOUT));
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> fa.get(10, TimeUnit.SECONDS));
      BridgeException be = assertInstanceOf(BridgeException.class, e.getCause());
      assertMentions(be, "'helper' is not connected to the relay");
    }
  }

  @Test
  void aPartyVanishingMidStreamFailsTheOtherAndTheHelperServesTheNextSession() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      int bits = 24; // 4 chunks
      BridgeClient a = bed.client(HelperBed.A);
      CountDownLatch atChunk2 = new CountDownLatch(1);
      Future<?> fa =
          pool.submit(
              () ->
                  HelperClient.receive(
                      a,
                      bed.creds(HelperBed.A),
                      HelperBed.request("vanish", Role.A, bits, TIMEOUT),
                      (c, w) -> {
                        if (c == 2) {
                          atChunk2.countDown();
                          try {
                            Thread.sleep(60_000); // stuck until its client goes away
                          } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                          }
                        }
                      }));
      long start = System.nanoTime();
      Future<HelperBed.Received> fb =
          HelperBed.receive(
              pool,
              bed.client(HelperBed.B),
              bed.creds(HelperBed.B),
              HelperBed.request("vanish", Role.B, bits, TIMEOUT));
      assertTrue(atChunk2.await(20, TimeUnit.SECONDS));
      a.close(); // party A's connection goes away mid-stream
      HelperException eb = failure(fb);
      assertMentions(eb, "helper 'helper'", "party A ('party-a') broke off the session");
      assertTrue(System.nanoTime() - start < TIMEOUT.toNanos(), "within the timeout");
      fa.cancel(true);
      assertDeals(pool, bed, bed.client(HelperBed.A), bed.client(HelperBed.B), "next", 10);
    }
  }

  @Test
  void aHelperStoppedMidRunFailsThePartiesClearly() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      HelperService helper = bed.helper();
      int bits = 24;
      CountDownLatch atChunk1 = new CountDownLatch(1);
      Future<?> fa =
          pool.submit(
              () ->
                  HelperClient.receive(
                      bed.client(HelperBed.A),
                      bed.creds(HelperBed.A),
                      HelperBed.request("stop", Role.A, bits, TIMEOUT),
                      (c, w) -> {
                        if (c == 1) {
                          atChunk1.countDown();
                          try {
                            Thread.sleep(500); // keeps the session going while the helper stops
                          } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                          }
                        }
                      }));
      Future<HelperBed.Received> fb =
          HelperBed.receive(
              pool,
              bed.client(HelperBed.B),
              bed.creds(HelperBed.B),
              HelperBed.request("stop", Role.B, bits, TIMEOUT));
      assertTrue(atChunk1.await(20, TimeUnit.SECONDS));
      long start = System.nanoTime();
      helper.close();
      assertMentions(failure(fa), "helper 'helper'", "shutting down");
      assertMentions(failure(fb), "helper 'helper'", "shutting down");
      assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "not a hang");
    }
  }

  static HelperException failure(Future<?> f) throws Exception {
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
    return assertInstanceOf(HelperException.class, e.getCause(), String.valueOf(e.getCause()));
  }

  static void assertMentions(Exception e, String... parts) {
    for (String part : parts) {
      assertTrue(
          e.getMessage() != null && e.getMessage().contains(part),
          "message should mention '" + part + "': " + e.getMessage());
    }
  }
}
