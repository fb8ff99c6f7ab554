package io.psiflink.tools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import io.psiflink.api.CommandLineSyntax;
import io.psiflink.api.JoinMode;
import io.psiflink.api.OptionValues;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.Prefilter;
import io.psiflink.api.PublicSize;
import io.psiflink.api.TypedOption;
import io.psiflink.connectors.TableFiles;
import io.psiflink.coordinator.ClassDataSharing;
import io.psiflink.coordinator.JvmOptions;
import io.psiflink.tools.cli.ToolOptions;
import io.psiflink.tools.local.LocalJoin;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;
import org.apache.flink.types.Row;

/**
 * {@code ./psi bench join}: generates both parties' tables, runs the private join as {@code ./psi
 * local} does (two JVMs, two MiniClusters, the bridge over TLS), checks its rows against the same
 * join done insecurely by a plain Flink SQL batch join of the same files (row count and an
 * order-independent digest of every row), and times both.
 */
public final class JoinBenchmark {
  // ./psi bench join's options; the ones it hands to the private join are the job's (PartyOptions)
  static final TypedOption<Long> ROWS =
      ToolOptions.count("rows", "N", "party A's rows (1000000, 1_000_000 or 1e6)", null, 0)
          .asRequired();
  static final TypedOption<Long> ROWS_B =
      ToolOptions.count("rows-b", "N", "party B's rows (default: --rows)", null, 0);
  static final TypedOption<BigDecimal> OVERLAP =
      ToolOptions.decimalFraction(
              "overlap",
              "F",
              "the fraction of the smaller table's keys that the other table has too",
              null)
          .asRequired();
  static final TypedOption<Integer> BINS = PartyOptions.BINS;
  static final TypedOption<Integer> PARALLELISM =
      TypedOption.integer(
          "parallelism",
          "P",
          "each join's parallelism, and the number of parts each table is split into",
          2,
          1);
  static final TypedOption<Integer> RUNS =
      TypedOption.integer(
          "runs", "R", "how often each join runs (the report gives the medians)", 1, 1);
  static final TypedOption<Integer> SIGMA = PartyOptions.SIGMA;
  static final TypedOption<String> PROTOCOL = PartyOptions.PROTOCOL;
  static final TypedOption<String> PARTY_HEAP =
      TypedOption.text(
          "party-heap",
          "SIZE",
          "the heap of each party's JVM and of the insecure join's JVM (-Xmx)",
          "6g");
  static final TypedOption<Path> WORK =
      TypedOption.path(
          "work",
          "DIR",
          "where the generated tables, their parts and the runs go (default: "
              + "<java.io.tmpdir>/psi-bench-join)");
  static final TypedOption<Long> SEED =
      ToolOptions.anyLong("seed", "S", "the table generator's seed", GeneratorSpec.DEFAULT_SEED);
  static final TypedOption<Boolean> NO_INSECURE =
      TypedOption.flag(
          "no-insecure", "skip the insecure Flink SQL join (no reference digest, no ratio)");
  static final TypedOption<Boolean> JSON =
      TypedOption.flag("json", "print the report as one JSON object instead of text");
  static final TypedOption<Double> WHERE_SELECTIVITY =
      ToolOptions.fraction(
          "where-selectivity",
          "F",
          "both parties keep the first F of their rows (WHERE a.id <= F*rows AND b.id <= "
              + "F*rows_b)",
          1.0,
          false);
  static final TypedOption<PublicSizes> PUBLIC_SIZE =
      new TypedOption<>(
          "public-size",
          PublicSizes.class,
          "P[,P...]",
          "public size policies, rounded|exact|declared:N; each run "
              + "joins once per policy, to compare them",
          PublicSizes.parse("rounded"),
          false,
          PublicSizes::parse,
          PublicSizes::text);
  static final TypedOption<Modes> MODE =
      new TypedOption<>(
          "mode",
          Modes.class,
          "M[,M...]",
          "who learns the intersection, both|labeled; each run joins once per mode, to compare "
              + "them (labeled: B's columns travel as padded labels, see --label-bytes)",
          Modes.parse("both"),
          false,
          Modes::parse,
          Modes::text);
  static final TypedOption<Integer> LABEL_BYTES = PartyOptions.LABEL_BYTES;
  static final TypedOption<Prefilters> PREFILTER =
      new TypedOption<>(
          "prefilter",
          Prefilters.class,
          "F[,F...]",
          "pre-filter, none|helper|auto; each run joins once per value, to compare them (helper: a "
              + "helper on this machine shrinks both sets before the PSI, see --filter-bits; auto: "
              + "the jobs decide, expecting the true --overlap)",
          Prefilters.parse("none"),
          false,
          Prefilters::parse,
          Prefilters::text);
  static final TypedOption<Integer> FILTER_BITS = PartyOptions.FILTER_BITS;
  static final TypedOption<Integer> FILTER_HASHES = PartyOptions.FILTER_HASHES;
  static final TypedOption<NetSpec> NET =
      new TypedOption<>(
          "net",
          NetSpec.class,
          "RATE,DELAY",
          "the private join's traffic between the parties crosses a link of this rate and one-way "
              + "delay, each direction (e.g. 100mbit,10ms; tc's units; needs root and tc: party B "
              + "runs in a network namespace, see docs/benchmarks.md)",
          null,
          false,
          NetSpec::parse,
          NetSpec::text);
  static final TypedOption<Long> DROP_EVERY =
      new TypedOption<>(
          "drop-every",
          Long.class,
          "BYTES",
          "fault drill: B's connections to the bridge are reset at seeded random points, one per "
              + "BYTES between the parties on average (e.g. 64MB; the bins hit retry alone, see "
              + "--attempts; through --net's link, else on loopback; docs/operations.md)",
          null,
          false,
          JoinBenchmark::dropEvery,
          String::valueOf);
  static final TypedOption<Long> DROP_SEED =
      ToolOptions.anyLong("drop-seed", "S", "the seed of --drop-every's drop points", 1L);
  static final TypedOption<Duration> JITTER =
      new TypedOption<>(
          "jitter",
          Duration.class,
          "DURATION",
          "fault drill: every chunk between the parties waits a further random 0..DURATION, "
              + "order kept (e.g. 5ms)",
          null,
          false,
          Faults::parseJitter,
          d -> d.toNanos() % 1_000_000 == 0 ? d.toMillis() + "ms" : d.toNanos() / 1000 + "us");
  static final TypedOption<Integer> ATTEMPTS = PartyOptions.ATTEMPTS;
  static final TypedOption<Duration> PAIR_TIMEOUT = PartyOptions.PAIR_TIMEOUT;
  static final TypedOption<Duration> IDLE_TIMEOUT = PartyOptions.IDLE_TIMEOUT;

