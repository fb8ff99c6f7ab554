package io.psiflink.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psiflink.coordinator.Client;
import io.psiflink.coordinator.Client.Reply;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Two small CSV tables for end-to-end joins through the coordinators, a(card, zip, spend) at alice
 * and b(card, zip, email, country) at bob, and the plaintext join of {@link #SQL} over them (the
 * oracle). Keys come from a shared domain so about a third match, with repeated keys on both sides
 * (r×s rows) and some NULL keys.
 */
public final class JoinTables {
  public static final String SQL =
      "SELECT a.card, a.spend, b.email FROM a JOIN b"
          + " ON a.card = b.card AND a.zip = b.zip WHERE a.spend > 23 AND b.country = 'DE'";

  /** The tables' NULL-key rows (about 2% of a, 1.7% of b) are quarantined: let them through. */
  public static final String MAX_BAD_ROWS = "5%";

  /**
   * The class path of the embedded party JVMs the coordinators launch: this test JVM's, which holds
   * flink-jobs (the coordinator's own holds no Flink runtime).
   */
  public static List<Path> jobClasspath() {
    return Stream.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
        .map(Path::of)
        .toList();
  }

  /**
   * An embedded job section for coordinators in tests: parallelism 1, this JVM's class path, the
   * fixture's bad-row limit; its key paths are placeholders that Parties fills in per party.
   *
   * @param maxConcurrentJobs job slots (null: the default)
   * @param onShutdown stop or leave (null: the default)
   */
  public static io.psiflink.coordinator.CoordinatorConfig.Job embeddedJob(
      Path dir,
      String heap,
      int attempts,
      Duration timeout,
      Integer maxConcurrentJobs,
      String onShutdown) {
    return new io.psiflink.coordinator.CoordinatorConfig.Job(
        io.psiflink.coordinator.JobMode.EMBEDDED,
        heap,
        1,
        null,
        null,
        dir.resolve("unused.key"),
        dir.resolve("unused.pem"),
        null,
        null,
        null,
        null,
        attempts,
        timeout,
        timeout,
        MAX_BAD_ROWS,
        jobClasspath(),
        maxConcurrentJobs,
        onShutdown);
  }

  /** The actions of {@code c}'s audit log on {@code objectId}, oldest first. */
  public static List<String> auditActions(Client c, String objectId) {
    List<String> out = new ArrayList<>();
    for (JsonNode e : c.get("/v1/audit").json().path("entries")) {
      if (e.path("objectId").asText().equals(objectId)) {
        out.add(e.path("action").asText());
      }
    }
    return out;
  }

  public final Path a;
  public final Path b;

  /** The tables, as the rows written to the CSV files (null: empty field, NULL). */
  final List<String[]> rowsA = new ArrayList<>();

  final List<String[]> rowsB = new ArrayList<>();

  public JoinTables(Path dir) throws IOException {
    a = dir.resolve("a.csv");
    b = dir.resolve("b.csv");
    Random r = new Random(42);
    List<String> linesA = new ArrayList<>(List.of("card,zip,spend"));
    for (int i = 0; i < 1500; i++) {
      String[] row = {
        r.nextInt(50) == 0 ? null : "c" + r.nextInt(1200),
        Integer.toString(10000 + r.nextInt(3)),
        Integer.toString(r.nextInt(100))
      };
      rowsA.add(row);
      linesA.add(csv(row));
    }
    List<String> linesB = new ArrayList<>(List.of("card,zip,email,country"));
    String[] countries = {"DE", "FR", "DE", "NL"};
    for (int i = 0; i < 1200; i++) {
      String[] row = {
        "c" + r.nextInt(1200),
        r.nextInt(60) == 0 ? null : Integer.toString(10000 + r.nextInt(3)),
        "user" + i + "@example.org",
        countries[r.nextInt(countries.length)]
      };
      rowsB.add(row);
      linesB.add(csv(row));
    }
    Files.write(a, linesA, StandardCharsets.UTF_8);
    Files.write(b, linesB, StandardCharsets.UTF_8);
  }

