package io.psiflink.tools.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psiflink.api.CommandLineSyntax;
import io.psiflink.api.OptionValues;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.Role;
import io.psiflink.api.TypedOption;
import io.psiflink.tools.cli.ToolOptions;
import io.psiflink.tools.local.LocalJoin;
import io.psiflink.tools.local.LogLines;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ./psi bench resume}: what resuming a failed run saves. Per run, on the same generated
 * tables: the whole join uninterrupted, with and without what makes it resumable ({@code
 * --no-resume}); the join with one party's JVM killed (SIGKILL) once it has finished a given share
 * of its bins; then that run resumed ({@code ./psi local --resume}). The resumed output is checked
 * against the uninterrupted one (row count and digest). Reports the medians and the time saved: the
 * uninterrupted run's time minus the resumed run's.
 */
public final class ResumeBenchmark {
  static final TypedOption<Long> ROWS =
      ToolOptions.count("rows", "N", "rows of each party (default 1e6)", 1_000_000L, 1);
  static final TypedOption<Role> KILL =
      new TypedOption<>(
          "kill",
          Role.class,
          "A|B",
          "the party whose JVM is killed",
          Role.A,
          false,
          Role::twoParty,
          Role::label);
  static final TypedOption<Double> AT =
      ToolOptions.fraction(
          "at", "F", "the share of its bins the party has finished when killed", 0.5, false);
  static final TypedOption<Integer> RUNS =
      TypedOption.integer("runs", "R", "how often to run the three joins", 1, 1);

  static final CommandLineSyntax SYNTAX =
      new CommandLineSyntax(
          "./psi bench resume",
          "Times a private join uninterrupted, killed at a share of its bins, and resumed, on the"
              + " same generated tables (half of the keys shared); checks the resumed output.",
          List.of(
              ROWS,
              KILL,
              AT,
              RUNS,
              JoinBenchmark.BINS,
              JoinBenchmark.PARALLELISM,
              JoinBenchmark.PARTY_HEAP,
              JoinBenchmark.WORK,
              JoinBenchmark.SEED,
              JoinBenchmark.JSON));

  private static final Pattern AGREED = Pattern.compile("^\\[A\\].* agreed with .*: ([0-9]+) bins");
  private static final Pattern DONE = Pattern.compile("^\\[([AB])\\].* bin [0-9]+ done \\(");

  private ResumeBenchmark() {}

