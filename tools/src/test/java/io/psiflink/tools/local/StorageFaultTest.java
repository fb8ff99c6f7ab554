package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fault drills of the parties' storage (issue 16): a spill disk that fills up, the output's file
 * system gone at the commit. Each ends in a clear error naming the cause within a bounded time,
 * with nothing at the output's path and each quarantine complete or absent. The faults are real: a
 * small tmpfs (so these need root; skipped otherwise), filled by the job or remounted read-only or
 * unmounted under it.
 */
@EnabledIfSystemProperty(
    named = "psi.large",
    matches = "true",
    disabledReason =
        "fault drills: a two-party join each, minutes in all; ./psi test --large runs them (the"
            + " connectors' own tests check the same faults fast)")
class StorageFaultTest {
  @TempDir Path dir;

  /**
   * {@code party JVMs}: B's work directory is a small disk. {@code threads}: both jobs run on one
   * MiniCluster that spills to the run's work/tmp, and that is the small disk; whichever party
   * finds it full first fails naming it.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"party JVMs", "threads"})
  void aSpillDiskThatFillsUpFailsBothPartiesNamingIt(String mode) throws Exception {
    JoinFixture f = JoinFixture.generate(20_000, 600_000, 0.5, 0.0, 0.01, 31);
    Map<String, String> opts = f.localJoinOptions(dir, "csv", "4", "512m");
    // the peer notices within these (the defaults suit real networks, not a drill)
    opts.put("pair-timeout", "8");
    opts.put("idle-timeout", "8");
    boolean jvms = mode.equals("party JVMs");
    if (jvms) {
      opts.put("party-jvms", "true");
    }
    // the spill is Flink's io.tmp.dirs, <home>/tmp: the bins' spill files and the shuffle's
    // files; 16 MB hold the job's start, not B's 600k rows (some 30 MB in each of the shuffle and
    // the bins' spill): whichever finds the disk full first fails its job
    Path home = jvms ? dir.resolve("work/party-B") : dir.resolve("work");
    Drill d;
    try (Tmpfs disk = Tmpfs.mount(jvms ? home : home.resolve("tmp"), "16m")) {
      d = Drill.run(opts, LocalJoin.Hooks.NONE);
    }
    String full = "No space left on device";
    String failed =
        jvms
                || d.log()
                    .lines()
                    .anyMatch(l -> l.startsWith("[B] psi party B failed: ") && l.contains(full))
            ? "B"
            : "A";
    d.assertFailedClearly(failed, Drill.BOUND_SECONDS, full);
    assertTrue(d.error().getMessage().contains("its spill"), d.error().getMessage());
    assertTrue(d.error().getMessage().contains(" is in " + home + ","), d.error().getMessage());
    // the peer fails on its own when its bins find no peer, or ./psi local stops it, saying so,
    // when it is still busy with its own rows
    String peer = failed.equals("A") ? "B" : "A";
    assertTrue(
        d.log().contains("[" + peer + "] psi party " + peer + " failed: ")
            || d.log()
                .contains("psi local: party " + peer + " still runs 15 s after its peer failed"),
        d.log());
    Drill.assertNoOutput(dir.resolve("out"));
    Drill.assertQuarantineCompleteOrAbsent(dir.resolve("out.quarantine/a"), Drill.nullKeysOfA(f));
    Drill.assertQuarantineCompleteOrAbsent(dir.resolve("out.quarantine/b"), nullKeysOfB(f));
  }

  /**
   * The output's file system at the moment A commits (after the job succeeded): read-only, or
   * unmounted (the path then shows the directory beneath, where the staged files are not).
   */
  @ParameterizedTest(name = "output file system {0} at the commit")
  @ValueSource(strings = {"read-only", "unmounted"})
  void theOutputFileSystemGoneAtTheCommitFailsWithoutAnOutput(String fault) throws Exception {
    JoinFixture f = JoinFixture.generate(3_000, 3_000, 0.5, 0.0, 0.02, 32);
    Map<String, String> opts = f.localJoinOptions(dir, "csv", "4", "512m");
    Path parent = dir.resolve("results");
    Path out = parent.resolve("out");
    opts.put("out", out.toString());
    // the quarantines elsewhere: A commits its own before the output, so it is complete then
    opts.put("quarantine", dir.resolve("quarantine").toString());
    Drill d;
    try (Tmpfs fs = Tmpfs.mount(parent, "64m");
        CommitPause pause =
            new CommitPause(
                out.toString(),
                () -> {
                  if (fault.equals("read-only")) {
                    fs.remountReadOnly();
                  } else {
                    fs.unmount();
                  }
                })) {
      d =
          Drill.run(
              opts,
              new LocalJoin.Hooks() {
                @Override
                public List<String> launchPrefix(Role party) {
                  return party.equals(Role.A) ? pause.launchPrefix() : List.of();
                }

                @Override
                public void started(Role party, Process process) {
                  if (party.equals(Role.A)) {
                    pause.watch();
                  }
                }
              });
      assertTrue(pause.hit(0), "the fault never ran at the commit:\n" + d.log());
      d.assertFailedClearly(
          "A",
          Drill.BOUND_SECONDS,
          "cannot commit the output '" + out + "'",
          fault.equals("read-only") ? "Read-only file system" : "is gone");
      assertTrue(d.error().getMessage().contains("party B exit 0"), d.error().getMessage());
      Drill.assertNoOutput(out);
    }
    // the mount is gone: the path shows the directory beneath, which has no output either
    Drill.assertNoOutput(out);
    assertEquals(List.of(), list(parent));
    Drill.assertQuarantineCompleteOrAbsent(dir.resolve("quarantine/a"), Drill.nullKeysOfA(f));
    Drill.assertQuarantineCompleteOrAbsent(dir.resolve("quarantine/b"), nullKeysOfB(f));
    assertTrue(Files.exists(dir.resolve("quarantine/a/_SUCCESS")), "A's quarantine was committed");
  }

  private static List<String> list(Path p) throws Exception {
    try (var s = Files.list(p)) {
      return s.map(x -> x.getFileName().toString()).toList();
    }
  }

  /** "b.csv:line" of the rows of {@code f}'s table b whose key is NULL. */
  static Set<String> nullKeysOfB(JoinFixture f) {
    Set<String> lines = new java.util.TreeSet<>();
    for (int i = 0; i < f.b.size(); i++) {
      if (f.b.get(i).card() == null || f.b.get(i).zip() == null) {
        lines.add("b.csv:" + (i + 2));
      }
    }
    return lines;
  }
}