  /** {@code --drop-every}: a byte count, as {@link Faults} accepts it. */
  private static Long dropEvery(String text) {
    long v = Faults.parseBytes(text);
    new Faults(v, Duration.ZERO, 0); // checks the range
    return v;
  }

  /** The fault drill of a command line: {@code isNone()} without --drop-every and --jitter. */
  static Faults faults(OptionValues o) {
    return new Faults(
        o.has(DROP_EVERY) ? o.get(DROP_EVERY) : 0,
        o.has(JITTER) ? o.get(JITTER) : Duration.ZERO,
        o.get(DROP_SEED));
  }

  /** The command line of {@code ./psi bench join}. */
  static final CommandLineSyntax SYNTAX =
      new CommandLineSyntax(
          "./psi bench join",
          "Generates both parties' tables, runs the private join as ./psi local does, checks its rows "
              + "against a plain Flink SQL join of the same files and times both.",
          List.of(
              ROWS,
              ROWS_B,
              OVERLAP,
              BINS,
              PARALLELISM,
              RUNS,
              SIGMA,
              PROTOCOL,
              PARTY_HEAP,
              WORK,
              SEED,
              NO_INSECURE,
              JSON,
              WHERE_SELECTIVITY,
              PUBLIC_SIZE,
              MODE,
              LABEL_BYTES,
              PREFILTER,
              FILTER_BITS,
              FILTER_HASHES,
              NET,
              DROP_EVERY,
              DROP_SEED,
              JITTER,
              ATTEMPTS,
              PAIR_TIMEOUT,
              IDLE_TIMEOUT));

