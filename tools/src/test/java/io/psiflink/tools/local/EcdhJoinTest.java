package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ECDH protocol's cardinality output in the job, as two party JVMs over the real bridge: a
 * count-only query equal to the plaintext count of common keys (row joins of every protocol: {@link
 * ProtocolJoinTest}).
 */
class EcdhJoinTest {
  @TempDir Path dir;

  @Test
  void countDistinctKeysRevealsOnlyTheCount() throws Exception {
    JoinFixture f = JoinFixture.generate(1500, 2000, 0.3, 0.2, 0.05, 78);
    Map<String, String> opts = f.localJoinOptions(dir, "csv", "0", "512m");
    opts.remove("bins");
    opts.put("protocol", "ecdh");
    opts.put(
        "sql",
        JoinFixture.SQL.replace(
            "SELECT a.id, a.spend, b.email, b.id AS bid",
            "SELECT COUNT(DISTINCT a.zip, a.card) AS common"));
    LocalJoin.Result r = run(opts);
    assertEquals(
        List.of(Long.toString(f.expectedKeyCount())),
        JoinFixture.readAvro(dir.resolve("out"), List.of("common")));
    assertTrue(f.expectedKeyCount() > 50, "the fixture should have common keys");
    // B learned nothing: no intersecting keys, no rows
    assertTrue(r.summaryB().contains("\"intersecting_keys\":0"), r.summaryB());
  }

  private static LocalJoin.Result run(Map<String, String> opts) throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    try (PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      return LocalJoin.run(opts, ps);
    } catch (Exception e) {
      System.err.println(log.toString(StandardCharsets.UTF_8));
      throw e;
    }
  }
}
