package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A party's process killed (SIGKILL, as a crashed machine or an OOM kill) the moment the join
 * reaches each phase: the surviving party fails on its own, with an error that names the peer or
 * the bridge, within its timeouts (never a hang), nothing appears at the output target, and each
 * quarantine is either absent or complete. Where the vanishing comes after the survivor holds
 * everything it needs, the survivor finishes, and its output is exact.
 *
 * <p>Small timeouts (pair and idle 10 s, 2 attempts per bin) keep each case to a JVM start and the
 * survivor's timeouts; two cases run in the default build, the other phases with {@code
 * -Dpsi.large=true}.
 */
class PeerVanishingTest {
  /**
   * Pair and idle timeouts of the parties, seconds: short, but the two JVMs of a loaded 2-core
   * machine reach the control handshake seconds apart (3 s failed it there).
   */
  private static final int TIMEOUT = 10;

  private static final int ATTEMPTS = 2;

  /**
   * How long the survivor may take from the kill to its own end: every attempt of a bin waiting out
   * the pair timeout, the backoffs between them (2 s, 4 s), and a loaded machine's margin.
   */
  private static final Duration SURVIVOR_BOUND = Duration.ofSeconds(ATTEMPTS * TIMEOUT + 6 + 30);

  private static final int BINS = 4;

  /**
   * Where the peer vanishes, told by a line of a party's log ({@code [A] ...} or {@code [B] ...}).
   */
  enum Phase {
    /** B's plan is made; it is dialling the bridge for the control handshake (A waits in it). */
    HANDSHAKE(Role.B, () -> l -> l.startsWith("[B]") && l.contains("party B: table ")),
    /** B's tokenizer opened: B is reading its table; A is on its way to the bins. */
    TOKENIZE(Role.B, () -> l -> l.startsWith("[B]") && l.contains("table b: tokenizing")),
    /** B's first bin is done: other bins are in flight or next. */
    PSI(Role.B, () -> l -> l.startsWith("[B]") && l.contains(" done (")),
    /** B is about to send a bin's columns (its PSI for the bin is done). */
    PAYLOAD(Role.B, () -> l -> l.startsWith("[B]") && l.contains("payload next")),
    /** A finished its last bin: it holds every row of its output and is writing it. */
    WRITE(Role.B, () -> allBinsDone("[A]")),
    /** The converse: A vanishes with bins in flight; B must fail on its own. */
    A_AT_PSI(Role.A, () -> l -> l.startsWith("[A]") && l.contains(" done (")),
    /** A vanishes after its last bin, before committing its output: B is done, A's target empty. */
    A_AT_WRITE(Role.A, () -> allBinsDone("[A]"));

    final Role victim;
    final Supplier<Predicate<String>> marker;

    Phase(Role victim, Supplier<Predicate<String>> marker) {
      this.victim = victim;
      this.marker = marker;
    }

    Role survivor() {
      return victim.peer();
    }

    /**
     * Whether the survivor holds everything it needs when its peer vanishes: then it finishes. A
     * has its output once its last bin is done; B is done with a bin once A's DONE arrived, which A
     * sends before it counts the bin.
     */
    boolean survivorFinishes() {
      return this == WRITE || this == A_AT_WRITE;
    }
  }

  /** A line predicate that holds on the party's last bin done (its {@link #BINS}th). */
  private static Predicate<String> allBinsDone(String party) {
    int[] done = {0};
    return l -> l.startsWith(party) && l.contains(" done (") && ++done[0] == BINS;
  }

  @org.junit.jupiter.api.io.TempDir Path dir;

  /**
   * The cases of the default build (each two party JVMs and the survivor's timeouts, ~20-30 s on a
   * quiet 2-core machine): B vanishing mid-bin (A fails clearly), and after A has everything (A's
   * output exact).
   */
  @ParameterizedTest
  @EnumSource(
      value = Phase.class,
      names = {"PAYLOAD", "WRITE"})
  void theSurvivorFailsClearlyOrFinishesExactly(Phase phase) throws Exception {
    run(phase);
  }