  /** The modes of {@code --mode}, in the order given (at least one, each once). */
  record Modes(List<JoinMode> modes) {
    Modes {
      modes = List.copyOf(modes);
      if (modes.isEmpty() || new java.util.HashSet<>(modes).size() != modes.size()) {
        throw new IllegalArgumentException("needs each mode at most once, and one at least");
      }
    }

    static Modes parse(String text) {
      List<JoinMode> ms = new ArrayList<>();
      for (String m : text.split(",")) {
        ms.add(JoinMode.parse(m));
      }
      return new Modes(ms);
    }

    String text() {
      return String.join(",", modes.stream().map(JoinMode::text).toList());
    }
  }

  /** The values of {@code --prefilter}, in the order given (at least one, each once). */
  record Prefilters(List<Prefilter> values) {
    Prefilters {
      values = List.copyOf(values);
      if (values.isEmpty() || new java.util.HashSet<>(values).size() != values.size()) {
        throw new IllegalArgumentException("needs each pre-filter at most once, and one at least");
      }
    }

    static Prefilters parse(String text) {
      List<Prefilter> fs = new ArrayList<>();
      for (String f : text.split(",")) {
        fs.add(Prefilter.parse(f));
      }
      return new Prefilters(fs);
    }

    String text() {
      return String.join(",", values.stream().map(Prefilter::text).toList());
    }
  }

  /**
   * One private join of a run: the first of each list, or one of them changed (policies are
   * compared in the first mode without pre-filter, modes with the first policy, and so on).
   */
  record Variant(String policy, JoinMode mode, Prefilter prefilter) {
    static List<Variant> of(List<String> policies, List<JoinMode> modes, List<Prefilter> filters) {
      List<Variant> out = new ArrayList<>();
      out.add(new Variant(policies.get(0), modes.get(0), filters.get(0)));
      policies.stream().skip(1).forEach(p -> out.add(new Variant(p, modes.get(0), filters.get(0))));
      modes.stream().skip(1).forEach(m -> out.add(new Variant(policies.get(0), m, filters.get(0))));
      filters.stream().skip(1).forEach(f -> out.add(new Variant(policies.get(0), modes.get(0), f)));
      return out;
    }

    String text() {
      return "public size " + policy + ", mode " + mode.text() + ", prefilter " + prefilter.text();
    }
  }

  /** The public size policies of {@code --public-size}, in the order given (at least one). */
  record PublicSizes(List<PublicSize> policies) {
    PublicSizes {
      policies = List.copyOf(policies);
      if (policies.isEmpty()) {
        throw new IllegalArgumentException("needs at least one policy");
      }
    }

    static PublicSizes parse(String text) {
      List<PublicSize> ps = new ArrayList<>();
      for (String p : text.split(",")) {
        ps.add(PublicSize.parse(p));
      }
      return new PublicSizes(ps);
    }

    String text() {
      return String.join(",", policies.stream().map(PublicSize::text).toList());
    }
  }

  private JoinBenchmark() {}

