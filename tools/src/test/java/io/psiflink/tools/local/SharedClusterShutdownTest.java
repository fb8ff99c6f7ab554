package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The cluster both parties' jobs share leaves nothing in the run's work directory, whether the run
 * waits for its shutdown (a JVM that goes on) or only starts it because its JVM exits next ({@code
 * ./psi local}'s own, {@link LocalJoin.Hooks#EXIT}); the joined rows are the plaintext join's
 * either way.
 */
class SharedClusterShutdownTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void workDirectoryHoldsNoClusterFiles(boolean exitsAfterRun) throws Exception {
    JoinFixture f = JoinFixture.generate(1500, 2000, 0.5, 0.2, 0.05, 78);
    Map<String, String> opts = f.localJoinOptions(dir, "csv", "2", "512m");
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    try (PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      LocalJoin.run(opts, ps, exitsAfterRun ? LocalJoin.Hooks.EXIT : LocalJoin.Hooks.NONE);
    } catch (Exception e) {
      System.err.println(log.toString(StandardCharsets.UTF_8));
      throw e;
    }
    assertTrue(
        log.toString(StandardCharsets.UTF_8).contains("both parties run on threads of this JVM"));
    assertEquals(
        f.expected(),
        JoinFixture.readAvro(dir.resolve("out"), List.of("id", "spend", "email", "bid")));
    Path tmp = dir.resolve("work").resolve("tmp");
    if (exitsAfterRun) {
      // the task manager's spill and shuffle directories go with the shutdown this run only
      // started (or with Flink's shutdown hooks, in a JVM that exits): wait for it, on a busy
      // machine too
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!left(tmp).isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
    }
    assertEquals(List.of(), left(tmp));
  }

  private static List<Path> left(Path tmp) throws IOException {
    try (Stream<Path> left = Files.list(tmp)) {
      return left.toList();
    }
  }
}
