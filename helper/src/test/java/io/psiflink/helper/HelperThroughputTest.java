package io.psiflink.helper;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.ThrowawayPki;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Wall time of one helper session (both parties' receive: B a seed, A a seed and m_σ of 2^L bits;
 * relay and helper on loopback with TLS) for L = 24, 26, 28; median of 3 runs, printed, each run's
 * deal checked against the test's own expansion of the seeds. Slow: {@code -Dpsi.large=true}.
 */
@EnabledIfSystemProperty(named = "psi.large", matches = "true")
class HelperThroughputTest {
  @TempDir Path dir;

  @Test
  void sessionTimes() throws Exception {
    ThrowawayPki pki = HelperBed.pki(dir);
    ExecutorService pool = Executors.newCachedThreadPool();
    try (HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      BridgeClient a = bed.client(HelperBed.A);
      BridgeClient b = bed.client(HelperBed.B);
      Duration t = Duration.ofMinutes(2);
      for (int bits : new int[] {24, 26, 28}) {
        long[] ms = new long[3];
        for (int run = 0; run < ms.length; run++) {
          String session = "tp-" + bits + "-" + run;
          long start = System.nanoTime();
          Future<HelperBed.Received> fa =
              HelperBed.receive(
                  pool, a, bed.creds(HelperBed.A), HelperBed.request(session, Role.A, bits, t));
          Future<HelperBed.Received> fb =
              HelperBed.receive(
                  pool, b, bed.creds(HelperBed.B), HelperBed.request(session, Role.B, bits, t));
          HelperBed.Received ra = fa.get(5, TimeUnit.MINUTES);
          HelperBed.Received rb = fb.get(5, TimeUnit.MINUTES);
          ms[run] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
          if (run == 0) {
            HelperBed.assertCorrelated(ra, rb, bits, run);
          }
        }
        Arrays.sort(ms);
        System.out.printf(
            "helper session L=%d (%d MiB of m_σ to A): median %d ms of %s%n",
            bits, (1L << (bits - 3)) >> 20, ms[1], Arrays.toString(ms));
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
