package io.psiflink.provider;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.bridge.ThrowawayPki;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
 * n = 3, 4, 5 parties, each on its own thread with its own bridge client and certificate, and the
 * provider, over a real relay with TLS on loopback and real native sessions: every party's result
 * of every bin equals the plaintext intersection computed with Java sets. The bins of a session run
 * concurrently; each party's link travels as bytes to its "task" first, as in the Flink job. The
 * setup ran at set size 1 and every bin at another one: the setup export does not carry the set
 * size, so it imports into every bin's session.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProviderServiceTest {
  @TempDir static Path dir;
  private static ThrowawayPki pki;
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @BeforeAll
  static void createPki() {
    pki = ProviderBed.pki(dir);
  }

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  /** Runs the bins of one session concurrently and checks every party's every result. */
  private void runSession(
      ProviderBed bed, String session, int n, String params, List<ProviderBed.Sets> bins)
      throws Exception {
    List<ProviderLink> links = new ArrayList<>();
    for (ProviderLink l : ProviderBed.links(bed.connectAll(pool, session, n, params))) {
      // what a party ships to its tasks: the link as bytes
      links.add(ProviderLink.fromBytes(l.toBytes()));
    }
    byte[] secret = new byte[32];
    new Random(session.hashCode()).nextBytes(secret);
    List<List<Future<BinOutcome>>> running = new ArrayList<>();
    for (int b = 0; b < bins.size(); b++) {
      running.add(bed.runBin(pool, links, b, 0, secret, bins.get(b)));
    }
    for (int b = 0; b < bins.size(); b++) {
      ProviderBed.Sets sets = bins.get(b);
      for (int p = 0; p < n; p++) {
        BinOutcome o = running.get(b).get(p).get(60, TimeUnit.SECONDS);
        assertArrayEquals(
            sets.expected()[p], o.intersection(), session + " bin " + b + " party " + p);
        assertEquals(sets.setSize(), o.setSize(), "the largest demand");
        assertTrue(o.bytesSent() > 0 && o.bytesReceived() > 0, o.toString());
      }
    }
  }

  @Test
  void threePartiesAtEveryOverlapAndUnequalSizes() throws Exception {
    try (ProviderBed bed = new ProviderBed(pki)) {
      bed.provider();
      runSession(
          bed,
          "three",
          3,
          "",
          List.of(
              ProviderBed.sets(1, 0, 60, 60, 60), // 0 %
              ProviderBed.sets(2, 1, 100, 100, 100), // 1 %
              ProviderBed.sets(3, 30, 60, 60, 60), // 50 %
              ProviderBed.sets(4, 50, 50, 50, 50), // 100 %
              ProviderBed.sets(5, 20, 90, 40, 70))); // unequal sizes
    }
  }

  @Test
  void fourAndFivePartiesWithProtocolParameters() throws Exception {
    try (ProviderBed bed = new ProviderBed(pki)) {
      bed.provider();
      runSession(
          bed,
          "four",
          4,
          "fpr=1e-12",
          List.of(
              ProviderBed.sets(6, 25, 50, 50, 50, 50), ProviderBed.sets(7, 10, 80, 30, 55, 64)));
      runSession(
          bed,
          "five",
          5,
          "fpr=1e-12,fill=0.3",
          List.of(
              ProviderBed.sets(8, 0, 40, 40, 40, 40, 40),
              ProviderBed.sets(9, 40, 40, 40, 40, 40, 40)));
    }
  }

  @Test
  void aPartyWithAnEmptyBinLearnsNothingAndTheOthersNothingEither() throws Exception {
    try (ProviderBed bed = new ProviderBed(pki)) {
      bed.provider();
      runSession(bed, "empty", 3, "", List.of(ProviderBed.sets(10, 0, 30, 0, 30)));
    }
  }
}