  public static void main(String[] args) throws Exception {
    if (GroupJoinBenchmark.wanted(args)) {
      GroupJoinBenchmark.main(args);
      return;
    }
    ToolOptions.Parsed parsed =
        ToolOptions.parse(SYNTAX, "psi bench join", args, System.out, System.err);
    if (parsed.done()) {
      System.exit(parsed.exitCode());
      return;
    }
    OptionValues o = parsed.values();
    long rows = o.get(ROWS);
    long rowsB = o.has(ROWS_B) ? o.get(ROWS_B) : rows;
    String overlapText = o.get(OVERLAP).toString();
    int parallelism = o.get(PARALLELISM);
    int runs = o.get(RUNS);
    Path work =
        o.has(WORK)
            ? o.get(WORK)
            : Path.of(System.getProperty("java.io.tmpdir") + "/psi-bench-join");
    GeneratorSpec spec;
    try {
      spec = new GeneratorSpec(rows, rowsB, o.get(OVERLAP).doubleValue(), 0, 0, o.get(SEED));
    } catch (IllegalArgumentException e) {
      System.err.println("psi bench join: " + e.getMessage() + " (--help lists the options)");
      System.exit(2);
      return;
    }
    List<String> policies = o.get(PUBLIC_SIZE).policies().stream().map(PublicSize::text).toList();
    List<JoinMode> modes = o.get(MODE).modes();
    double selectivity = o.get(WHERE_SELECTIVITY);
    PrintStream log = System.err;

    Faults faults = faults(o);
    // the link first: a missing tool or privilege fails before anything is generated
    SlowNetwork net = null;
    FaultyLoopback loopback = null;
    JsonNode netMeasured = null;
    if (o.has(NET)) {
      try {
        net = SlowNetwork.start(o.get(NET), faults, log);
        netMeasured = net.measure(log);
      } catch (IOException e) {
        if (net != null) {
          net.close();
        }
        System.err.println("psi bench join: --net " + o.get(NET).text() + ": " + e.getMessage());
        System.exit(2);
        return;
      }
    } else if (!faults.isNone()) {
      loopback = FaultyLoopback.start(Duration.ZERO, faults);
    }
    if (!faults.isNone()) {
      log.println("== fault drill: " + faults.text() + " between party B and the relay");
    }
    LocalJoin.Hooks hooks =
        net != null ? net.hooks() : loopback != null ? loopback.hooks() : LocalJoin.Hooks.NONE;
    // per run (of the first variant): connections reset, and each party's bin retries
    List<long[]> faultsByRun = new ArrayList<>();
    Path data =
        work.resolve(
            String.format(Locale.ROOT, "data-%d-%d-%s-%d", rows, rowsB, overlapText, spec.seed()));
    GeneratedTables tables = generated(spec, data, log);
    // Both joins read P parts per table, so every reading subtask has work (splitting is not
    // timed).
    Path partsA = parts(tables.a(), data.resolve("a-parts-" + parallelism), parallelism, log);
    Path partsB = parts(tables.b(), data.resolve("b-parts-" + parallelism), parallelism, log);

    String sql = query(selectivity, rows, rowsB);
    List<String> secureRuns = new ArrayList<>();
    List<Prefilter> prefilters = o.get(PREFILTER).values();
    List<Variant> variants = Variant.of(policies, modes, prefilters);
    // per variant, the runs' wall times, and the bytes between the organisations in the last run
    Map<Variant, double[]> secureByVariant = new java.util.LinkedHashMap<>();
    variants.forEach(v -> secureByVariant.put(v, new double[runs]));
    Map<Variant, Long> bytesByVariant = new java.util.LinkedHashMap<>();
    Map<Variant, JsonNode> prefilterByVariant = new java.util.LinkedHashMap<>();
    double[] secure = secureByVariant.get(variants.get(0));
    double[] insecure = new double[o.get(NO_INSECURE) ? 0 : runs];
    boolean correct = true;
    RowDigest reference = null;
    String joinOperator = "";
    for (int r = 0; r < runs; r++) {
      Path out = work.resolve("out");
      RowDigest got = null;
      for (Variant v : variants) {
        deleteTree(out);
        Map<String, String> opts = new HashMap<>();
        opts.put("a", partsA.toString());
        opts.put("b", partsB.toString());
        opts.put("sql", sql);
        opts.put("out", out.toString());
        opts.put("parallelism", Integer.toString(parallelism));
        opts.put("work", work.resolve("run").toString());
        opts.put("public-size", v.policy());
        opts.put("mode", v.mode().text());
        opts.put("prefilter", v.prefilter().text());
        if (v.prefilter() == Prefilter.AUTO) {
          opts.put(PartyOptions.EXPECTED_OVERLAP.name(), o.get(OVERLAP).toPlainString());
        }
        for (TypedOption<?> k :
            List.of(
                BINS,
                SIGMA,
                PROTOCOL,
                PARTY_HEAP,
                LABEL_BYTES,
                FILTER_BITS,
                FILTER_HASHES,
                ATTEMPTS,
                PAIR_TIMEOUT,
                IDLE_TIMEOUT)) {
          if (o.has(k)) {
            opts.put(k.name(), k.print(o.get(k)));
          }
        }
        log.printf(
            Locale.ROOT,
            "== run %d of %d: private join of %,d x %,d rows, %s%n",
            r + 1,
            runs,
            rows,
            rowsB,
            v.text());
        long droppedBefore = dropped(net, loopback);
        LocalJoin.Result res;
        try {
          res = LocalJoin.run(opts, log, hooks);
        } catch (Exception e) {
          // a drill's clear error: what failed, after how many resets; the party logs say why
          System.err.printf(
              Locale.ROOT,
              "psi bench join: run %d, %s: %s%s%n",
              r + 1,
              v.text(),
              String.valueOf(e.getMessage()).lines().findFirst().orElse(e.toString()),
              faults.isNone()
                  ? ""
                  : " (" + (dropped(net, loopback) - droppedBefore) + " connections reset)");
          if (net != null) {
            net.close();
          }
          if (loopback != null) {
            loopback.close();
          }
          System.exit(1);
          return;
        }
        secureByVariant.get(v)[r] = res.seconds();
        JsonNode summaryA = Json.parse(res.summaryA());
        JsonNode summaryB = Json.parse(res.summaryB());
        if (v == variants.get(0)) {
          faultsByRun.add(
              new long[] {
                dropped(net, loopback) - droppedBefore,
                summaryA.path("bin_retries").asLong(),
                summaryB.path("bin_retries").asLong()
              });
        }
        bytesByVariant.put(v, bytesBetweenOrganisations(summaryA, summaryB));
        prefilterByVariant.put(v, prefilterFigures(summaryA, summaryB));
        secureRuns.add(res.toJson());
        RowDigest d = digestAvro(out);
        if (got != null && !got.equals(d)) {
          log.printf(
              "MISMATCH: %s gave %s; %s gave %s%n", variants.get(0).text(), got, v.text(), d);
          correct = false;
        }
        got = got == null ? d : got;
      }
      if (insecure.length > 0) {
        log.printf(Locale.ROOT, "== run %d of %d: insecure Flink SQL join%n", r + 1, runs);
        Path insecureOut = work.resolve("insecure-out");
        deleteTree(insecureOut);
        InsecureRun ins =
            insecureInFreshJvm(tables, sql, parallelism, o.get(PARTY_HEAP), insecureOut, log);
        deleteTree(insecureOut);
        insecure[r] = ins.seconds();
        reference = ins.digest();
        joinOperator = ins.joinOperator();
      }
      // with a WHERE, only the insecure join knows the expected rows
      boolean ok =
          (selectivity < 1 || got.count() == tables.expectedJoinRows())
              && (reference == null || reference.equals(got));
      if (!ok) {
        log.printf(
            "MISMATCH: private join gave %s, expected %d rows%s%n",
            got, tables.expectedJoinRows(), reference == null ? "" : " with digest " + reference);
      }
      correct &= ok;
    }
    if (net != null) {
      net.close();
    }
    if (loopback != null) {
      loopback.close();
    }
    double secureMedian = median(secure);
    double insecureMedian = insecure.length == 0 ? Double.NaN : median(insecure);
    if (o.get(JSON)) {
      ObjectNode n = Json.object();
      n.put("rows_a", rows);
      n.put("rows_b", rowsB);
      n.put("overlap", new BigDecimal(overlapText));
      n.put("parallelism", parallelism);
      n.put("protocol", o.get(PROTOCOL));
      n.put("runs", runs);
      // the generator's closed formula holds for the query without WHERE only
      if (selectivity < 1) {
        n.putNull("expected_join_rows");
      } else {
        n.put("expected_join_rows", tables.expectedJoinRows());
      }
      n.put("correct", correct);
      n.put("secure_seconds_median", Json.three(secureMedian));
      n.put("insecure_seconds_median", Json.threeOrNull(insecureMedian));
      n.put("insecure_join_operator", joinOperator);
      n.put("ratio", Json.threeOrNull(secureMedian / insecureMedian));
      n.put("where_selectivity", Json.threeOrNull(selectivity));
      if (net == null) {
        n.putNull("net");
      } else {
        ObjectNode netJson = net.toJson();
        netJson.set("measured", netMeasured);
        n.set("net", netJson);
      }
      if (faults.isNone()) {
        n.putNull("faults");
      } else {
        ObjectNode fj = n.putObject("faults");
        fj.put("spec", faults.text());
        fj.put("drop_every_bytes", faults.dropEveryBytes());
        fj.put("drop_seed", faults.seed());
        fj.put("jitter_ms", Json.three(faults.jitter().toNanos() / 1e6));
        ArrayNode byRun = fj.putArray("runs");
        for (long[] f : faultsByRun) {
          ObjectNode x = byRun.addObject();
          x.put("connections_reset", f[0]);
          x.put("bin_retries_a", f[1]);
          x.put("bin_retries_b", f[2]);
        }
      }
      ObjectNode byPolicy = n.putObject("secure_seconds_median_by_public_size");
      ObjectNode byMode = n.putObject("secure_seconds_median_by_mode");
      ObjectNode bytes = n.putObject("bytes_between_parties_by_mode");
      ObjectNode byFilter = n.putObject("secure_seconds_median_by_prefilter");
      ObjectNode bytesByFilter = n.putObject("bytes_between_organisations_by_prefilter");
      ObjectNode filterFigures = n.putObject("prefilter_by_prefilter");
      Variant first = variants.get(0);
      for (Variant v : variants) {
        java.math.BigDecimal t = Json.three(median(secureByVariant.get(v)));
        if (v.mode() == first.mode() && v.prefilter() == first.prefilter()) {
          byPolicy.put(v.policy(), t);
        }
        if (v.policy().equals(first.policy()) && v.prefilter() == first.prefilter()) {
          byMode.put(v.mode().text(), t);
          bytes.put(v.mode().text(), bytesByVariant.get(v));
        }
        if (v.policy().equals(first.policy()) && v.mode() == first.mode()) {
          byFilter.put(v.prefilter().text(), t);
          bytesByFilter.put(v.prefilter().text(), bytesByVariant.get(v));
          filterFigures.set(v.prefilter().text(), prefilterByVariant.get(v));
        }
      }
      ArrayNode runsJson = n.putArray("secure_runs");
      // each run as ./psi local --json prints it
      secureRuns.forEach(r -> runsJson.addRawValue(new RawValue(r)));
      System.out.println(Json.write(n));
    } else {
      System.out.printf(
          Locale.ROOT,
          "private join: %,d x %,d rows, overlap %s: median %.1f s over "
              + "%d run(s); insecure Flink SQL join (%s): %s s; ratio %s; result %s%n",
          rows,
          rowsB,
          overlapText,
          secureMedian,
          runs,
          joinOperator,
          fmt(insecureMedian),
          fmt(secureMedian / insecureMedian),
          correct ? "correct" : "WRONG");
      if (net != null) {
        System.out.printf(
            Locale.ROOT,
            "  between the parties: --net %s (measured: %s)%n",
            o.get(NET).text(),
            netMeasured);
      }
      if (!faults.isNone()) {
        for (int i = 0; i < faultsByRun.size(); i++) {
          long[] f = faultsByRun.get(i);
          System.out.printf(
              Locale.ROOT,
              "  faults, run %d: %s: %d connections reset, bin retries: party A %d, party B %d%n",
              i + 1,
              faults.text(),
              f[0],
              f[1],
              f[2]);
        }
      }
      Variant first = variants.get(0);
      double firstMedian = median(secureByVariant.get(first));
      for (Variant v : variants) {
        double t = median(secureByVariant.get(v));
        System.out.printf(
            Locale.ROOT,
            "  %s: median %.1f s (%.2f x the first), %,d bytes between the organisations%s%n",
            v.text(),
            t,
            t / firstMedian,
            bytesByVariant.get(v),
            selectivity < 1 ? " (WHERE selectivity " + fmt(selectivity) + ")" : "");
        JsonNode f = prefilterByVariant.get(v);
        if (f != null && !f.isNull()) {
          System.out.println("    prefilter: " + f);
        }
      }
    }
    System.exit(correct ? 0 : 1);
  }