  /**
   * The other phases, and A vanishing (B fails clearly; A's target stays empty): with {@code
   * -Dpsi.large=true}, for the build's time budget.
   */
  @ParameterizedTest
  @EnumSource(
      value = Phase.class,
      names = {"HANDSHAKE", "TOKENIZE", "PSI", "A_AT_PSI", "A_AT_WRITE"})
  @EnabledIfSystemProperty(named = "psi.large", matches = "true")
  void theSurvivorFailsClearlyOrFinishesExactlyLarge(Phase phase) throws Exception {
    run(phase);
  }

  private void run(Phase phase) throws Exception {
    // NULL keys on purpose: both parties quarantine rows, so a torn quarantine would show
    JoinFixture f = JoinFixture.generate(4_000, 4_000, 0.5, 0.1, 0.02, 21);
    Map<String, String> opts = f.localJoinOptions(dir, "csv", Integer.toString(BINS), "512m");
    opts.put("pair-timeout", Integer.toString(TIMEOUT));
    opts.put("idle-timeout", Integer.toString(TIMEOUT));
    opts.put("attempts", Integer.toString(ATTEMPTS));
    opts.put("party-jvms", "true"); // a party's JVM is killed
    Map<Role, Process> parties = new java.util.concurrent.ConcurrentHashMap<>();
    AtomicLong killedAt = new AtomicLong();
    AtomicLong survivorEndedAt = new AtomicLong();
    AtomicReference<java.util.concurrent.CompletableFuture<Void>> survivorEnded =
        new AtomicReference<>();
    AtomicReference<String> killLine = new AtomicReference<>();
    Predicate<String> marker = phase.marker.get();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    OutputStream watcher =
        LogLines.tap(
            log,
            l -> {
              Process victim = parties.get(phase.victim);
              if (killedAt.get() == 0 && victim != null && marker.test(l)) {
                victim.destroyForcibly(); // SIGKILL: no shutdown hook, no goodbye on the bridge
                killedAt.set(System.nanoTime());
                killLine.set(l);
              }
            });
    LocalJoin.Hooks hooks =
        new LocalJoin.Hooks() {
          @Override
          public void started(Role party, Process p) {
            parties.put(party, p);
            if (party.equals(phase.survivor())) {
              survivorEnded.set(p.onExit().thenRun(() -> survivorEndedAt.set(System.nanoTime())));
            }
          }

          @Override
          public Duration survivorGrace() {
            // long enough that the survivor ends on its own, not stopped by ./psi local
            return SURVIVOR_BOUND.plusSeconds(30);
          }
        };
    Exception e;
    try (PrintStream ps = new PrintStream(watcher, true, StandardCharsets.UTF_8)) {
      e = assertThrows(Exception.class, () -> LocalJoin.run(opts, ps, hooks));
    }
    String text = log.toString(StandardCharsets.UTF_8);
    assertTrue(killedAt.get() != 0, phase + ": the marker never appeared\n" + text);
    // the exit's callback may run after LocalJoin saw the exit
    survivorEnded.get().get(30, java.util.concurrent.TimeUnit.SECONDS);
    String victim = phase.victim.label();
    String survivor = phase.survivor().label();
    assertTrue(
        e.getMessage().contains("party " + victim + " exit 137"), e.getMessage() + "\n" + text);
    assertFalse(text.contains("still runs"), "the survivor was stopped, not failed\n" + text);
    double seconds = (survivorEndedAt.get() - killedAt.get()) / 1e9;
    assertTrue(
        seconds < SURVIVOR_BOUND.toSeconds(),
        phase + ": the survivor took " + seconds + " s after the kill\n" + text);
    System.out.printf(
        "%s: %s killed at '%s'; %s ended %.1f s later: %s%n",
        phase,
        victim,
        killLine.get(),
        survivor,
        seconds,
        phase.survivorFinishes() ? "finished" : failureLine(text, survivor));
    Path out = dir.resolve("out");
    if (phase.survivorFinishes()) {
      assertTrue(
          e.getMessage().contains("party " + survivor + " exit 0"), e.getMessage() + "\n" + text);
      if (phase.survivor().equals(Role.A)) {
        assertEquals(
            f.expected(), JoinFixture.readAvro(out, List.of("id", "spend", "email", "bid")));
      } else {
        // A died before its commit: the target never appeared, only A's hidden staging
        assertFalse(Files.exists(out), "a partial output at the target");
      }
    } else {
      assertTrue(
          e.getMessage().contains("party " + survivor + " exit 1"), e.getMessage() + "\n" + text);
      String failure = failureLine(text, survivor);
      // the cause is the peer or the bridge, and it names what it waited for
      assertTrue(
          failure.matches(".*(peer|bridge|pair|relay).*"),
          phase + ": the survivor's error names no cause: " + failure + "\n" + text);
      assertFalse(Files.exists(out), "a partial output at the target");
    }
    // a quarantine is complete (committed with the output, or with a failure it explains) or
    // absent; never torn
    assertQuarantine(
        dir.resolve("out.quarantine"),
        "a",
        badLinesA(f),
        phase.survivorFinishes() && phase.survivor().equals(Role.A));
    assertQuarantine(dir.resolve("out.quarantine"), "b", badLinesB(f), false);
  }

