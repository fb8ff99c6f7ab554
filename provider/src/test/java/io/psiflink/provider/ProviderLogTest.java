package io.psiflink.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.bridge.LogCapture;
import io.psiflink.bridge.ThrowawayPki;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the provider logs about a session: one line when it is set up, one when it ends (bins
 * served, bytes), with the session id, the party names, n and byte counts; nothing else.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProviderLogTest {
  @TempDir Path dir;
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  @Test
  void aSessionLogsItsSetupAndItsEndWithPublicFactsOnly() throws Exception {
    ThrowawayPki pki = ProviderBed.pki(dir);
    String session = "log-session";
    long sent = 0;
    long received = 0;
    List<String> lines;
    try (LogCapture logs = new LogCapture("io.psiflink.provider");
        ProviderBed bed = new ProviderBed(pki)) {
      ProviderConfig c = bed.config(Duration.ofSeconds(20), Duration.ofSeconds(20));
      ProviderService provider =
          bed.provider(
              new ProviderConfig(
                  c.relay(),
                  c.certificate(),
                  c.privateKey(),
                  c.trustedCa(),
                  c.allowedParties(),
                  c.maxParties(),
                  c.maxSetSize(),
                  c.sessionTimeout(),
                  c.idleTimeout(),
                  c.maxSessions(),
                  // long enough that a loaded machine does not expire the setup between bins
                  Duration.ofSeconds(2)));
      List<ProviderLink> links = ProviderBed.links(bed.connectAll(pool, session, 3, ""));
      for (int bin = 0; bin < 2; bin++) {
        for (Future<BinOutcome> f :
            bed.runBin(
                pool, links, bin, 0, new byte[32], ProviderBed.sets(20 + bin, 4, 12, 12, 12))) {
          BinOutcome o = f.get(30, TimeUnit.SECONDS);
          sent += o.bytesSent();
          received += o.bytesReceived();
        }
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (provider.sessionCount() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertEquals(0, provider.sessionCount(), "the idle session ended");
      lines = logs.lines();
    }
    List<String> about = lines.stream().filter(l -> l.contains(session)).toList();
    assertEquals(2, about.size(), "a line for the setup and one for the end: " + about);
    assertTrue(about.get(0).contains("set up for parties [party-a, party-b, party-c] (n=3)"));
    String end = about.get(1);
    assertTrue(end.contains("ended (idle for PT2S)"), end);
    assertTrue(end.contains("bins served=2, failed=0"), end);
    // the provider's bytes are the parties' bytes, the other way round
    assertTrue(end.contains("bytesIn=" + sent + ", bytesOut=" + received), end);
    for (String line : about) {
      // strip the session id, the names, the durations and the byte counts: what is left may hold
      // only n and the bins' counts
      String rest =
          line.replace(session, "")
              .replaceAll("party-[a-c]", "")
              .replaceAll("(duration=|idle for )PT[0-9.]+S", "")
              .replaceAll("bytes(In|Out)=\\d+", "");
      Set<String> allowed = Set.of("3", "2", "0");
      Matcher m = Pattern.compile("\\d+").matcher(rest);
      while (m.find()) {
        assertTrue(allowed.contains(m.group()), "number " + m.group() + " in: " + line);
      }
      assertFalse(rest.matches(".*[0-9a-f]{16}.*"), "no hex dumps: " + line);
    }
  }
}