  /**
   * The bytes that crossed between organisations in one join: what A sent to and received from B on
   * the bins' streams and on the pre-filter's, plus each party's traffic with the helper when there
   * is one.
   */
  static long bytesBetweenOrganisations(JsonNode summaryA, JsonNode summaryB) {
    long ab = summaryA.path("bytes_sent").asLong() + summaryA.path("bytes_received").asLong();
    JsonNode p = summaryA.path("prefilter");
    ab += p.path("bytes_to_peer").asLong() + p.path("bytes_from_peer").asLong();
    return ab + helperBytes(summaryA) + helperBytes(summaryB);
  }

  private static long helperBytes(JsonNode summary) {
    JsonNode p = summary.path("prefilter");
    return p.path("bytes_to_helper").asLong() + p.path("bytes_from_helper").asLong();
  }

  /** Each party's pre-filter figures from its summary, or null without a pre-filter. */
  static JsonNode prefilterFigures(JsonNode summaryA, JsonNode summaryB) {
    if (!summaryA.has("prefilter")) {
      return com.fasterxml.jackson.databind.node.NullNode.getInstance();
    }
    ObjectNode n = Json.object();
    n.set("a", summaryA.get("prefilter"));
    n.set("b", summaryB.path("prefilter"));
    return n;
  }

