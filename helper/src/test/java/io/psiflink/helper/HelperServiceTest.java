package io.psiflink.helper;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgePeerException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.PartyTrust;
import io.psiflink.bridge.ThrowawayPki;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
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

/** Two parties' clients and the helper service over a real relay with TLS on loopback. */
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

  /** Runs a session of both parties and checks both received m_A XNOR m_B. */
  static void assertCombines(
      ExecutorService pool, HelperBed bed, BridgeClient a, BridgeClient b, String session, int bits)
      throws Exception {
    long[] ma = HelperBed.filter(session.hashCode() * 31L + 1, bits);
    long[] mb = HelperBed.filter(session.hashCode() * 31L + 2, bits);
    Future<long[]> fa =
        HelperBed.exchange(
            pool, a, bed.creds(HelperBed.A), HelperBed.request(session, Role.A, bits, TIMEOUT), ma);
    Future<long[]> fb =
        HelperBed.exchange(
            pool, b, bed.creds(HelperBed.B), HelperBed.request(session, Role.B, bits, TIMEOUT), mb);
    long[] expected = HelperBed.xnor(ma, mb);
    assertArrayEquals(expected, fa.get(30, TimeUnit.SECONDS), "A's combined filter");
    assertArrayEquals(expected, fb.get(30, TimeUnit.SECONDS), "B's combined filter");
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
  void theCombinedFilterIsTheXnorOfBothMaskedFilters() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      BridgeClient a = bed.client(HelperBed.A);
      BridgeClient b = bed.client(HelperBed.B);
      assertCombines(pool, bed, a, b, "one-chunk", 10);
      assertCombines(pool, bed, a, b, "smallest", 6);
      assertCombines(pool, bed, a, b, "two-chunks", 23); // 2 chunks of 2^16 words
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
      long[] ma = HelperBed.filter(1, 10);
      long[] mb = HelperBed.filter(2, 10);
      // the right pin: the exchange works
      Future<long[]> fa =
          HelperBed.exchange(
              pool,
              bed.client(HelperBed.A),
              bed.creds(HelperBed.A),
              new HelperRequest(
                  "pin-ok", Role.A, HelperBed.B, HelperBed.HELPER, right, 10, TIMEOUT),
              ma);
      Future<long[]> fb =
          HelperBed.exchange(
              pool,
              bed.client(HelperBed.B),
              bed.creds(HelperBed.B),
              HelperBed.request("pin-ok", Role.B, 10, TIMEOUT),
              mb);
      assertArrayEquals(HelperBed.xnor(ma, mb), fa.get(30, TimeUnit.SECONDS));
      assertArrayEquals(HelperBed.xnor(ma, mb), fb.get(30, TimeUnit.SECONDS));
      // another pin: A refuses the helper, and B learns that A broke off
      Future<long[]> ga =
          HelperBed.exchange(
              pool,
              bed.client(HelperBed.A),
              bed.creds(HelperBed.A),
              new HelperRequest(
                  "pin-bad", Role.A, HelperBed.B, HelperBed.HELPER, wrong, 10, TIMEOUT),
              ma);
      Future<long[]> gb =
          HelperBed.exchange(
              pool,
              bed.client(HelperBed.B),
              bed.creds(HelperBed.B),
              HelperBed.request("pin-bad", Role.B, 10, TIMEOUT),
              mb);
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
      Future<long[]> fa =
          HelperBed.exchange(
              pool,
              bed.client(HelperBed.A),
              bed.creds(HelperBed.A),
              HelperBed.request("bits", Role.A, 10, TIMEOUT),
              HelperBed.filter(1, 10));
      Future<long[]> fb =
          HelperBed.exchange(
              pool,
              bed.client(HelperBed.B),
              bed.creds(HelperBed.B),
              HelperBed.request("bits", Role.B, 12, TIMEOUT),
              HelperBed.filter(2, 12));
      assertMentions(
          failure(fa), "helper 'helper'", "different filter bits", "L = 10 at A, 12 at B");
      assertMentions(failure(fb), "helper 'helper'", "different filter bits");
    }
  }

  @Test
  void mismatchedNamesAreRefusedNamingThem() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      Future<long[]> fa =
          HelperBed.exchange(
              pool,
              bed.client(HelperBed.A),
              bed.creds(HelperBed.A),
              new HelperRequest("names", Role.A, HelperBed.X, HelperBed.HELPER, null, 10, TIMEOUT),
              HelperBed.filter(1, 10));
      Future<long[]> fb =
          HelperBed.exchange(
              pool,
              bed.client(HelperBed.B),
              bed.creds(HelperBed.B),
              HelperBed.request("names", Role.B, 10, TIMEOUT),
              HelperBed.filter(2, 10));
      assertMentions(failure(fa), "do not name each other", "names 'party-x'");
      assertMentions(failure(fb), "do not name each other");
    }
  }

  @Test
  void mismatchedSessionsMeetNobodyAndTimeOutNamingTheMissingParty() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper(bed.config(Duration.ofSeconds(1)));
      long start = System.nanoTime();
      Future<long[]> fa =
          HelperBed.exchange(
              pool,
              bed.client(HelperBed.A),
              bed.creds(HelperBed.A),
              HelperBed.request("session-1", Role.A, 10, TIMEOUT),
              HelperBed.filter(1, 10));
      Future<long[]> fb =
          HelperBed.exchange(
              pool,
              bed.client(HelperBed.B),
              bed.creds(HelperBed.B),
              HelperBed.request("session-2", Role.B, 10, TIMEOUT),
              HelperBed.filter(2, 10));
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
      Future<long[]> fx =
          HelperBed.exchange(
              pool,
              bed.client(HelperBed.X),
              bed.creds(HelperBed.X),
              new HelperRequest("x", Role.A, HelperBed.B, HelperBed.HELPER, null, 10, TIMEOUT),
              HelperBed.filter(1, 10));
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
      Future<long[]> fa =
          HelperBed.exchange(
              pool,
              bed.client(HelperBed.A),
              bed.creds(HelperBed.A),
              HelperBed.request("own-ca", Role.A, 10, Duration.ofSeconds(3)),
              HelperBed.filter(1, 10));
      Future<long[]> fb =
          HelperBed.exchange(
              pool,
              bed.client(HelperBed.B),
              bed.creds(HelperBed.B),
              HelperBed.request("own-ca", Role.B, 10, TIMEOUT),
              HelperBed.filter(2, 10));
      assertMentions(
          failure(fb), "helper 'helper' refused", "the party's certificate is not acceptable");
      failure(fa); // A alone: no second party, its timeout
    }
  }

  @Test
  void tooManyFilterBitsAreRefused() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper(); // max 34
      Future<long[]> fa =
          pool.submit(
              () -> {
                HelperClient.exchange(
                    bed.client(HelperBed.A),
                    bed.creds(HelperBed.A),
                    HelperBed.request("big", Role.A, 35, TIMEOUT),
                    c -> {
                      throw new AssertionError("no chunk may be asked for");
                    },
                    (c, w) -> {});
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
      assertCombines(pool, bed, a, bed.client(HelperBed.B), "after-garbage", 10);
    }
  }

  @Test
  void noHelperListeningFailsAtOnce() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      Future<long[]> fa =
          HelperBed.exchange(
              pool,
              bed.client(HelperBed.A),
              bed.creds(HelperBed.A),
              HelperBed.request("nobody", Role.A, 10, TIMEOUT),
              HelperBed.filter(1, 10));
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
      long[] ma = HelperBed.filter(1, bits);
      Future<?> fa =
          pool.submit(
              () -> {
                HelperClient.exchange(
                    a,
                    bed.creds(HelperBed.A),
                    HelperBed.request("vanish", Role.A, bits, TIMEOUT),
                    c -> {
                      if (c == 2) {
                        atChunk2.countDown();
                        try {
                          Thread.sleep(60_000); // stuck until its client goes away
                        } catch (InterruptedException e) {
                          Thread.currentThread().interrupt();
                        }
                      }
                      return HelperBed.slice(ma, bits, c);
                    },
                    (c, w) -> {});
                return null;
              });
      long start = System.nanoTime();
      Future<long[]> fb =
          HelperBed.exchange(
              pool,
              bed.client(HelperBed.B),
              bed.creds(HelperBed.B),
              HelperBed.request("vanish", Role.B, bits, TIMEOUT),
              HelperBed.filter(2, bits));
      assertTrue(atChunk2.await(20, TimeUnit.SECONDS));
      a.close(); // party A's connection goes away mid-stream
      HelperException eb = failure(fb);
      assertMentions(eb, "helper 'helper'", "party A ('party-a') broke off the session");
      assertTrue(System.nanoTime() - start < TIMEOUT.toNanos(), "within the timeout");
      fa.cancel(true);
      assertCombines(pool, bed, bed.client(HelperBed.A), bed.client(HelperBed.B), "next", 10);
    }
  }

  @Test
  void aHelperStoppedMidRunFailsThePartiesClearly() throws Exception {
    try (HelperBed bed = new HelperBed(pki)) {
      HelperService helper = bed.helper();
      int bits = 24;
      CountDownLatch atChunk1 = new CountDownLatch(1);
      long[] ma = HelperBed.filter(1, bits);
      Future<?> fa =
          pool.submit(
              () -> {
                HelperClient.exchange(
                    bed.client(HelperBed.A),
                    bed.creds(HelperBed.A),
                    HelperBed.request("stop", Role.A, bits, TIMEOUT),
                    c -> {
                      if (c == 1) {
                        atChunk1.countDown();
                        try {
                          Thread.sleep(500);
                        } catch (InterruptedException e) {
                          Thread.currentThread().interrupt();
                        }
                      }
                      return HelperBed.slice(ma, bits, c);
                    },
                    (c, w) -> {});
                return null;
              });
      Future<long[]> fb =
          HelperBed.exchange(
              pool,
              bed.client(HelperBed.B),
              bed.creds(HelperBed.B),
              HelperBed.request("stop", Role.B, bits, TIMEOUT),
              HelperBed.filter(2, bits));
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
