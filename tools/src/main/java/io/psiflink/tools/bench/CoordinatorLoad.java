package io.psiflink.tools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psiflink.api.CommandLineSyntax;
import io.psiflink.api.OptionValues;
import io.psiflink.api.TypedOption;
import io.psiflink.coordinator.cli.ApiClient;
import io.psiflink.tools.cli.ToolOptions;
import io.psiflink.tools.demo.Demo;
import io.psiflink.tools.local.LocalCoordinators;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code ./psi bench coordinator}: bounded load on two local coordinators (loopback only; stops by
 * itself).
 *
 * <ol>
 *   <li>API load: {@code --clients} concurrent clients for {@code --seconds}, a mix of reads,
 *       submissions, approvals and invalid submissions; every answer must be the expected one (2xx,
 *       or the 4xx an invalid request or a lost race earns); latencies reported as percentiles.
 *   <li>Sessions: {@code --sessions} queries submitted and approved at once with {@code
 *       --job-slots} job slots per coordinator; no coordinator may run more jobs than its slots,
 *       the rest wait in line, and every joined table must equal the plaintext join.
 * </ol>
 */
public final class CoordinatorLoad {
  static final TypedOption<Integer> CLIENTS =
      TypedOption.integer("clients", "N", "concurrent API clients", 100, 1);
  static final TypedOption<Integer> SECONDS =
      TypedOption.integer("seconds", "S", "how long the API load lasts", 60, 1);
  static final TypedOption<Integer> SESSIONS =
      TypedOption.integer(
          "sessions", "M", "sessions submitted and approved at once (0: none)", 20, 0);
  static final TypedOption<Integer> JOB_SLOTS =
      TypedOption.integer("job-slots", "K", "each coordinator's job.maxConcurrentJobs", 2, 1);
  static final TypedOption<Long> ROWS =
      ToolOptions.count("rows", "R", "rows of each session's tables", 2000L, 1);
  static final TypedOption<Path> WORK =
      TypedOption.path(
          "work", "DIR", "where everything goes (default: <java.io.tmpdir>/psi-bench-coordinator)");
  static final TypedOption<Boolean> JSON_OUT =
      TypedOption.flag("json", "print the report as one JSON object instead of text");

  static final CommandLineSyntax SYNTAX =
      new CommandLineSyntax(
          "./psi bench coordinator",
          "Loads two local coordinators: concurrent API clients for a fixed time, then sessions"
              + " beyond the job slots; checks every answer and every joined table.",
          List.of(CLIENTS, SECONDS, SESSIONS, JOB_SLOTS, ROWS, WORK, JSON_OUT));

  private static final ObjectMapper JSON = new ObjectMapper();

  private CoordinatorLoad() {}

