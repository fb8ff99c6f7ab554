package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * End to end, issue 15: n parties as separate JVMs, each with its own Flink MiniCluster, and the
 * provider in another, over the real bridge with TLS on loopback; the joined rows must equal the
 * n-way join computed in plain Java from the same tables.
 */
class GroupJoinTest {
  @TempDir Path dir;

  /**
   * Every party's table: key k (some keys held by all parties, the rest private), a value v per
   * row, a filter column x, and duplicate keys.
   */
  private record Tables(List<Path> paths, List<List<int[]>> rows) {}

  private Tables generate(int[] sizes, double common, double dup, long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    int n = sizes.length;
    int smallest = java.util.Arrays.stream(sizes).min().orElseThrow();
    int shared = (int) Math.round(smallest * common);
    List<Path> paths = new ArrayList<>();
    List<List<int[]>> all = new ArrayList<>();
    for (int t = 0; t < n; t++) {
      List<int[]> rows = new ArrayList<>();
      StringBuilder csv = new StringBuilder("k,v,x\n");
      int distinct = 0;
      for (int i = 0; rows.size() < sizes[t]; i++) {
        // the first `shared` keys every table holds; the others are this table's own
        int key = i < shared ? i : 1_000_000 * (t + 1) + i;
        int copies = r.nextDouble() < dup ? 2 + r.nextInt(2) : 1;
        for (int c = 0; c < copies && rows.size() < sizes[t]; c++) {
          int[] row = {key, rows.size(), r.nextInt(100)};
          rows.add(row);
          csv.append(row[0]).append(",v").append(t).append('_').append(row[1]).append(',');
          csv.append(row[2]).append('\n');
        }
        distinct++;
      }
      Path p = dir.resolve("t" + t + ".csv");
      Files.writeString(p, csv.toString(), StandardCharsets.UTF_8);
      paths.add(p);
      all.add(rows);
      assertTrue(distinct > 0);
    }
    return new Tables(paths, all);
  }

