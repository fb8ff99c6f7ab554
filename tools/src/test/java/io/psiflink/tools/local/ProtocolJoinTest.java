package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A row join with each protocol other than the default, as two party JVMs over the real bridge,
 * equal to the plaintext join (duplicates, NULL keys and WHERE on both sides in the fixture; the
 * default protocol runs in every other job test).
 */
class ProtocolJoinTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"ecdh", "rr22"})
  void rowJoinEqualsPlaintextJoin(String protocol) throws Exception {
    JoinFixture f = JoinFixture.generate(1500, 2000, 0.5, 0.2, 0.05, 77);
    Map<String, String> opts = f.localJoinOptions(dir, "csv", "2", "512m");
    opts.put("protocol", protocol);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    try (PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      LocalJoin.run(opts, ps);
    } catch (Exception e) {
      System.err.println(log.toString(StandardCharsets.UTF_8));
      throw e;
    }
    assertEquals(
        f.expected(),
        JoinFixture.readAvro(dir.resolve("out"), List.of("id", "spend", "email", "bid")));
  }
}
