package io.psiflink.tools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psiflink.api.CommandLineSyntax;
import io.psiflink.api.OptionValues;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.TypedOption;
import io.psiflink.connectors.TableFiles;
import io.psiflink.tools.cli.ToolOptions;
import io.psiflink.tools.local.LocalGroupJoin;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;

/**
 * {@code ./psi bench join --parties N}: generates N parties' tables (a share of the keys held by
 * every party, the rest by one party each, rows in random order), runs the n-party join as {@code
 * ./psi local --table ...} does (N party JVMs and the provider's, the bridge over TLS), checks its
 * rows against the join computed here in plain Java, and reports the medians of the runs and where
 * the time went per party.
 */
public final class GroupJoinBenchmark {
  static final TypedOption<Integer> PARTIES =
      TypedOption.integer("parties", "N", "the number of parties (3 or more)", 3, 3);
  static final TypedOption<Long> ROWS =
      ToolOptions.count("rows", "R", "each party's rows (1e5, 100_000)", null, 1).asRequired();
  static final TypedOption<Double> OVERLAP =
      ToolOptions.fraction(
          "overlap", "F", "the share of each party's keys that every party holds", 0.5, true);
  static final TypedOption<Integer> RUNS =
      TypedOption.integer("runs", "R", "how often the join runs (the report gives medians)", 1, 1);
  static final TypedOption<Integer> PARALLELISM =
      TypedOption.integer("parallelism", "P", "each party's Flink parallelism", 2, 1);
  static final TypedOption<String> PARTY_HEAP =
      TypedOption.text("party-heap", "SIZE", "the heap of each party's JVM (-Xmx)", "2g");
  static final TypedOption<Path> WORK =
      TypedOption.path(
          "work",
          "DIR",
          "where the tables and the runs go (default: <java.io.tmpdir>/psi-bench-group-join)");
  static final TypedOption<Long> SEED =
      ToolOptions.anyLong("seed", "S", "the tables' seed", GeneratorSpec.DEFAULT_SEED);
  static final TypedOption<Boolean> JSON =
      TypedOption.flag("json", "print the report as one JSON object instead of text");

  static final CommandLineSyntax SYNTAX =
      new CommandLineSyntax(
          "./psi bench join --parties N",
          "Times the n-party join on this machine (N parties and the provider, each its own JVM)"
              + " and checks its rows against the same join computed in plain Java.",
          List.of(
              PARTIES,
              ROWS,
              OVERLAP,
              PartyOptions.BINS,
              PartyOptions.SIGMA,
              PartyOptions.PROTOCOL_PARAMS,
              PARALLELISM,
              RUNS,
              PARTY_HEAP,
              WORK,
              SEED,
              JSON));

  private static final String[] NAMES = {
    "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p"
  };

  private GroupJoinBenchmark() {}

  /** Whether a {@code ./psi bench join} command line asks for the n-party form. */
  public static boolean wanted(String[] args) {
    return Arrays.stream(args).anyMatch(a -> a.equals("--parties") || a.startsWith("--parties="));
  }