  public static void main(String[] args) throws Exception {
    ToolOptions.Parsed parsed =
        ToolOptions.parse(SYNTAX, "psi bench coordinator", args, System.out, System.err);
    if (parsed.done()) {
      System.exit(parsed.exitCode());
      return;
    }
    OptionValues o = parsed.values();
    Path work =
        o.has(WORK)
            ? o.get(WORK)
            : Path.of(System.getProperty("java.io.tmpdir"), "psi-bench-coordinator");
    for (String mine : List.of("api", "sessions", "tables")) {
      JoinBenchmark.deleteTree(work.resolve(mine)); // what a run before left; nothing else
    }
    // before any logger exists: the coordinators log to a file, stdout holds the report only
    LocalCoordinators.logToFile(work, work.resolve("coordinators.log"));
    PrintStream log = System.err;
    GeneratorSpec spec = GeneratorSpec.of(o.get(ROWS), 0.5);
    GeneratedTables tables = TableGenerator.generate(spec, work.resolve("tables"));
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("machine", Map.of("cores", Runtime.getRuntime().availableProcessors()));
    try (LocalCoordinators c = LocalCoordinators.start(work.resolve("api"), null)) {
      register(c, tables);
      log.printf(
          Locale.ROOT,
          "psi bench coordinator: %d clients for %d s against alice (submissions go to bob)%n",
          o.get(CLIENTS),
          o.get(SECONDS));
      report.put("api", apiLoad(c, o.get(CLIENTS), o.get(SECONDS)));
    }
    boolean ok = ((Map<?, ?>) report.get("api")).get("unexpected").equals(0);
    if (o.get(SESSIONS) > 0) {
      try (LocalCoordinators c =
          LocalCoordinators.start(
              work.resolve("sessions"), new LocalCoordinators.Jobs(1, "512m", o.get(JOB_SLOTS)))) {
        register(c, tables);
        log.printf(
            Locale.ROOT,
            "psi bench coordinator: %d sessions at once, %d job slots per coordinator%n",
            o.get(SESSIONS),
            o.get(JOB_SLOTS));
        Map<String, Object> s = sessions(c, spec, o.get(SESSIONS), o.get(JOB_SLOTS), log);
        report.put("sessions", s);
        ok &= Boolean.TRUE.equals(s.get("ok"));
      }
    }
    report.put("ok", ok);
    if (o.get(JSON_OUT)) {
      System.out.println(JSON.writeValueAsString(report));
    } else {
      System.out.println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(report));
    }
    System.exit(ok ? 0 : 1);
  }

  private static void register(LocalCoordinators c, GeneratedTables tables) throws Exception {
    c.aliceApi.post(
        "/v1/datasets",
        Demo.dataset("purchases", tables.a(), List.of("id", "spend"), List.of("spend")));
    c.bobApi.post(
        "/v1/datasets",
        Demo.dataset("visits", tables.b(), List.of("email_domain", "country"), List.of("country")));
  }

  private static ObjectNode query(String sql) {
    ObjectNode q = JSON.createObjectNode();
    q.put("localDataset", "purchases");
    q.put("peerDataset", "visits");
    q.put("sql", sql);
    return q;
  }

  /** One kind of request of the mix, with the statuses it may answer. */
  private record Op(String name, Set<Integer> expected) {}

  /** Latencies (ms) and unexpected answers, per op. */
  private static final class Tally {
    final Map<String, List<Double>> millis = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> statuses = new ConcurrentHashMap<>();
    final List<String> unexpected = Collections.synchronizedList(new ArrayList<>());

    void record(Op op, int status, double ms, String detail) {
      millis
          .computeIfAbsent(op.name(), k -> Collections.synchronizedList(new ArrayList<>()))
          .add(ms);
      statuses
          .computeIfAbsent(op.name() + " " + status, k -> new AtomicInteger())
          .incrementAndGet();
      if (!op.expected().contains(status)) {
        unexpected.add(op.name() + " answered " + status + ": " + detail);
      }
    }
  }

  private static Map<String, Object> apiLoad(LocalCoordinators c, int clients, int seconds)
      throws Exception {
    Op read = new Op("read", Set.of(200));
    Op submit = new Op("submit", Set.of(201));
    Op invalid = new Op("invalid-submit", Set.of(400, 422));
    // another client may have approved it first
    Op approve = new Op("approve", Set.of(200, 409));
    List<String> pending = Collections.synchronizedList(new ArrayList<>());
    Tally tally = new Tally();
    long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    List<Future<?>> futures = new ArrayList<>();
    long start = System.nanoTime();
    for (int i = 0; i < clients; i++) {
      futures.add(
          pool.submit(
              () -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                while (System.nanoTime() < end) {
                  int pick = r.nextInt(100);
                  long t0 = System.nanoTime();
                  Op op;
                  String detail = "";
                  String label = null; // reads per path: a list and one object cost differently
                  int status;
                  try {
                    if (pick < 60) {
                      op = read;
                      String[] paths = {
                        "/v1/datasets",
                        "/v1/queries?status=pending",
                        "/v1/sessions",
                        "/v1/audit?limit=50",
                        "/v1/helpers"
                      };
                      detail = paths[r.nextInt(paths.length)];
                      label = "read " + detail.replaceAll("\\?.*", "");
                      (r.nextBoolean() ? c.aliceApi : c.bobApi).get(detail);
                    } else if (pick < 85) {
                      op = submit;
                      JsonNode q = c.aliceApi.post("/v1/queries", query(Demo.SQL));
                      pending.add(q.path("id").asText());
                    } else if (pick < 95) {
                      op = invalid;
                      c.aliceApi.post(
                          "/v1/queries",
                          query(r.nextBoolean() ? "SELECT FROM a JOIN" : Demo.SQL + " OR 1 = 1"));
                    } else {
                      op = approve;
                      String id;
                      synchronized (pending) {
                        id = pending.isEmpty() ? null : pending.remove(r.nextInt(pending.size()));
                      }
                      if (id == null) {
                        continue;
                      }
                      c.bobApi.post("/v1/queries/" + id + "/approve", Map.of());
                    }
                    status = op == submit ? 201 : 200;
                  } catch (ApiClient.ApiError e) {
                    op = pick < 60 ? read : pick < 85 ? submit : pick < 95 ? invalid : approve;
                    status = e.status;
                    detail = e.getMessage();
                  }
                  tally.record(
                      label == null ? op : new Op(label, op.expected()),
                      status,
                      (System.nanoTime() - t0) / 1e6,
                      detail);
                }
                return null;
              }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    double elapsed = (System.nanoTime() - start) / 1e9;
    Map<String, Object> m = new LinkedHashMap<>();
    List<Double> all = new ArrayList<>();
    Map<String, Object> byOp = new LinkedHashMap<>();
    tally.millis.forEach(
        (op, l) -> {
          List<Double> sorted;
          synchronized (l) {
            sorted = new ArrayList<>(l);
          }
          all.addAll(sorted);
          byOp.put(op, percentiles(sorted));
        });
    m.put("clients", clients);
    m.put("seconds", Math.round(elapsed * 10) / 10.0);
    m.put("requests", all.size());
    m.put("perSecond", Math.round(all.size() / elapsed));
    m.put("latencyMs", percentiles(all));
    m.put("byOp", byOp);
    Map<String, Integer> statuses = new java.util.TreeMap<>();
    tally.statuses.forEach((k, v) -> statuses.put(k, v.get()));
    m.put("statuses", statuses);
    m.put("unexpected", tally.unexpected.size());
    m.put("unexpectedExamples", tally.unexpected.stream().limit(5).toList());
    return m;
  }

  private static Map<String, Object> percentiles(List<Double> l) {
    List<Double> s = new ArrayList<>(l);
    Collections.sort(s);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("count", s.size());
    if (!s.isEmpty()) {
      m.put("p50", round(s.get((int) (0.50 * (s.size() - 1)))));
      m.put("p99", round(s.get((int) (0.99 * (s.size() - 1)))));
      m.put("max", round(s.get(s.size() - 1)));
    }
    return m;
  }

  private static double round(double ms) {
    return Math.round(ms * 10) / 10.0;
  }

  private static Map<String, Object> sessions(
      LocalCoordinators c, GeneratorSpec spec, int count, int slots, PrintStream log)
      throws Exception {
    long t0 = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(count, 20));
    List<Future<String>> started = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      started.add(
          pool.submit(
              () -> {
                JsonNode q = c.aliceApi.post("/v1/queries", query(Demo.SQL));
                JsonNode a =
                    c.bobApi.post("/v1/queries/" + q.path("id").asText() + "/approve", Map.of());
                return a.path("session").path("id").asText();
              }));
    }
    List<String> ids = new ArrayList<>();
    for (Future<String> f : started) {
      ids.add(f.get());
    }
    pool.shutdown();
    Map<String, Integer> maxRunning = new LinkedHashMap<>(Map.of("alice", 0, "bob", 0));
    int maxQueued = 0;
    Set<String> ended = Set.of("succeeded", "failed", "cancelled");
    Map<String, JsonNode> last = new LinkedHashMap<>();
    long deadline = System.nanoTime() + Duration.ofMinutes(60).toNanos();
    while (System.nanoTime() < deadline) {
      int done = 0;
      for (Map.Entry<String, ApiClient> e :
          Map.of("alice", c.aliceApi, "bob", c.bobApi).entrySet()) {
        int running = 0;
        int queued = 0;
        for (JsonNode s : e.getValue().get("/v1/sessions").path("sessions")) {
          String st = s.path("status").asText();
          running += st.equals("running") ? 1 : 0;
          queued += st.equals("created") ? 1 : 0;
          done += ended.contains(st) ? 1 : 0;
          if (e.getKey().equals("alice")) {
            last.put(s.path("id").asText(), s);
          }
        }
        maxRunning.merge(e.getKey(), running, Math::max);
        maxQueued = Math.max(maxQueued, queued);
      }
      if (done == 2 * count) {
        break;
      }
      Thread.sleep(250);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    RowDigest expected = Demo.plaintextJoin(spec);
    int exact = 0;
    List<Double> jobSeconds = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (String id : ids) {
      JsonNode s = last.get(id);
      if (s == null || !s.path("status").asText().equals("succeeded")) {
        problems.add(
            id
                + ": "
                + (s == null
                    ? "unknown"
                    : s.path("status").asText() + " " + s.path("error").asText("")));
        continue;
      }
      jobSeconds.add((s.path("endedAt").asLong() - s.path("startedAt").asLong()) / 1000.0);
      JsonNode result = c.aliceApi.get("/v1/sessions/" + id + "/result");
      if (Demo.readAvro(Path.of(result.path("location").asText())).equals(expected)) {
        exact++;
      } else {
        problems.add(id + ": output differs from the plaintext join");
      }
    }
    log.printf(Locale.ROOT, "  %d of %d sessions exact in %.1f s%n", exact, count, seconds);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("sessions", count);
    m.put("jobSlots", slots);
    m.put("rows", spec.rowsA());
    m.put("seconds", Math.round(seconds * 10) / 10.0);
    m.put("exact", exact);
    m.put("maxRunning", maxRunning);
    m.put("maxQueued", maxQueued);
    m.put("jobSecondsMedian", jobSeconds.isEmpty() ? null : percentiles(jobSeconds).get("p50"));
    m.put("problems", problems);
    m.put("ok", exact == count && maxRunning.values().stream().allMatch(r -> r <= slots));
    return m;
  }
}
