package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.psiflink.tools.bench.Faults;
import io.psiflink.tools.bench.FaultyLoopback;
import io.psiflink.tools.bench.Json;
import io.psiflink.tools.bench.NetSpec;
import io.psiflink.tools.bench.SlowNetwork;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The network fault drill of {@code ./psi bench join --drop-every --jitter} in small: a 10^4 × 10^4
 * join whose traffic between the parties is delayed, jittered and has its connections reset at
 * seeded random points; the bins hit retry alone and the output is exactly the plaintext join. The
 * 10^6 drill is run by hand (docs/operations.md, "Fault drills").
 */
class NetworkDrillTest {
  @TempDir Path dir;

  /**
   * One reset per ~10 MB on average, first after 5 MB (past the handshake). A bin's attempt moves
   * ~2 MB here, so a retry is rarely hit again; 16 bins move ~35 MB, so a few resets are certain.
   */
  private static final Faults FAULTS = new Faults(10_000_000, Duration.ofMillis(3), 16);

  private Map<String, String> options(JoinFixture f) throws Exception {
    Map<String, String> opts = f.localJoinOptions(dir, "csv", "16", "512m");
    // five attempts: a bin's retry may be hit by the next reset too
    opts.put("attempts", "5");
    // the parties' own log lines (the retries) reach the run's log from their JVMs' consoles
    opts.put("party-jvms", "true");
    return opts;
  }

  @Test
  void aJoinThroughResetsDelayAndJitterOnLoopbackIsExact() throws Exception {
    JoinFixture f = JoinFixture.generate(10_000, 10_000, 0.5, 0.1, 0.01, 31);
    Map<String, String> opts = options(f);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    LocalJoin.Result r;
    long dropped;
    try (FaultyLoopback net = FaultyLoopback.start(Duration.ofMillis(2), FAULTS);
        PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      r = LocalJoin.run(opts, ps, net.hooks());
      dropped = net.connectionsDropped();
    }
    check(f, r, dropped, log);
  }

  /** The same through the real link of {@code --net}: a namespace, veth and tbf (root only). */
  @Test
  @EnabledIfSystemProperty(named = "psi.large", matches = "true")
  void aJoinThroughResetsOnTheShapedLinkIsExact() throws Exception {
    Assumptions.assumeTrue(SlowNetwork.available(), "needs root, ip and tc");
    JoinFixture f = JoinFixture.generate(10_000, 10_000, 0.5, 0.1, 0.01, 32);
    Map<String, String> opts = options(f);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    LocalJoin.Result r;
    long dropped;
    try (PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8);
        SlowNetwork net = SlowNetwork.start(NetSpec.parse("100mbit,5ms"), FAULTS, ps)) {
      r = LocalJoin.run(opts, ps, net.hooks());
      dropped = net.connectionsDropped();
    }
    check(f, r, dropped, log);
  }

  private void check(JoinFixture f, LocalJoin.Result r, long dropped, ByteArrayOutputStream log)
      throws Exception {
    String text = log.toString(StandardCharsets.UTF_8);
    JsonNode a = Json.parse(r.summaryA());
    JsonNode b = Json.parse(r.summaryB());
    long bytes = a.path("bytes_sent").asLong() + a.path("bytes_received").asLong();
    long retries = a.path("bin_retries").asLong() + b.path("bin_retries").asLong();
    System.out.printf(
        "drill: %,d bytes between the parties, %d connections reset, bin retries A %d, B %d, %.1f"
            + " s%n",
        bytes,
        dropped,
        a.path("bin_retries").asLong(),
        b.path("bin_retries").asLong(),
        r.seconds());
    // the drill has to have drilled: past 1.5 x the mean gap, at least one reset is certain
    assertTrue(bytes > FAULTS.dropEveryBytes() * 3 / 2, "too few bytes for a reset: " + bytes);
    assertTrue(dropped >= 1, "no connection was reset\n" + text);
    assertTrue(retries >= 1, "resets, but no bin retried\n" + text);
    assertTrue(text.contains("retrying the bin alone"), text);
    assertEquals(
        f.expected(),
        JoinFixture.readAvro(dir.resolve("out"), List.of("id", "spend", "email", "bid")));
  }
}
