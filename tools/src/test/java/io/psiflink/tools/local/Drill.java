package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.connectors.QuarantineSink;
import io.psiflink.connectors.TableFormat;
import io.psiflink.connectors.TableReader;
import io.psiflink.connectors.TableSink;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.types.Row;

/** One fault drill's run of {@code ./psi local} and the checks every drill makes of its result. */
record Drill(Exception error, String log, double seconds) {
  /**
   * How long a drill may take to end: generous, as two parties' JVMs and Flink clusters start on a
   * loaded 2-core machine in 1-2 minutes (60-140 s measured at load average 20), but bounded, so a
   * hang fails the drill.
   */
  static final double BOUND_SECONDS = 300;

  /** Runs the join; its failure is the result, not thrown. */
  static Drill run(Map<String, String> opts, LocalJoin.Hooks hooks) {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    // also on the console, where the build log keeps it
    java.io.OutputStream tee =
        new java.io.OutputStream() {
          @Override
          public synchronized void write(int b) {
            log.write(b);
            System.out.write(b);
          }

          @Override
          public synchronized void write(byte[] b, int off, int len) {
            log.write(b, off, len);
            System.out.write(b, off, len);
          }
        };
    long start = System.nanoTime();
    Exception error = null;
    try (PrintStream ps = new PrintStream(tee, true, StandardCharsets.UTF_8)) {
      LocalJoin.run(opts, ps, hooks);
    } catch (Exception e) {
      error = e;
    }
    return new Drill(
        error, log.toString(StandardCharsets.UTF_8), (System.nanoTime() - start) / 1e9);
  }

  /**
   * Asserts the join failed within {@code seconds}, the party {@code failed} first with a line that
   * holds every one of {@code cause} (not a hang, not a success).
   */
  void assertFailedClearly(String failed, double seconds, String... cause) {
    assertTrue(error != null, "the join succeeded:\n" + log);
    assertTrue(this.seconds < seconds, "took " + this.seconds + " s:\n" + log);
    String line =
        log.lines()
            .filter(l -> l.startsWith("[" + failed + "] psi party " + failed + " failed: "))
            .findFirst()
            .orElse(null);
    assertTrue(line != null, "no failure line of party " + failed + ":\n" + log);
    for (String c : cause) {
      assertTrue(line.contains(c), "'" + c + "' not in: " + line);
    }
    assertTrue(
        error.getMessage().contains("party A exit 1")
            && error.getMessage().contains("party B exit"),
        error.getMessage());
  }

  /** Nothing at the target: not the output, not a part of it. */
  static void assertNoOutput(Path out) {
    assertFalse(Files.exists(out), out + " exists after a failed join");
  }

  /**
   * A party's quarantine is absent, or complete (its {@code _SUCCESS}) and holds exactly the
   * expected records, each given as "file name:line".
   */
  static void assertQuarantineCompleteOrAbsent(Path q, Set<String> expected) throws Exception {
    if (!Files.exists(q)) {
      return;
    }
    assertTrue(TableSink.isComplete(q.toString()), q + " exists but is not complete");
    Set<String> actual = new TreeSet<>();
    for (Row r : TableReader.readAll(q.toString(), TableFormat.CSV, QuarantineSink.SCHEMA).rows()) {
      String source = (String) r.getField(0);
      actual.add(Path.of(source.replaceFirst("^file:", "")).getFileName() + ":" + r.getField(1));
    }
    assertEquals(new TreeSet<>(expected), actual, "the quarantine " + q);
  }

  /** "a.csv:line" of the rows of {@code f}'s table a whose key is NULL (CSV: header is line 1). */
  static Set<String> nullKeysOfA(JoinFixture f) {
    Set<String> lines = new TreeSet<>();
    for (int i = 0; i < f.a.size(); i++) {
      if (f.a.get(i).card() == null || f.a.get(i).zip() == null) {
        lines.add("a.csv:" + (i + 2));
      }
    }
    return lines;
  }
}