  /** The bench query, with a WHERE keeping the first {@code selectivity} of each table's rows. */
  static String query(double selectivity, long rows, long rowsB) {
    if (selectivity >= 1) {
      return TableGenerator.DEFAULT_QUERY;
    }
    return TableGenerator.DEFAULT_QUERY
        + String.format(
            Locale.ROOT,
            " WHERE a.id <= %d AND b.id <= %d",
            Math.round(selectivity * rows),
            Math.round(selectivity * rowsB));
  }

  static GeneratedTables generated(GeneratorSpec spec, Path dir, PrintStream log)
      throws IOException {
    Path marker = dir.resolve("expected-join-rows");
    if (Files.exists(marker)) {
      long expected = Long.parseLong(Files.readString(marker).trim());
      log.println("== reusing generated tables in " + dir);
      return new GeneratedTables(
          dir.resolve(TableGenerator.FILE_A),
          dir.resolve(TableGenerator.FILE_B),
          expected,
          spec,
          null,
          null,
          0);
    }
    log.printf(
        Locale.ROOT, "== generating %,d + %,d rows into %s%n", spec.rowsA(), spec.rowsB(), dir);
    Files.createDirectories(dir);
    GeneratedTables t = TableGenerator.generate(spec, dir);
    Files.writeString(marker, Long.toString(t.expectedJoinRows()));
    return t;
  }

