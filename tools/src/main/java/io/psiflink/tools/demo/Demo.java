package io.psiflink.tools.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psiflink.api.CommandLineSyntax;
import io.psiflink.api.OptionValues;
import io.psiflink.api.Role;
import io.psiflink.api.TypedOption;
import io.psiflink.coordinator.CoordinatorServer;
import io.psiflink.coordinator.cli.ApiClient;
import io.psiflink.coordinator.cli.ProgressView;
import io.psiflink.tools.bench.GeneratedTables;
import io.psiflink.tools.bench.GeneratorSpec;
import io.psiflink.tools.bench.RowDigest;
import io.psiflink.tools.bench.TableGenerator;
import io.psiflink.tools.cli.ToolOptions;
import io.psiflink.tools.local.LocalCoordinators;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.types.Row;

/**
 * {@code ./psi demo [--rows N] [--overlap F]}: the whole product on one machine. Generates two
 * parties' tables, makes a throwaway PKI and a coordinator config per party, starts both
 * coordinators (SQLite; alice's runs the bridge relay), registers a dataset at each, submits a SQL
 * join at alice (party A), approves it at bob, and follows both jobs (each a child JVM with its own
 * Flink MiniCluster, talking through the relay over TLS on loopback) with a progress bar per phase.
 * Then it checks the joined table against the plaintext join of the generated rows, computed here
 * independently, and prints a summary. Exits 1 if they disagree or a job failed.
 */
public final class Demo {
  private static final ObjectMapper JSON = new ObjectMapper();
  public static final String SQL =
      "SELECT a.id, a.spend, b.email_domain, b.country FROM a JOIN b"
          + " ON a.card = b.card AND a.zip = b.zip"
          + " WHERE a.spend > 100 AND b.country IN ('DE', 'FR', 'NL', 'AT')";
  private static final Set<String> COUNTRIES = Set.of("DE", "FR", "NL", "AT");
  static final TypedOption<Long> ROWS =
      ToolOptions.count(
          "rows", "N", "each generated table's rows (100000, 100_000 or 1e5)", 100_000L, 1);
  static final TypedOption<Double> OVERLAP =
      ToolOptions.fraction("overlap", "F", "the fraction of keys the two tables share", 0.5, true);
  static final TypedOption<Integer> PARALLELISM =
      TypedOption.integer("parallelism", "P", "each job's parallelism", 2, 1);
  static final TypedOption<String> PARTY_HEAP =
      TypedOption.text("party-heap", "H", "the heap of each party's job JVM (-Xmx)", "2g");
  static final TypedOption<Path> WORK =
      TypedOption.path(
          "work",
          "DIR",
          "where the tables, certificates, coordinator databases and logs go (default: a new "
              + "temporary directory)");

  /** The command line of {@code ./psi demo}. */
  static final CommandLineSyntax SYNTAX =
      new CommandLineSyntax(
          "./psi demo",
          "The whole product on one machine: two coordinators, a query submitted at alice and "
              + "approved at bob, both jobs followed, the joined table checked.",
          List.of(ROWS, OVERLAP, PARALLELISM, PARTY_HEAP, WORK));

  private final PrintStream out = System.out;

  private Demo() {}

  public static void main(String[] argv) {
    ToolOptions.Parsed parsed = ToolOptions.parse(SYNTAX, "psi demo", argv, System.out, System.err);
    if (parsed.done()) {
      System.exit(parsed.exitCode());
      return;
    }
    OptionValues a = parsed.values();
    long rows = a.get(ROWS);
    double overlap = a.get(OVERLAP);
    int parallelism = a.get(PARALLELISM);
    String heap = a.get(PARTY_HEAP);
    Path work;
    try {
      work = a.has(WORK) ? a.get(WORK).toAbsolutePath() : Files.createTempDirectory("psi-demo-");
      Files.createDirectories(work);
    } catch (IOException e) {
      System.err.println("psi demo: " + e.getMessage());
      System.exit(2);
      return;
    }
    // before any logger exists: the coordinators' logs go to a file, the terminal shows the demo
    try {
      LocalCoordinators.logToFile(work, work.resolve("demo.log"));
    } catch (IOException e) {
      System.err.println("psi demo: cannot write to " + work + ": " + e.getMessage());
      System.exit(1);
    }
    int code;
    try {
      code = new Demo().run(rows, overlap, parallelism, heap, work);
    } catch (Exception e) {
      System.err.println(
          "psi demo: " + e.getMessage() + " (log: " + work.resolve("demo.log") + ")");
      code = 1;
    }
    System.exit(code);
  }

