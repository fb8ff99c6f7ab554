package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
import io.psiflink.jobs.JobSummary;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run whose party is killed (SIGKILL) at about half of its bins is resumed: the bins A committed
 * are not run again, the output equals the plaintext join, and nothing of the run is left to
 * resume.
 */
class ResumeTest {
  private static final int BINS = 8;
  private static final Pattern BIN_DONE = Pattern.compile("^\\[([AB])\\].* bin ([0-9]+) done \\(");

  @TempDir Path dir;

  @Test
  void partyAKilledAtHalfTheBinsIsResumedWithoutRedoingItsCommittedBins() throws Exception {
    killedAtHalfThenResumed(Role.A);
  }

  @Test
  @EnabledIfSystemProperty(named = "psi.large", matches = "true")
  void partyBKilledAtHalfTheBinsIsResumedAndAChangedTableIsRefused() throws Exception {
    killedAtHalfThenResumed(Role.B);
  }

  /**
   * With the helper's pre-filter: the resumed run keeps the first run's filter key, so its
   * candidates fall in the bins they were committed under.
   */
  @Test
  @EnabledIfSystemProperty(named = "psi.large", matches = "true")
  void aPrefilteredRunIsResumedExactly() throws Exception {
    killedAtHalfThenResumed(Role.A, Map.of("prefilter", "helper"));
  }

  private void killedAtHalfThenResumed(Role victim) throws Exception {
    killedAtHalfThenResumed(victim, Map.of());
  }

  private void killedAtHalfThenResumed(Role victim, Map<String, String> more) throws Exception {
    JoinFixture f = JoinFixture.generate(20_000, 20_000, 0.5, 0.05, 0.01, 21);
    Map<String, String> opts = f.localJoinOptions(dir, "csv", Integer.toString(BINS), "512m");
    opts.putAll(more);
    // long enough for both JVMs to start on a busy machine; the survivor of the kill waits as long
    opts.put("pair-timeout", "15");
    opts.put("idle-timeout", "15");
    opts.put("attempts", "2");
    opts.put("party-jvms", "true"); // a party's JVM is killed
    AtomicReference<Process> process = new AtomicReference<>();
    AtomicInteger done = new AtomicInteger();
    ByteArrayOutputStream first = new ByteArrayOutputStream();
    OutputStream killer =
        LogLines.tap(
            first,
            line -> {
              Matcher m = BIN_DONE.matcher(line);
              if (m.find()
                  && m.group(1).equals(victim.label())
                  && done.incrementAndGet() == BINS / 2
                  && process.get() != null) {
                process.get().destroyForcibly(); // SIGKILL: no shutdown hook, no cleanup
              }
            });
    try (PrintStream ps = new PrintStream(killer, true, StandardCharsets.UTF_8)) {
      Exception e =
          assertThrows(
              Exception.class,
              () ->
                  LocalJoin.run(
                      opts,
                      ps,
                      new LocalJoin.Hooks() {
                        @Override
                        public void started(Role party, Process p) {
                          if (party.equals(victim)) {
                            process.set(p);
                          }
                        }
                      }));
      assertTrue(
          e.getMessage().contains("resume it with ./psi local --resume"),
          e.getMessage() + "\n" + first.toString(StandardCharsets.UTF_8));
    }
    assertTrue(done.get() >= BINS / 2, first.toString(StandardCharsets.UTF_8));
    assertFalse(Files.exists(dir.resolve("out")), "the failed run left an output");

    if (victim.equals(Role.B)) {
      // a table that changed since the failed run is refused, before any bin runs again
      Path b = dir.resolve("b.csv");
      FileTime t = Files.getLastModifiedTime(b);
      Files.setLastModifiedTime(b, FileTime.fromMillis(t.toMillis() + 60_000));
      ByteArrayOutputStream refused = new ByteArrayOutputStream();
      try (PrintStream ps = new PrintStream(refused, true, StandardCharsets.UTF_8)) {
        assertThrows(Exception.class, () -> resume(opts, ps));
      }
      String text = refused.toString(StandardCharsets.UTF_8);
      assertTrue(text.contains("changed since the run to resume"), text);
      Files.setLastModifiedTime(b, t);
    }

    ByteArrayOutputStream second = new ByteArrayOutputStream();
    LocalJoin.Result r;
    try (PrintStream ps = new PrintStream(second, true, StandardCharsets.UTF_8)) {
      r = resume(opts, ps);
    }
    String text = second.toString(StandardCharsets.UTF_8);
    JobSummary a = JobSummary.fromJson(r.summaryA());
    assertEquals(BINS, a.binsDone(), r.summaryA());
    // the bins A committed before the kill came out of its journal; the others ran again
    int resumedA = count(text, "[A]", "committed by an earlier run");
    int resumedB = count(text, "[B]", "committed by an earlier run");
    assertTrue(resumedA >= 1 && resumedA < BINS, text);
    assertEquals(resumedA, resumedB, text);
    assertEquals(
        f.expected(),
        JoinFixture.readAvro(dir.resolve("out"), List.of("id", "spend", "email", "bid")));
    // nothing is left to resume: neither party's state (it holds the token key) nor A's journal
    Path work = dir.resolve("work");
    assertFalse(Files.exists(work.resolve("party-A/resume")), "A's resume state is left");
    assertFalse(Files.exists(work.resolve("party-B/resume")), "B's resume state is left");
    try (var s = Files.list(dir)) {
      assertTrue(s.noneMatch(p -> p.getFileName().toString().contains(".resume-")), "journal left");
    }
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        LocalJoin.execute(
            new String[] {"--resume", work.toString()},
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            LocalJoin.Hooks.NONE);
    assertEquals(2, exit);
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("nothing to resume"), err.toString());
  }

  private static LocalJoin.Result resume(Map<String, String> opts, PrintStream log)
      throws Exception {
    return LocalJoin.run(opts, log, LocalRunFile.resuming(LocalJoin.Hooks.NONE));
  }

  private static int count(String text, String prefix, String needle) {
    return (int) text.lines().filter(l -> l.startsWith(prefix) && l.contains(needle)).count();
  }
}