  /** The survivor's own failure: the line its PartyMain prints. */
  private static String failureLine(String log, String party) {
    String prefix = "psi party " + party + " failed: ";
    return log.lines()
        .filter(l -> l.startsWith("[" + party + "]") && l.contains(prefix))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("party " + party + " did not fail on its own\n" + log));
  }

  /** The lines of a's CSV (header: line 1) that hold a NULL key: its quarantine. */
  private static List<Long> badLinesA(JoinFixture f) {
    List<Long> lines = new ArrayList<>();
    for (int i = 0; i < f.a.size(); i++) {
      if (f.a.get(i).card() == null || f.a.get(i).zip() == null) {
        lines.add(i + 2L);
      }
    }
    return lines;
  }

  private static List<Long> badLinesB(JoinFixture f) {
    List<Long> lines = new ArrayList<>();
    for (int i = 0; i < f.b.size(); i++) {
      if (f.b.get(i).card() == null || f.b.get(i).zip() == null) {
        lines.add(i + 2L);
      }
    }
    return lines;
  }

  /**
   * {@code dir/party} is absent (or {@code required}: present), and when present it is complete:
   * its success marker, and exactly the expected bad lines.
   */
  private static void assertQuarantine(
      Path dir, String party, List<Long> expected, boolean required) throws IOException {
    Path q = dir.resolve(party);
    if (!Files.exists(q)) {
      assertFalse(required, "no quarantine of " + party);
      return;
    }
    assertTrue(Files.exists(q.resolve("_SUCCESS")), "quarantine " + q + " without _SUCCESS");
    List<Long> got = new ArrayList<>();
    try (Stream<Path> files = Files.list(q)) {
      for (Path p : files.sorted().toList()) {
        String name = p.getFileName().toString();
        if (name.startsWith(".") || name.startsWith("_")) {
          continue;
        }
        List<String> lines = Files.readAllLines(p, StandardCharsets.UTF_8);
        // columns source, line, reason, raw; the header first
        for (String l : lines.subList(1, lines.size())) {
          got.add(Long.parseLong(secondField(l)));
        }
      }
    }
    got.sort(null);
    assertEquals(expected, got, "quarantine of " + party);
  }

  /** The second field of a CSV line whose first may be quoted. */
  private static String secondField(String line) {
    int i = 0;
    if (line.startsWith("\"")) {
      i = 1;
      while (true) {
        int q = line.indexOf('"', i);
        if (q + 1 < line.length() && line.charAt(q + 1) == '"') {
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
    } else {
      i = line.indexOf(',');
    }
    int end = line.indexOf(',', i + 1);
    return line.substring(i + 1, end);
  }
}