  private static String csv(String[] row) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < row.length; i++) {
      sb.append(i == 0 ? "" : ",").append(row[i] == null ? "" : row[i]);
    }
    return sb.toString();
  }

  /** The oracle: the plaintext inner join of {@link #SQL}, as sorted "card,spend,email". */
  public List<String> plaintextJoin() {
    Map<String, List<String[]>> byKey = new HashMap<>();
    for (String[] rb : rowsB) {
      if (rb[0] != null && rb[1] != null && rb[3].equals("DE")) {
        byKey.computeIfAbsent(rb[0] + "|" + rb[1], k -> new ArrayList<>()).add(rb);
      }
    }
    List<String> out = new ArrayList<>();
    for (String[] ra : rowsA) {
      if (ra[0] == null || ra[1] == null || Long.parseLong(ra[2]) <= 23) {
        continue;
      }
      for (String[] rb : byKey.getOrDefault(ra[0] + "|" + ra[1], List.of())) {
        out.add(ra[0] + "," + ra[2] + "," + rb[2]);
      }
    }
    Collections.sort(out);
    return out;
  }

  /** Registers a CSV dataset keyed by (card, zip). */
  public static void register(
      Client c, String name, Path csv, List<String> reveal, List<String> filter) {
    register(c, name, csv.toString(), reveal, filter);
  }

  /** Registers a CSV dataset keyed by (card, zip) at a location (a path or a URI: hdfs://...). */
  public static void register(
      Client c, String name, String location, List<String> reveal, List<String> filter) {
    ObjectNode n = Client.JSON.createObjectNode();
    n.put("name", name);
    n.put("location", location);
    n.put("format", "csv");
    n.set("keyColumns", Client.JSON.valueToTree(List.of("card", "zip")));
    n.set("revealColumns", Client.JSON.valueToTree(reveal));
    n.set("filterColumns", Client.JSON.valueToTree(filter));
    Reply r = c.post("/v1/datasets", n);
    assertEquals(201, r.status(), r.toString());
  }

  /** Registers a as alice's "purchases" and b as bob's "customers". */
  public void register(Client alice, Client bob) {
    register(alice, "purchases", a, List.of("spend", "card"), List.of("spend"));
    register(bob, "customers", b, List.of("email"), List.of("country"));
  }

  /**
   * Checks a succeeded session's progress: phase done, every bin done, and some phase of the
   * running Flink job among those {@code seen} while it ran (progress comes from Flink).
   */
  public static void assertProgressFromFlink(JsonNode session, List<String> seen) {
    JsonNode p = session.path("progress");
    assertEquals("done", p.path("phase").asText(), session.toString());
    assertTrue(p.path("binsTotal").asLong() > 0, session.toString());
    assertEquals(p.path("binsTotal").asLong(), p.path("binsDone").asLong(), session.toString());
    assertTrue(
        seen.stream()
            .anyMatch(
                s ->
                    List.of("running/tokenize", "running/bin_spill", "running/psi", "running/write")
                        .contains(s)),
        seen.toString());
  }

  /** Checks that the complete CSV output at {@code out} is the plaintext join; returns its rows. */
  public List<String> assertOutputIsThePlaintextJoin(Path out) throws IOException {
    List<String> expected = plaintextJoin();
    assertTrue(expected.size() > 50, "the data should join: " + expected.size());
    assertEquals(expected, readCsvOutput(out));
    assertTrue(Files.exists(out.resolve("_SUCCESS")), "no _SUCCESS in " + out);
    return expected;
  }

  /** Checks A's job summary: rows with a NULL key quarantined, the others read. */
  public void assertCountsOfA(JsonNode summary) {
    long nullKeys = rowsA.stream().filter(r -> r[0] == null || r[1] == null).count();
    assertTrue(nullKeys > 0, "the fixture has NULL keys");
    assertEquals(nullKeys, summary.path("rows_quarantined").asLong(), summary.toString());
    assertEquals(rowsA.size() - nullKeys, summary.path("rows_read").asLong(), summary.toString());
  }

  /**
   * Submits {@link #SQL} at alice (table a: {@code local}) with a CSV output at {@code out}, and
   * approves it at bob; returns the session id.
   */
  public static String submitAndApprove(
      Client alice, Client bob, String local, String peer, String out) {
    ObjectNode q = Client.JSON.createObjectNode();
    q.put("localDataset", local);
    q.put("peerDataset", peer);
    q.put("sql", SQL);
    ObjectNode o = q.putObject("output");
    o.put("location", out);
    o.put("format", "csv");
    Reply submitted = alice.post("/v1/queries", q);
    assertEquals(201, submitted.status(), submitted.toString());
    String id = submitted.json().path("id").asText();
    Reply approved = bob.post("/v1/queries/" + id + "/approve", "{}");
    assertEquals(200, approved.status(), approved.toString());
    return approved.json().path("session").path("id").asText();
  }

  /**
   * Polls a session until it has ended; returns it, with every status/phase seen on the way added
   * to {@code seen}. On a timeout, the assertion message ends with {@code diagnostics}.
   */
  public static JsonNode awaitEnd(
      Client c, String session, List<String> seen, Duration timeout, Supplier<String> diagnostics)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Reply r = c.get("/v1/sessions/" + session);
      assertEquals(200, r.status(), r.toString());
      JsonNode s = r.json();
      String st = s.path("status").asText() + "/" + s.path("progress").path("phase").asText();
      if (seen.isEmpty() || !seen.get(seen.size() - 1).equals(st)) {
        seen.add(st);
      }
      if (List.of("succeeded", "failed", "cancelled").contains(s.path("status").asText())) {
        return s;
      }
      Thread.sleep(250);
    }
    throw new AssertionError(
        "session "
            + session
            + " did not end within "
            + timeout
            + "; seen "
            + seen
            + "\n"
            + diagnostics.get());
  }

  /** The rows of a CSV output (part files; header rows dropped), sorted, as "card,spend,email". */
  public static List<String> readCsvOutput(Path out) throws IOException {
    List<String> rows = new ArrayList<>();
    try (Stream<Path> files = Files.list(out)) {
      for (Path f :
          files
              .filter(
                  p ->
                      Files.isRegularFile(p)
                          && !p.getFileName().toString().startsWith("_")
                          && !p.getFileName().toString().startsWith("."))
              .sorted()
              .toList()) {
        List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
        for (int i = 1; i < lines.size(); i++) {
          rows.add(lines.get(i).replace("\"", ""));
        }
      }
    }
    Collections.sort(rows);
    return rows;
  }
}
