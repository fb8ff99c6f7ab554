package io.psiflink.helper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.bridge.LogCapture;
import io.psiflink.bridge.ThrowawayPki;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the helper logs about a session: its id, the names, L, outcome, duration, bytes; no more.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HelperLogTest {
  @TempDir Path dir;
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  @Test
  void aSessionsLogLinesCarryNoNumberButLAndByteCounts() throws Exception {
    ThrowawayPki pki = HelperBed.pki(dir);
    int bits = 12;
    String session = "log-session";
    List<String> lines;
    try (LogCapture logs = new LogCapture("io.psiflink.helper");
        HelperBed bed = new HelperBed(pki)) {
      bed.helper();
      HelperServiceTest.assertDeals(
          pool, bed, bed.client(HelperBed.A), bed.client(HelperBed.B), session, bits);
      bed.close();
      lines = logs.lines();
    }
    List<String> about = lines.stream().filter(l -> l.contains(session)).toList();
    assertEquals(1, about.size(), "one line per session: " + about);
    String line = about.get(0);
    long dealt = (1L << (bits - 3)) + 2 * 16; // m_σ of 2^L bits to A, a 16-byte seed to each
    assertTrue(line.contains("L=" + bits), line);
    assertTrue(line.contains("ok"), line);
    assertTrue(line.contains("bytesOut=" + dealt), line);
    assertFalse(line.contains("bytesIn"), "the helper takes no data: " + line);
    // strip the session id, the names and the duration: what is left may hold only L and bytes
    String rest =
        line.replace(session, "")
            .replace(HelperBed.A, "")
            .replace(HelperBed.B, "")
            .replaceAll("duration=[^,]*", "");
    Set<String> allowed = Set.of(Integer.toString(bits), Long.toString(dealt));
    Matcher m = Pattern.compile("\\d+").matcher(rest);
    while (m.find()) {
      assertTrue(allowed.contains(m.group()), "number " + m.group() + " in: " + line);
    }
    assertFalse(rest.matches(".*[0-9a-f]{16}.*"), "no hex dumps: " + line);
  }
}