  private int run(long rows, double overlap, int parallelism, String heap, Path work)
      throws Exception {
    long t0 = System.nanoTime();
    out.printf(
        Locale.ROOT,
        "psi demo: a private join of two generated tables of %,d rows"
            + " (overlap %.2f), work directory %s%n",
        rows,
        overlap,
        work);
    GeneratorSpec spec = GeneratorSpec.of(rows, overlap);
    GeneratedTables tables = TableGenerator.generate(spec, work.resolve("tables"));
    out.printf(
        Locale.ROOT,
        "  generated %s (alice: purchases) and %s (bob: visits) in %.1f s%n",
        tables.a(),
        tables.b(),
        tables.seconds());

    try (LocalCoordinators coordinators =
        LocalCoordinators.start(work, new LocalCoordinators.Jobs(parallelism, heap, null))) {
      CoordinatorServer aliceServer = coordinators.alice;
      CoordinatorServer bobServer = coordinators.bob;
      Path aliceYaml = coordinators.aliceYaml;
      Path bobYaml = coordinators.bobYaml;
      // Ctrl-C: stop the coordinators, and with them the jobs' JVMs they launched
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      coordinators.close();
                    } catch (Exception e) {
                      // exiting anyway
                    }
                  },
                  "psi-demo-stop"));
      out.printf(
          Locale.ROOT,
          "  coordinators: alice https://localhost:%d (bridge relay on"
              + " 127.0.0.1:%d), bob https://localhost:%d; configs %s, %s%n",
          aliceServer.port(),
          aliceServer.relayPort(),
          bobServer.port(),
          aliceYaml,
          bobYaml);
      ApiClient alice = coordinators.aliceApi;
      ApiClient bob = coordinators.bobApi;

      alice.post(
          "/v1/datasets",
          dataset("purchases", tables.a(), List.of("id", "spend"), List.of("spend")));
      bob.post(
          "/v1/datasets",
          dataset("visits", tables.b(), List.of("email_domain", "country"), List.of("country")));
      ObjectNode q = JSON.createObjectNode();
      q.put("localDataset", "purchases");
      q.put("peerDataset", "visits");
      q.put("sql", SQL);
      JsonNode submitted = alice.post("/v1/queries", q);
      String queryId = submitted.path("id").asText();
      out.println("  alice submits query " + queryId + ":");
      out.println("    " + SQL);
      JsonNode approved = bob.post("/v1/queries/" + queryId + "/approve", Map.of("reason", "demo"));
      String session = approved.path("session").path("id").asText();
      out.println("  bob approves it: session " + session + "; both jobs start");
      JsonNode disclosure = approved.path("disclosure");
      if (disclosure.isObject()) {
        out.println(
            "    alice learns " + disclosure.path("peerLearnsAboutMine").path("text").asText());
        out.println("    bob learns " + disclosure.path("iLearnAboutPeer").path("text").asText());
      }

      JsonNode[] ended = follow(alice, bob, session);
      JsonNode sa = ended[0];
      JsonNode sb = ended[1];
      if (!sa.path("status").asText().equals("succeeded")
          || !sb.path("status").asText().equals("succeeded")) {
        out.println("psi demo: the join did not succeed:");
        out.println("  alice: " + sa.path("status").asText() + " " + sa.path("error").asText(""));
        out.println("  bob:   " + sb.path("status").asText() + " " + sb.path("error").asText(""));
        out.println(
            "  job logs: "
                + work.resolve("alice/work/" + session + "/job.log")
                + ", "
                + work.resolve("bob/work/" + session + "/job.log"));
        return 1;
      }
      JsonNode result = alice.get("/v1/sessions/" + session + "/result");
      JsonNode summaryA = result.path("summary");
      // bob's coordinator serves no result (party B receives no rows); its job's summary is in
      // its work directory
      JsonNode summaryB =
          JSON.readTree(work.resolve("bob/work").resolve(session).resolve("summary.json").toFile());
      Path location = Path.of(result.path("location").asText());
      double jobSeconds = (sa.path("endedAt").asLong() - sa.path("startedAt").asLong()) / 1000.0;

      RowDigest expected = plaintextJoin(spec);
      RowDigest actual = readAvro(location);
      boolean agree = expected.equals(actual);
      printSummary(
          tables,
          summaryA,
          summaryB,
          location,
          jobSeconds,
          expected,
          actual,
          agree,
          (System.nanoTime() - t0) / 1e9);
      return agree ? 0 : 1;
    }
  }

  /** Follows both sessions until both ended, with A's progress bar and B's phase beside it. */
  private JsonNode[] follow(ApiClient alice, ApiClient bob, String session) throws Exception {
    ProgressView view = new ProgressView(out, System.console() != null, "  A");
    Set<String> end = Set.of("succeeded", "failed", "cancelled");
    while (true) {
      JsonNode sa = alice.get("/v1/sessions/" + session);
      JsonNode sb = bob.get("/v1/sessions/" + session);
      JsonNode pb = sb.path("progress");
      String b =
          "B: "
              + (pb.isObject() ? pb.path("phase").asText() : sb.path("status").asText())
              + (pb.path("binsTotal").isNumber()
                  ? " " + pb.path("binsDone").asLong() + "/" + pb.path("binsTotal").asLong()
                  : "");
      view.update(sa, b);
      if (end.contains(sa.path("status").asText()) && end.contains(sb.path("status").asText())) {
        view.finish();
        return new JsonNode[] {sa, sb};
      }
      Thread.sleep(250);
    }
  }

  private void printSummary(
      GeneratedTables t,
      JsonNode a,
      JsonNode b,
      Path location,
      double jobSeconds,
      RowDigest expected,
      RowDigest actual,
      boolean agree,
      double wall) {
    out.println();
    out.println("summary");
    out.printf(
        Locale.ROOT,
        "  rows in           A %,d   B %,d   (after WHERE and NULL keys: A %,d, B %,d)%n",
        a.path("rows_read").asLong(),
        b.path("rows_read").asLong(),
        a.path("rows_tokenized").asLong(),
        b.path("rows_tokenized").asLong());
    out.printf(
        Locale.ROOT,
        "  sizes disclosed   A n=%,d (%s)   B n=%,d (%s)%n",
        a.path("rows_disclosed").asLong(),
        a.path("public_size").asText(),
        b.path("rows_disclosed").asLong(),
        b.path("public_size").asText());
    out.printf(
        Locale.ROOT,
        "  intersection      %,d keys in %d bins%n",
        a.path("intersecting_keys").asLong(),
        a.path("bins").asLong());
    out.printf(
        Locale.ROOT,
        "  rows out          %,d, written to %s (Avro)%n",
        a.path("rows_out").asLong(),
        location);
    StringBuilder phases = new StringBuilder();
    for (Iterator<Map.Entry<String, JsonNode>> it = a.path("phase_seconds").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      phases.append(
          String.format(
              Locale.ROOT,
              "%s%s %.1f s",
              phases.isEmpty() ? "" : ", ",
              e.getKey(),
              e.getValue().asDouble()));
    }
    out.println("  time per phase    (A) " + phases);
    out.printf(
        Locale.ROOT,
        "  bytes exchanged   A→B %s, B→A %s%n",
        bytes(a.path("bytes_sent").asLong()),
        bytes(a.path("bytes_received").asLong()));
    out.printf(
        Locale.ROOT,
        "  plaintext join    %,d rows (computed from the generated rows"
            + " here); the private join's rows %s%n",
        expected.count(),
        agree
            ? "are the same multiset: AGREE"
            : "DIFFER (" + actual.count() + " rows, digest " + actual + " vs " + expected + ")");
    out.printf(
        Locale.ROOT,
        "  wall time         %.1f s (jobs %.1f s, table generation %.1f s)%n",
        wall,
        jobSeconds,
        t.seconds());
  }

  private static String bytes(long n) {
    return n >= 1 << 20
        ? String.format(Locale.ROOT, "%.1f MiB", n / 1048576.0)
        : String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
  }

  /** The oracle: the SQL's inner join with both WHERE conjuncts over the generated rows. */
  public static RowDigest plaintextJoin(GeneratorSpec spec) {
    Map<List<Object>, List<Row>> b = new HashMap<>();
    TableGenerator.forEachRow(
        spec,
        Role.B,
        r -> {
          Object country = r.getField(3);
          if (r.getField(1) != null
              && r.getField(2) != null
              && country != null
              && COUNTRIES.contains((String) country)) {
            b.computeIfAbsent(List.of(r.getField(1), r.getField(2)), k -> new ArrayList<>()).add(r);
          }
        });
    RowDigest d = new RowDigest();
    TableGenerator.forEachRow(
        spec,
        Role.A,
        r -> {
          Object spend = r.getField(3);
          if (r.getField(1) == null
              || r.getField(2) == null
              || spend == null
              || (Double) spend <= 100) {
            return;
          }
          for (Row rb : b.getOrDefault(List.of(r.getField(1), r.getField(2)), List.of())) {
            d.add(Row.of(r.getField(0), spend, rb.getField(4), rb.getField(3)));
          }
        });
    return d;
  }

  /** The rows of the Avro part files A wrote (columns id, spend, email_domain, country). */
  public static RowDigest readAvro(Path dir) throws IOException {
    RowDigest d = new RowDigest();
    List<Path> parts;
    try (Stream<Path> s = Files.list(dir)) {
      parts =
          s.filter(Files::isRegularFile)
              .filter(
                  p ->
                      !p.getFileName().toString().startsWith("_")
                          && !p.getFileName().toString().startsWith("."))
              .sorted()
              .toList();
    }
    for (Path p : parts) {
      try (DataFileReader<GenericRecord> r =
          new DataFileReader<>(p.toFile(), new GenericDatumReader<>())) {
        for (GenericRecord g : r) {
          d.add(Row.of(g.get(0), g.get(1), str(g.get(2)), str(g.get(3))));
        }
      }
    }
    return d;
  }

  private static String str(Object o) {
    return o == null ? null : o.toString();
  }

  /** A CSV dataset keyed by (card, zip), as the demo registers its generated tables. */
  public static ObjectNode dataset(
      String name, Path csv, List<String> reveal, List<String> filter) {
    ObjectNode n = JSON.createObjectNode();
    n.put("name", name);
    n.put("location", csv.toString());
    n.put("format", "csv");
    n.set("keyColumns", JSON.valueToTree(List.of("card", "zip")));
    n.set("revealColumns", JSON.valueToTree(reveal));
    n.set("filterColumns", JSON.valueToTree(filter));
    return n;
  }
}