  /** {@code csv} cut into {@code parts} CSV files with a header each, in {@code dir} (reused). */
  static Path parts(Path csv, Path dir, int parts, PrintStream log) throws IOException {
    Path done = dir.resolve("_SUCCESS");
    if (!Files.exists(done)) {
      log.println("== cutting " + csv + " into " + parts + " parts");
      deleteTree(dir);
      CsvParts.split(csv, dir, "part", parts, true);
      Files.createFile(done);
    }
    return dir;
  }

  /**
   * Digest of every row of the Avro part files in {@code dir}, read with the plain Avro library.
   */
  static RowDigest digestAvro(Path dir) throws IOException {
    RowDigest d = new RowDigest();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.filter(p -> TableFiles.isVisible(p.getFileName().toString())).toList()) {
        try (DataFileReader<GenericRecord> r =
            new DataFileReader<>(p.toFile(), new GenericDatumReader<>())) {
          int n = r.getSchema().getFields().size();
          for (GenericRecord rec : r) {
            Row row = new Row(n);
            for (int i = 0; i < n; i++) {
              Object v = rec.get(i);
              row.setField(i, v instanceof Utf8 u ? u.toString() : v);
            }
            d.add(row);
          }
        }
      }
    }
    return d;
  }

  /**
   * @param seconds from the JVM's start to the end of the job, without the header-stripping copy of
   *     the tables (which only the baseline needs)
   */
  record InsecureRun(double seconds, RowDigest digest, String joinOperator) {}

  /**
   * Runs the insecure join in a JVM of its own, with the parties' JVM options and heap, so that it
   * starts cold as they do (JVM start, class loading and JIT are part of both measurements).
   */
  static InsecureRun insecureInFreshJvm(
      GeneratedTables tables, String sql, int parallelism, String heap, Path out, PrintStream log)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(JvmOptions.heap(heap));
    // C1 only where both parties' JVMs have it
    cmd.addAll(JvmOptions.forTables(List.of(tables.a().toString(), tables.b().toString())));
    // the parties' JVMs map their classes from an archive (ClassDataSharing): so does this one
    ClassDataSharing cds =
        ClassDataSharing.of(System.getProperty("java.class.path"), "insecure-join");
    cmd.addAll(cds.jvmOptions());
    cmd.add("-Dlog4j2.configurationFile=log4j2.properties");
    cmd.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            InsecureFlinkJoin.class.getName(),
            "--a",
            tables.a().toString(),
            "--b",
            tables.b().toString(),
            "--sql",
            sql,
            "--parallelism",
            Integer.toString(parallelism),
            "--out",
            out.toString(),
            "--json"));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String json = null;
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        if (line.startsWith("{\"rows\"")) {
          json = line;
        } else {
          log.println("[insecure] " + line);
        }
      }
    }
    int exit = p.waitFor();
    cds.promote(exit);
    if (exit != 0 || json == null) {
      throw new IOException("the insecure Flink join failed (exit " + exit + ")");
    }
    JsonNode r = Json.parse(json);
    JsonNode phases = r.path("phases");
    double seconds = phases.path("sinceJvmStart").asDouble() - phases.path("prepare").asDouble();
    return new InsecureRun(
        seconds, RowDigest.parse(r.path("digest").asText()), r.path("joinOperator").asText());
  }

  static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      for (Path x : s.sorted((x, y) -> y.getNameCount() - x.getNameCount()).toList()) {
        Files.delete(x);
      }
    }
  }

  private static long dropped(SlowNetwork net, FaultyLoopback loopback) {
    return net != null
        ? net.connectionsDropped()
        : loopback != null ? loopback.connectionsDropped() : 0;
  }

  static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  private static String fmt(double d) {
    return Double.isNaN(d) ? "null" : String.format(Locale.ROOT, "%.3f", d);
  }
}