  public static void main(String[] args) throws Exception {
    ToolOptions.Parsed parsed =
        ToolOptions.parse(SYNTAX, "psi bench resume", args, System.out, System.err);
    if (parsed.done()) {
      System.exit(parsed.exitCode());
      return;
    }
    OptionValues o = parsed.values();
    long rows = o.get(ROWS);
    Role victim = o.get(KILL);
    double at = o.get(AT);
    int runs = o.get(RUNS);
    int parallelism = o.get(JoinBenchmark.PARALLELISM);
    Path work =
        o.has(JoinBenchmark.WORK)
            ? o.get(JoinBenchmark.WORK)
            : Path.of(System.getProperty("java.io.tmpdir") + "/psi-bench-resume");
    PrintStream log = System.err;
    GeneratorSpec spec = new GeneratorSpec(rows, rows, 0.5, 0, 0, o.get(JoinBenchmark.SEED));
    Path data = work.resolve(String.format(Locale.ROOT, "data-%d-%d", rows, spec.seed()));
    GeneratedTables tables = JoinBenchmark.generated(spec, data, log);
    Path partsA =
        JoinBenchmark.parts(tables.a(), data.resolve("a-parts-" + parallelism), parallelism, log);
    Path partsB =
        JoinBenchmark.parts(tables.b(), data.resolve("b-parts-" + parallelism), parallelism, log);

    double[] plain = new double[runs];
    double[] full = new double[runs];
    double[] killed = new double[runs];
    double[] resumed = new double[runs];
    int[] committed = new int[runs];
    int bins = 0;
    boolean correct = true;
    for (int r = 0; r < runs; r++) {
      Path out = work.resolve("out");
      Map<String, String> opts = new HashMap<>();
      opts.put("a", partsA.toString());
      opts.put("b", partsB.toString());
      opts.put("sql", JoinBenchmark.query(1.0, rows, rows));
      opts.put("out", out.toString());
      opts.put("parallelism", Integer.toString(parallelism));
      opts.put("party-heap", o.get(JoinBenchmark.PARTY_HEAP));
      // a party's JVM is killed, and the runs compared are made alike
      opts.put("party-jvms", "true");
      // the default timeouts: a bin of 10^7 rows may keep the bridge quiet for a while; the killed
      // party's peer is stopped by ./psi local soon after the kill anyway
      if (o.has(JoinBenchmark.BINS)) {
        opts.put("bins", Integer.toString(o.get(JoinBenchmark.BINS)));
      }

      log.printf(
          Locale.ROOT, "== run %d of %d: uninterrupted, %,d x %,d rows%n", r + 1, runs, rows, rows);
      JoinBenchmark.deleteTree(out);
      opts.put("work", work.resolve("full").toString());
      full[r] = LocalJoin.run(opts, log).seconds();
      RowDigest expected = JoinBenchmark.digestAvro(out);

      // the same without resume state and journal: what being resumable costs a run
      log.printf(Locale.ROOT, "== run %d of %d: uninterrupted, --no-resume%n", r + 1, runs);
      JoinBenchmark.deleteTree(out);
      opts.put(PartyOptions.NO_RESUME.name(), "true");
      plain[r] = LocalJoin.run(opts, log).seconds();
      opts.remove(PartyOptions.NO_RESUME.name());
      correct &= JoinBenchmark.digestAvro(out).equals(expected);

      log.printf(
          Locale.ROOT,
          "== run %d of %d: party %s killed at %.0f %% of its bins%n",
          r + 1,
          runs,
          victim.label(),
          at * 100);
      JoinBenchmark.deleteTree(out);
      Path runWork = work.resolve("killed");
      JoinBenchmark.deleteTree(runWork);
      opts.put("work", runWork.toString());
      AtomicInteger agreed = new AtomicInteger();
      AtomicInteger done = new AtomicInteger();
      AtomicReference<Process> process = new AtomicReference<>();
      PrintStream watched =
          new PrintStream(
              LogLines.tap(
                  log,
                  line -> {
                    Matcher m = AGREED.matcher(line);
                    if (m.find()) {
                      agreed.set(Integer.parseInt(m.group(1)));
                    }
                    Matcher d = DONE.matcher(line);
                    if (d.find()
                        && d.group(1).equals(victim.label())
                        && agreed.get() > 0
                        && done.incrementAndGet() == Math.max(1, (int) Math.ceil(at * agreed.get()))
                        && process.get() != null) {
                      process.get().destroyForcibly();
                    }
                  }),
              true,
              StandardCharsets.UTF_8);
      long start = System.nanoTime();
      try {
        LocalJoin.run(
            opts,
            watched,
            new LocalJoin.Hooks() {
              @Override
              public void started(Role party, Process p) {
                if (party.equals(victim)) {
                  process.set(p);
                }
              }
            });
        log.println("the run ended before the kill: use more rows or bins");
        System.exit(1);
        return;
      } catch (Exception e) {
        killed[r] = (System.nanoTime() - start) / 1e9;
      }
      bins = agreed.get();

      log.printf(Locale.ROOT, "== run %d of %d: resumed%n", r + 1, runs);
      AtomicInteger fromJournal = new AtomicInteger();
      PrintStream counted =
          new PrintStream(
              LogLines.tap(
                  log,
                  l -> {
                    if (l.startsWith("[A]") && l.contains("committed by an earlier run")) {
                      fromJournal.incrementAndGet();
                    }
                  }),
              true,
              StandardCharsets.UTF_8);
      start = System.nanoTime();
      int exit = LocalJoin.resumeMain(runWork, counted);
      resumed[r] = (System.nanoTime() - start) / 1e9;
      if (exit != 0) {
        log.println("the resumed run failed (exit " + exit + ")");
        System.exit(1);
        return;
      }
      committed[r] = fromJournal.get();
      RowDigest got = JoinBenchmark.digestAvro(out);
      boolean ok = got.equals(expected) && got.count() == tables.expectedJoinRows();
      if (!ok) {
        log.printf("MISMATCH: resumed %s, uninterrupted %s%n", got, expected);
      }
      correct &= ok;
    }
    double p = JoinBenchmark.median(plain);
    double f = JoinBenchmark.median(full);
    double k = JoinBenchmark.median(killed);
    double s = JoinBenchmark.median(resumed);
    if (o.get(JoinBenchmark.JSON)) {
      ObjectNode n = Json.object();
      n.put("rows", rows);
      n.put("bins", bins);
      n.put("killed_party", victim.label());
      n.put("killed_at", at);
      n.put("runs", runs);
      n.put("bins_committed_before_the_kill", committed[runs - 1]);
      n.put("uninterrupted_seconds_median", Json.three(f));
      n.put("uninterrupted_no_resume_seconds_median", Json.three(p));
      n.put("killed_run_seconds_median", Json.three(k));
      n.put("resumed_seconds_median", Json.three(s));
      n.put("saved_seconds", Json.three(f - s));
      n.put("correct", correct);
      System.out.println(Json.write(n));
    } else {
      System.out.printf(
          Locale.ROOT,
          "resume: %,d x %,d rows, %d bins, party %s killed at %.0f %% (%d bins committed): "
              + "uninterrupted %.1f s, killed run %.1f s, resumed %.1f s (median of %d): resuming"
              + " saves %.1f s (%.0f %%) against running again; without resume state and journal"
              + " (--no-resume) the uninterrupted run took %.1f s; result %s%n",
          rows,
          rows,
          bins,
          victim.label(),
          at * 100,
          committed[runs - 1],
          f,
          k,
          s,
          runs,
          f - s,
          100 * (f - s) / f,
          p,
          correct ? "correct" : "WRONG");
    }
    System.exit(correct ? 0 : 1);
  }
}