  /** The plaintext n-way join: v of every table, rows filtered by x where the query filters. */
  private static List<String> expected(Tables t, int[] minX) {
    int n = t.rows().size();
    List<Map<Integer, List<String>>> byKey = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Map<Integer, List<String>> m = new HashMap<>();
      for (int[] row : t.rows().get(i)) {
        if (row[2] >= minX[i]) {
          m.computeIfAbsent(row[0], k -> new ArrayList<>()).add("v" + i + "_" + row[1]);
        }
      }
      byKey.add(m);
    }
    List<String> out = new ArrayList<>();
    for (Map.Entry<Integer, List<String>> e : byKey.get(0).entrySet()) {
      List<String> partial = new ArrayList<>(e.getValue());
      for (int i = 1; i < n && !partial.isEmpty(); i++) {
        List<String> theirs = byKey.get(i).getOrDefault(e.getKey(), List.of());
        List<String> next = new ArrayList<>();
        for (String p : partial) {
          for (String v : theirs) {
            next.add(p + "|" + v);
          }
        }
        partial = next;
      }
      out.addAll(partial);
    }
    out.sort(null);
    return out;
  }

  private static final String[] NAMES = {"a", "b", "c", "d", "e"};

  /** The query: SELECT every table's v, chain ON, WHERE x >= minX[i] where minX[i] > 0. */
  private static String sql(int n, int[] minX) {
    StringBuilder s = new StringBuilder("SELECT ");
    for (int i = 0; i < n; i++) {
      s.append(i > 0 ? ", " : "").append(NAMES[i]).append(".v AS v").append(i);
    }
    s.append(" FROM a");
    for (int i = 1; i < n; i++) {
      s.append(" JOIN ").append(NAMES[i]).append(" ON ");
      s.append(NAMES[i - 1]).append(".k = ").append(NAMES[i]).append(".k");
    }
    List<String> where = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (minX[i] > 0) {
        where.add(NAMES[i] + ".x >= " + minX[i]);
      }
    }
    if (!where.isEmpty()) {
      s.append(" WHERE ").append(String.join(" AND ", where));
    }
    return s.toString();
  }

  private void joinAndCheck(int[] sizes, double common, double dup, int[] minX) throws Exception {
    int n = sizes.length;
    Tables t = generate(sizes, common, dup, 31L * n + sizes[0]);
    List<LocalGroupJoin.Table> tables = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      tables.add(new LocalGroupJoin.Table(NAMES[i], t.paths().get(i).toString()));
    }
    Map<String, String> opts = new HashMap<>();
    opts.put("sql", sql(n, minX));
    opts.put("out", dir.resolve("out").toString());
    opts.put("bins", "3");
    opts.put("parallelism", "2");
    opts.put("party-heap", "384m");
    opts.put("sigma", "20");
    opts.put("insecure-test-only", "true");
    opts.put("work", dir.resolve("work").toString());
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    LocalGroupJoin.Result r;
    try (PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      r = LocalGroupJoin.run(tables, opts, ps);
    } catch (Exception e) {
      System.err.println(log.toString(StandardCharsets.UTF_8));
      throw e;
    }
    List<String> fields = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      fields.add("v" + i);
    }
    List<String> expected = expected(t, minX);
    List<String> actual = JoinFixture.readAvro(dir.resolve("out"), fields);
    assertEquals(expected.size(), actual.size(), "joined row count");
    assertEquals(expected, actual);
    assertEquals(n, r.summaries().size());
    assertTrue(
        r.summaries().get(0).contains("\"rows_out\":" + expected.size()), r.summaries().get(0));
  }

  @ParameterizedTest(name = "{0} parties, common {1}")
  @CsvSource({"3, 0.5", "4, 0.01"})
  void groupJoinEqualsPlaintextJoin(int n, double common) throws Exception {
    int[] sizes = new int[n];
    int[] minX = new int[n];
    for (int i = 0; i < n; i++) {
      sizes[i] = 300 + 150 * i; // unequal sizes
      minX[i] = i % 2 == 0 ? 10 * (i + 1) : 0; // WHERE on several parties
    }
    joinAndCheck(sizes, common, 0.2, minX);
  }

  /** More shapes: five parties, no common key, every key common. Minutes: ./psi test --large. */
  @ParameterizedTest(name = "{0} parties, common {1}")
  @CsvSource({"5, 0.5", "3, 0.0", "3, 1.0"})
  @EnabledIfSystemProperty(named = "psi.large", matches = "true")
  void moreShapes(int n, double common) throws Exception {
    int[] sizes = new int[n];
    for (int i = 0; i < n; i++) {
      sizes[i] = 400;
    }
    joinAndCheck(sizes, common, 0.1, new int[n]);
  }

  /** A table the query does not name is refused before anything starts. */
  @Test
  void tablesMustMatchTheQuery() throws Exception {
    Tables t = generate(new int[] {10, 10, 10}, 0.5, 0, 1);
    List<LocalGroupJoin.Table> tables =
        List.of(
            new LocalGroupJoin.Table("a", t.paths().get(0).toString()),
            new LocalGroupJoin.Table("b", t.paths().get(1).toString()),
            new LocalGroupJoin.Table("z", t.paths().get(2).toString()));
    Map<String, String> opts = new HashMap<>();
    opts.put("sql", sql(3, new int[3]));
    opts.put("out", dir.resolve("out").toString());
    LocalJoin.InvalidJoinException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            LocalJoin.InvalidJoinException.class,
            () -> LocalGroupJoin.run(tables, opts, System.err));
    assertTrue(e.getMessage().contains("[a, b, c]"), e.getMessage());
    assertTrue(e.getMessage().contains("[a, b, z]"), e.getMessage());
  }

  /** An output directory that is not empty is refused before anything starts. */
  @Test
  void anOutputThatIsNotEmptyIsRefused() throws Exception {
    Tables t = generate(new int[] {10, 10, 10}, 0.5, 0, 1);
    List<LocalGroupJoin.Table> tables = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      tables.add(new LocalGroupJoin.Table(NAMES[i], t.paths().get(i).toString()));
    }
    Path out = Files.createDirectories(dir.resolve("out"));
    Files.writeString(out.resolve("earlier.csv"), "1\n");
    Map<String, String> opts = new HashMap<>();
    opts.put("sql", sql(3, new int[3]));
    opts.put("out", out.toString());
    LocalJoin.InvalidJoinException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            LocalJoin.InvalidJoinException.class,
            () -> LocalGroupJoin.run(tables, opts, System.err));
    assertTrue(
        e.getMessage().contains("'" + out + "' already exists and is not empty"), e.getMessage());
    try (var files = Files.list(out)) {
      assertEquals(List.of(out.resolve("earlier.csv")), files.toList());
    }
  }

  /**
   * A party or the provider that vanishes fails the join at every party with an error naming what
   * is missing, within the timeouts: never a hang.
   */
  @ParameterizedTest(name = "{0} vanishes")
  @CsvSource({"P3", "provider"})
  void aVanishingRoleFailsTheJoinWithinTheTimeouts(String who) throws Exception {
    Tables t = generate(new int[] {200, 200, 200}, 0.5, 0, 3);
    List<LocalGroupJoin.Table> tables = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      tables.add(new LocalGroupJoin.Table(NAMES[i], t.paths().get(i).toString()));
    }
    Map<String, String> opts = new HashMap<>();
    opts.put("sql", sql(3, new int[3]));
    opts.put("out", dir.resolve("out").toString());
    opts.put("party-heap", "384m");
    opts.put("sigma", "20");
    opts.put("insecure-test-only", "true");
    opts.put("pair-timeout", "5");
    opts.put("idle-timeout", "5");
    opts.put("attempts", "1");
    opts.put("work", dir.resolve("work").toString());
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    long start = System.nanoTime();
    java.io.IOException e;
    try (PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      // the provider once it listens and the parties start; a party as soon as it starts
      LocalJoin.Hooks kill =
          new LocalJoin.Hooks() {
            private Process provider;

            @Override
            public void started(io.psiflink.api.Role role, Process process) {
              if (role.equals(io.psiflink.api.Role.PROVIDER)) {
                provider = process;
              } else if (who.equals("provider") && role.index() == 0) {
                provider.destroyForcibly();
              } else if (role.label().equals(who)) {
                process.destroyForcibly();
              }
            }
          };
      e =
          org.junit.jupiter.api.Assertions.assertThrows(
              java.io.IOException.class, () -> LocalGroupJoin.run(tables, opts, ps, kill));
      assertTrue(e.getMessage().contains("the join failed"), e.getMessage());
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    String text = log.toString(StandardCharsets.UTF_8);
    // P1 says why in one line: the missing party's stream, or the provider not on the relay
    String why =
        who.equals("provider") ? "'provider' is not connected to the relay" : "group-control-P3";
    assertTrue(
        text.lines().anyMatch(l -> l.startsWith("[P1] psi party P1 failed") && l.contains(why)),
        text);
    // and so does the run's error, the line a user reads
    assertTrue(e.getMessage().contains("; party P1 failed: "), e.getMessage());
    assertTrue(e.getMessage().contains(why), e.getMessage());
    assertTrue(seconds < 120, "failed after " + seconds + " s");
    assertTrue(!Files.exists(dir.resolve("out")), "no output after a failed join");
  }
}
