package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The labeled mode end to end, as two party JVMs over the real bridge: A's output equals the
 * plaintext join (duplicates on both sides, NULL keys and WHERE on both sides in the fixture), and
 * B's summary and logs hold no intersection size.
 */
class LabeledJoinTest {
  @TempDir Path dir;

  @Test
  void labeledJoinEqualsPlaintextJoinAndBLearnsNothing() throws Exception {
    labeledJoin("rr22");
  }

  /**
   * The other protocols' labels, end to end (each is tested against the oracle bin by bin in
   * flink-jobs' LabeledBinExchangeTest in every build): two party JVMs each, so with --large.
   */
  @ParameterizedTest
  @ValueSource(strings = {"kkrt", "ecdh"})
  @EnabledIfSystemProperty(named = "psi.large", matches = "true")
  void labeledJoinWithEveryProtocol(String protocol) throws Exception {
    labeledJoin(protocol);
  }

  private void labeledJoin(String protocol) throws Exception {
    JoinFixture f = JoinFixture.generate(1500, 2000, 0.5, 0.2, 0.05, 79);
    Map<String, String> opts = f.localJoinOptions(dir, "csv", "2", "512m");
    opts.put("protocol", protocol);
    opts.put("mode", "labeled");
    opts.put("label-bytes", "160"); // the fixture's largest key: 4 rows in 123 bytes
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    LocalJoin.Result r;
    try (PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      r = LocalJoin.run(opts, ps);
    } catch (Exception e) {
      System.err.println(log.toString(StandardCharsets.UTF_8));
      throw e;
    }
    assertEquals(
        f.expected(),
        JoinFixture.readAvro(dir.resolve("out"), List.of("id", "spend", "email", "bid")));
    assertTrue(r.summaryA().contains("\"intersecting_keys\":"), r.summaryA());
    assertFalse(r.summaryB().contains("intersecting"), r.summaryB());
    assertTrue(r.summaryB().contains("\"rows_out\":0"), r.summaryB());
    for (String line : log.toString(StandardCharsets.UTF_8).split("\n")) {
      if (line.startsWith("[B] ")) {
        assertFalse(line.matches(".*\\d+ intersecting.*"), line);
      }
    }
  }
}
