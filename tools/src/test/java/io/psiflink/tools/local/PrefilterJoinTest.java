package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
import io.psiflink.jobs.JobSummary;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code ./psi local --prefilter helper} end to end: both parties' JVMs and the helper's JVM over
 * the real relay. The joined rows equal the plaintext join computed in the test (and those of the
 * same run without the prefilter), every common key survives the filter, most others do not, and a
 * helper that vanishes fails the join in words within the timeout.
 */
class PrefilterJoinTest {
  @TempDir Path dir;

  /** The default suite's run: 1 % overlap, duplicates and NULL keys, unequal sizes. */
  @Test
  void prefilteredJoinEqualsPlaintextJoin() throws Exception {
    JoinFixture f = JoinFixture.generate(3000, 2000, 0.01, 0.2, 0.05, 1414);
    LocalJoin.Result r =
        joinAndCheck(f, dir.resolve("p"), Map.of("prefilter", "helper", "filter-bits", "16"));
    JobSummary a = JobSummary.fromJson(r.summaryA());
    JobSummary b = JobSummary.fromJson(r.summaryB());
    for (JobSummary s : List.of(a, b)) {
      assertNotNull(s.prefilter(), "the summary has the prefilter's part");
      assertEquals(16, s.prefilter().filterBits());
      assertEquals(2, s.prefilter().filterHashes());
      // the helper takes nothing; it deals a 16-byte seed, and to A m_σ (2^16 bits = 8 KiB) too;
      // the AND crosses between the parties as the chooser's e and c and the other's w, one
      // chunk each (a type byte and 8 KiB); B, the smaller table, chooses
      boolean isA = s == a;
      assertEquals(0, s.prefilter().bytesToHelper(), "the helper takes no data");
      assertEquals(16 + (isA ? 1L << 13 : 0), s.prefilter().bytesFromHelper());
      assertEquals((isA ? 1 : 2) * (1 + (1L << 13)), s.prefilter().bytesToPeer());
      assertEquals((isA ? 2 : 1) * (1 + (1L << 13)), s.prefilter().bytesFromPeer());
      // the filter keeps the common keys and drops most of the rest (at most ~1 % false hits)
      assertTrue(
          s.prefilter().candidates() < s.rowsTokenized() / 4,
          s.prefilter().candidates() + " candidates of " + s.rowsTokenized());
      // the size each party discloses is its candidate count rounded up to 3 leading binary
      // digits (the default policy), not its table's
      long c = s.prefilter().candidates();
      assertTrue(
          s.rowsDisclosed() >= c && s.rowsDisclosed() <= c + c / 4 + 1,
          s.rowsDisclosed() + " disclosed for " + c + " candidates");
    }
    assertTrue(
        r.prefilterLine().startsWith("prefilter (2^16 bits, k = 2): party A "), r.prefilterLine());
  }

  /** The overlaps and shapes, with and without the prefilter: minutes, so psi.large. */
  @ParameterizedTest(name = "{0} x {1} rows, overlap {2}, dup {3}")
  @CsvSource({
    "4000, 4000, 0.0, 0.1",
    "20000, 2000, 0.001, 0.2",
    "5000, 3000, 0.01, 0.3",
    "3000, 3000, 0.5, 0.2",
    "200, 8000, 0.5, 0.0"
  })
  @EnabledIfSystemProperty(named = "psi.large", matches = "true")
  void prefilteredJoinEqualsPlaintextJoinAtEveryOverlap(
      int rowsA, int rowsB, double overlap, double dup) throws Exception {
    JoinFixture f = JoinFixture.generate(rowsA, rowsB, overlap, dup, 0.02, rowsA * 7L + rowsB);
    joinAndCheck(f, dir.resolve("with"), Map.of("prefilter", "helper"));
    joinAndCheck(f, dir.resolve("without"), Map.of());
  }