  public static void main(String[] args) throws Exception {
    ToolOptions.Parsed parsed =
        ToolOptions.parse(SYNTAX, "psi bench join", args, System.out, System.err);
    if (parsed.done()) {
      System.exit(parsed.exitCode());
      return;
    }
    OptionValues o = parsed.values();
    int n = o.get(PARTIES);
    if (n > NAMES.length) {
      System.err.println("psi bench join: --parties is at most " + NAMES.length);
      System.exit(2);
      return;
    }
    PrintStream log = System.err;
    Path work =
        o.has(WORK)
            ? o.get(WORK)
            : Path.of(System.getProperty("java.io.tmpdir"), "psi-bench-group-join");
    long rows = o.get(ROWS);
    double overlap = o.get(OVERLAP);
    Path data =
        work.resolve(String.format(Locale.ROOT, "data-%d-%d-%s-%d", n, rows, overlap, o.get(SEED)));
    long genStart = System.nanoTime();
    List<Path> tables = generate(data, n, rows, overlap, o.get(SEED), log);
    double genSeconds = (System.nanoTime() - genStart) / 1e9;
    long common = Math.round(rows * overlap);
    String sql = sql(n);

    double[] seconds = new double[o.get(RUNS)];
    List<JsonNode> lastSummaries = List.of();
    for (int r = 0; r < seconds.length; r++) {
      Path run = work.resolve("run-" + r);
      JoinBenchmark.deleteTree(run);
      Map<String, String> opts = new HashMap<>();
      opts.put("sql", sql);
      opts.put("out", run.resolve("out").toString());
      opts.put("work", run.resolve("work").toString());
      opts.put("parallelism", Integer.toString(o.get(PARALLELISM)));
      opts.put("party-heap", o.get(PARTY_HEAP));
      for (TypedOption<?> t :
          List.of(PartyOptions.BINS, PartyOptions.SIGMA, PartyOptions.PROTOCOL_PARAMS)) {
        if (o.has(t)) {
          opts.put(t.name(), String.valueOf(o.get(t)));
        }
      }
      if (o.has(PartyOptions.SIGMA) && o.get(PartyOptions.SIGMA) < 40) {
        opts.put("insecure-test-only", "true");
      }
      List<LocalGroupJoin.Table> given = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        given.add(new LocalGroupJoin.Table(NAMES[i], tables.get(i).toString()));
      }
      log.printf(
          Locale.ROOT, "psi bench join: run %d of %d, %d parties%n", r + 1, seconds.length, n);
      LocalGroupJoin.Result res = LocalGroupJoin.run(given, opts, log);
      seconds[r] = res.seconds();
      long checked = check(run.resolve("out"), n, common);
      log.printf(
          Locale.ROOT,
          "psi bench join: run %d: %.1f s, %d rows, equal to the plaintext join%n",
          r + 1,
          res.seconds(),
          checked);
      List<JsonNode> s = new ArrayList<>();
      for (String summary : res.summaries()) {
        s.add(Json.parse(summary));
      }
      lastSummaries = s;
    }
    double median = JoinBenchmark.median(seconds);
    ObjectNode report = Json.object();
    report.put("parties", n);
    report.put("rows_per_party", rows);
    report.put("overlap", overlap);
    report.put("joined_rows", common);
    report.put("generate_seconds", Json.three(genSeconds));
    report.put("median_seconds", Json.three(median));
    ArrayNode all = report.putArray("run_seconds");
    Arrays.stream(seconds).forEach(x -> all.add(Json.three(x)));
    ArrayNode parties = report.putArray("party_summaries");
    lastSummaries.forEach(parties::add);
    if (o.get(JSON)) {
      System.out.println(Json.write(report));
      return;
    }
    System.out.printf(
        Locale.ROOT,
        "%d parties x %,d rows, %.0f %% of keys common to all: %,d joined rows; median %.1f s"
            + " over %d run(s) (rows checked against the plaintext join)%n",
        n,
        rows,
        overlap * 100,
        common,
        median,
        seconds.length);
    for (JsonNode s : lastSummaries) {
      System.out.printf(
          Locale.ROOT,
          "  %s: %s; %,d bytes sent, %,d received%n",
          s.path("party").asText(),
          s.path("phase_seconds"),
          s.path("bytes_sent").asLong(),
          s.path("bytes_received").asLong());
    }
  }

  /** SELECT every table's v, chained ON the key k. */
  static String sql(int n) {
    StringBuilder s = new StringBuilder("SELECT ");
    for (int i = 0; i < n; i++) {
      s.append(i > 0 ? ", " : "").append(NAMES[i]).append(".v AS v").append(i);
    }
    s.append(" FROM a");
    for (int i = 1; i < n; i++) {
      s.append(" JOIN ")
          .append(NAMES[i])
          .append(" ON ")
          .append(NAMES[i - 1])
          .append(".k = ")
          .append(NAMES[i])
          .append(".k");
    }
    return s.toString();
  }

  /**
   * Party i's table: keys 0 … common−1 (every party's) and then keys of its own, each once, in
   * random order; v = "p&lt;i&gt;-&lt;key&gt;", so the joined row of a common key is known.
   */
  static List<Path> generate(Path dir, int n, long rows, double overlap, long seed, PrintStream log)
      throws IOException {
    Files.createDirectories(dir);
    long common = Math.round(rows * overlap);
    List<Path> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Path p = dir.resolve(NAMES[i] + ".csv");
      out.add(p);
      if (Files.exists(p)) {
        continue;
      }
      long[] keys = new long[Math.toIntExact(rows)];
      for (int j = 0; j < keys.length; j++) {
        keys[j] = j < common ? j : (i + 1) * 1_000_000_000_000L + j;
      }
      SplittableRandom r = new SplittableRandom(seed * 31 + i);
      for (int j = keys.length - 1; j > 0; j--) {
        int k = r.nextInt(j + 1);
        long t = keys[j];
        keys[j] = keys[k];
        keys[k] = t;
      }
      Path tmp = dir.resolve(NAMES[i] + ".csv.tmp");
      try (BufferedWriter w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
        w.write("k,v\n");
        for (long k : keys) {
          w.write(k + ",p" + i + "-" + k + "\n");
        }
      }
      Files.move(tmp, p);
      log.printf(Locale.ROOT, "psi bench join: generated %s (%,d rows)%n", p, rows);
    }
    return out;
  }

  /**
   * Checks the joined table: exactly one row per common key, each with every party's v of that key.
   * Returns the rows.
   */
  static long check(Path out, int n, long common) throws IOException {
    boolean[] seen = new boolean[Math.toIntExact(common)];
    long rows = 0;
    try (Stream<Path> files = Files.list(out)) {
      for (Path p : files.filter(f -> TableFiles.isVisible(f.getFileName().toString())).toList()) {
        try (DataFileReader<GenericRecord> r =
            new DataFileReader<>(p.toFile(), new GenericDatumReader<>())) {
          for (GenericRecord rec : r) {
            rows++;
            String v0 = String.valueOf(rec.get("v0"));
            long key = Long.parseLong(v0.substring(v0.indexOf('-') + 1));
            if (key < 0 || key >= common || seen[(int) key]) {
              throw new IOException("joined row for key " + key + " is not one the join has");
            }
            seen[(int) key] = true;
            for (int i = 0; i < n; i++) {
              String v = String.valueOf(rec.get("v" + i));
              if (!v.equals("p" + i + "-" + key)) {
                throw new IOException("joined row for key " + key + " has v" + i + " = " + v);
              }
            }
          }
        }
      }
    }
    if (rows != common) {
      throw new IOException("the join has " + rows + " rows, the plaintext join " + common);
    }
    return rows;
  }
}
