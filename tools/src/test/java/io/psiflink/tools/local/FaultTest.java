package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults on the path between the parties: the join is exactly right or fails clearly, never hangs.
 * A peer vanishing at each phase: {@link PeerVanishingTest}; a whole lossy network: {@code
 * NetworkDrillTest}.
 */
class FaultTest {
  @TempDir Path dir;

  @Test
  void connectionCutMidBinRetriesTheBinAndTheJoinIsExact() throws Exception {
    JoinFixture f = JoinFixture.generate(40_000, 40_000, 0.5, 0.1, 0.01, 11);
    Map<String, String> opts = f.localJoinOptions(dir, "csv", "4", "512m");
    // the parties' own log lines (the retry) reach the run's log from their JVMs' consoles
    opts.put("party-jvms", "true");
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    AtomicReference<CuttingProxy> proxy = new AtomicReference<>();
    LocalJoin.Result r;
    // Past the handshake (a few hundred KB) and into the bins' matrices (~0.7 MB per bin here).
    try (PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      r =
          LocalJoin.run(
              opts,
              ps,
              new LocalJoin.Hooks() {
                @Override
                public int bridgePort(Role party, int relayPort) throws IOException {
                  if (!party.equals(Role.A)) {
                    return relayPort;
                  }
                  proxy.set(new CuttingProxy(relayPort, 1_500_000));
                  return proxy.get().port();
                }
              });
    } finally {
      if (proxy.get() != null) {
        proxy.get().close();
      }
    }
    String text = log.toString(StandardCharsets.UTF_8);
    assertTrue(proxy.get().hasCut(), "the proxy never cut the connection");
    assertTrue(text.contains("retrying the bin alone"), text);
    assertTrue(!r.summaryA().contains("\"bin_retries\":0"), r.summaryA());
    assertEquals(
        f.expected(),
        JoinFixture.readAvro(dir.resolve("out"), List.of("id", "spend", "email", "bid")));
  }

  @Test
  void aPartyFailingAtStartStopsTheRunLongBeforeThePairTimeout() throws Exception {
    Map<String, String> opts =
        JoinFixture.generate(100, 100, 0.5, 0.0, 0.0, 13).localJoinOptions(dir, "csv", "4", "512m");
    // A fails at its start: its output is taken after ./psi local's own checks passed (as by a
    // run started meanwhile), which only A can find
    Path out = dir.resolve("out");
    LocalJoin.Hooks takeOutput =
        new LocalJoin.Hooks() {
          @Override
          public int bridgePort(Role party, int relayPort) throws IOException {
            if (party.equals(Role.A)) {
              Files.createDirectories(out);
              Files.writeString(out.resolve("earlier-result.csv"), "x\n");
            }
            return relayPort;
          }
        };
    opts.put("pair-timeout", "300");
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    long start = System.nanoTime();
    try (PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      Exception e = assertThrows(Exception.class, () -> LocalJoin.run(opts, ps, takeOutput));
      assertTrue(e.getMessage().contains("party A exit 1"), e.getMessage());
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    String text = log.toString(StandardCharsets.UTF_8);
    assertTrue(text.contains(out + "' already exists and is not empty"), text);
    assertTrue(text.contains("party B still runs"), text);
    assertTrue(seconds < 60, "took " + seconds + " s");
  }
}