  /**
   * {@code --prefilter auto} where the filter cannot pay (a few thousand rows: its fixed cost is
   * more than the whole PSI): both jobs decide alike to join without it, exactly.
   */
  @Test
  void autoJoinsWithoutTheFilterWhereItCannotPay() throws Exception {
    JoinFixture f = JoinFixture.generate(3000, 2000, 0.01, 0.2, 0.05, 1415);
    LocalJoin.Result r =
        joinAndCheck(
            f, dir.resolve("auto"), Map.of("prefilter", "auto", "expected-overlap", "0.01"));
    assertNull(JobSummary.fromJson(r.summaryA()).prefilter(), r.summaryA());
    assertNull(JobSummary.fromJson(r.summaryB()).prefilter(), r.summaryB());
    assertNull(r.prefilterLine());
  }

  private LocalJoin.Result joinAndCheck(JoinFixture f, Path where, Map<String, String> prefilter)
      throws Exception {
    java.nio.file.Files.createDirectories(where);
    Map<String, String> opts =
        new java.util.HashMap<>(f.localJoinOptions(where, "csv", "2", "512m"));
    opts.putAll(prefilter);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    LocalJoin.Result r;
    try (PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      r = LocalJoin.run(opts, ps);
    } catch (Exception e) {
      System.err.println(log.toString(StandardCharsets.UTF_8));
      throw e;
    }
    List<String> expected = f.expected();
    List<String> actual =
        JoinFixture.readAvro(where.resolve("out"), List.of("id", "spend", "email", "bid"));
    assertEquals(expected, actual);
    return r;
  }

  /**
   * The helper's JVM is killed as a party's job starts: each party receives the helper's
   * correlations from its job's start, and the first to log that it does so (before it connects)
   * has the helper killed at once, so the helper is gone before it could have dealt to both. Both
   * parties fail, naming the helper, within the timeouts (10 s here) plus the job's start and stop,
   * not after minutes; no joined table appears.
   */
  @Test
  void aHelperThatVanishesFailsTheJoinInWords() throws Exception {
    JoinFixture f = JoinFixture.generate(300, 300_000, 0.1, 0.0, 0.0, 99);
    Map<String, String> opts = new java.util.HashMap<>(f.localJoinOptions(dir, "csv", "2", "512m"));
    opts.put("prefilter", "helper");
    opts.put("filter-bits", "26"); // 8 MiB to A: the dealing takes a while
    // the parties' own log lines (which say when to kill) come from their JVMs' consoles
    opts.put("party-jvms", "true");
    opts.put("pair-timeout", "10");
    opts.put("idle-timeout", "10");
    AtomicReference<Process> helper = new AtomicReference<>();
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    OutputStream watch =
        LogLines.tap(
            captured,
            line -> {
              Process h = helper.get();
              if (line.contains("receiving the pre-filter's correlations from helper 'helper'")
                  && h != null) {
                h.destroyForcibly();
              }
            });
    LocalJoin.Hooks hooks =
        new LocalJoin.Hooks() {
          @Override
          public void started(Role party, Process process) {
            if (party.equals(Role.HELPER)) {
              helper.set(process);
            }
          }
        };
    long start = System.nanoTime();
    try (PrintStream ps = new PrintStream(watch, true, StandardCharsets.UTF_8)) {
      Exception e =
          assertThrows(
              Exception.class,
              () -> LocalJoin.run(opts, ps, hooks),
              () -> "the join should have failed:\n" + captured.toString(StandardCharsets.UTF_8));
      assertTrue(e.getMessage().contains("the join failed"), e.getMessage());
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    String log = captured.toString(StandardCharsets.UTF_8);
    assertNotNull(helper.get(), "the helper ran in its own JVM");
    assertTrue(!helper.get().isAlive(), "the helper was killed");
    assertTrue(
        log.contains("the prefilter with helper 'helper' failed"),
        "a party names the helper's failure:\n" + log);
    assertTrue(seconds < 90, "the join failed after " + seconds + " s");
    assertTrue(!java.nio.file.Files.exists(dir.resolve("out")), "no joined table");
  }
}
