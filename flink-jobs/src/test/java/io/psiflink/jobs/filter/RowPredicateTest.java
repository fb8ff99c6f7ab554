package io.psiflink.jobs.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import io.psiflink.connectors.FlinkTypes;
import io.psiflink.query.JoinQuery;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;

/**
 * {@link RowPredicate} against its oracle, Flink's SQL planner: a few hundred random predicates of
 * the compiled forms (and the forms next to them, which must be left to the planner) over rows of
 * edge values (NULLs, infinities, the ends of INT and BIGINT, 2^53 + 1, strings with trailing
 * blanks, accents and code points above U+FFFF), each row's result compared with the rows Flink's
 * {@code SELECT ... WHERE} keeps, in one batch job.
 */
class RowPredicateTest {
  static final TableSchema S =
      new TableSchema(
          List.of(
              new Column("id", ColumnType.BIGINT, false),
              new Column("i", ColumnType.INT, true),
              new Column("l", ColumnType.BIGINT, true),
              new Column("d", ColumnType.DOUBLE, true),
              new Column("e", ColumnType.DOUBLE, true),
              new Column("s", ColumnType.STRING, true),
              new Column("t", ColumnType.STRING, true),
              new Column("b", ColumnType.BOOLEAN, true),
              new Column("f", ColumnType.FLOAT, true),
              new Column("raw", ColumnType.BYTES, true),
              new Column("home city", ColumnType.STRING, true)));

  static final Integer[] INTS = {null, 0, -1, 1, 5, 100, -7, Integer.MIN_VALUE, Integer.MAX_VALUE};
  static final Long[] LONGS = {
    null, 0L, 5L, 100L, -7L, Long.MIN_VALUE, Long.MAX_VALUE, 9007199254740993L, 2147483648L
  };

  /** Not NaN and -0.0, on which Flink's planner has no one rule ({@link #nanAndNegativeZero}). */
  static final Double[] DOUBLES = {
    null,
    0.0,
    Double.POSITIVE_INFINITY,
    Double.NEGATIVE_INFINITY,
    100.0,
    100.5,
    -2.5,
    0.1,
    1e300,
    5.0
  };

  static final String[] STRINGS = {
    null, "", "DE", "DE ", "de", "FR", "é", "e\u0301", "\uD83D\uDE00", "\uFFFD", "Z", "a'b", " DE"
  };
  static final Boolean[] BOOLEANS = {null, true, false};

  static List<Row> rows() {
    Random rnd = new Random(11);
    List<Row> out = new ArrayList<>();
    for (int id = 0; id < 240; id++) {
      out.add(
          Row.of(
              (long) id,
              pick(rnd, INTS),
              pick(rnd, LONGS),
              pick(rnd, DOUBLES),
              pick(rnd, DOUBLES),
              pick(rnd, STRINGS),
              pick(rnd, STRINGS),
              pick(rnd, BOOLEANS),
              rnd.nextBoolean() ? null : rnd.nextFloat(),
              rnd.nextBoolean() ? null : new byte[] {(byte) id},
              pick(rnd, STRINGS)));
    }
    return out;
  }

  static <T> T pick(Random rnd, T[] values) {
    return values[rnd.nextInt(values.length)];
  }

  static final String[] INT_LITERALS = {
    "0",
    "-1",
    "5",
    "100",
    "100.5",
    "-7",
    "2147483648",
    "9223372036854775807",
    "-9223372036854775807",
    "999999999999.5",
    "1e2",
    "-0.5",
    "9007199254740993",
    "5.0",
    "2.5e0",
    "-2147483648"
  };

  /**
   * IN lists of an integer column hold exact literals (approximate ones are left to the planner).
   */
  static final String[] EXACT_LITERALS =
      Arrays.stream(INT_LITERALS).filter(l -> !l.contains("e")).toArray(String[]::new);

  static final String[] DOUBLE_LITERALS = {
    "0", "-0.0", "100", "100.5", "1e300", "-2.5", "0.1", "1e2", "5", "-1", "0.0e0"
  };
  static final String[] STRING_LITERALS = {
    "''",
    "'DE'",
    "'DE '",
    "'de'",
    "'FR'",
    "'é'",
    "'\uD83D\uDE00'",
    "'Z'",
    "'a''b'",
    "'\uFFFD'",
    "'FRA'"
  };
  static final String[] OPS = {"=", "<>", "<", "<=", ">", ">="};
  static final String[] COLUMNS = {"i", "l", "d", "e", "s", "t", "b", "home city"};

  /** Random predicates of the forms {@link RowPredicate} compiles. */
  static final class Generator {
    final Random rnd = new Random(2026);

    String predicate(int depth) {
      if (depth == 0 || rnd.nextInt(3) == 0) {
        return atom();
      }
      return switch (rnd.nextInt(3)) {
        case 0 -> "(" + predicate(depth - 1) + ") AND (" + predicate(depth - 1) + ")";
        case 1 -> "(" + predicate(depth - 1) + ") OR (" + predicate(depth - 1) + ")";
        default -> "NOT (" + predicate(depth - 1) + ")";
      };
    }

    String atom() {
      return switch (rnd.nextInt(14)) {
        case 0, 1 -> col(rnd.nextBoolean() ? "i" : "l") + " " + op() + " " + lit(INT_LITERALS);
        case 2, 3 -> col(rnd.nextBoolean() ? "d" : "e") + " " + op() + " " + lit(DOUBLE_LITERALS);
        case 4 ->
            col(rnd.nextBoolean() ? "s" : "home city") + " " + op() + " " + lit(STRING_LITERALS);
        case 5 -> lit(INT_LITERALS) + " " + op() + " " + col("i");
        case 6 ->
            switch (rnd.nextInt(4)) {
              case 0 -> "`i` " + op() + " `l`";
              case 1 -> "`d` " + op() + " `e`";
              case 2 -> "`s` " + op() + " `t`";
              default -> "`b` " + (rnd.nextBoolean() ? "=" : "<>") + " `b`";
            };
        case 7 -> col(rnd.nextBoolean() ? "i" : "l") + not() + " IN (" + list(EXACT_LITERALS) + ")";
        case 8 ->
            col(rnd.nextBoolean() ? "s" : "t") + not() + " IN (" + list(STRING_LITERALS) + ")";
        case 9 ->
            switch (rnd.nextInt(3)) {
              case 0 ->
                  col("l") + not() + " BETWEEN " + lit(INT_LITERALS) + " AND " + lit(INT_LITERALS);
              case 1 ->
                  col("d")
                      + not()
                      + " BETWEEN "
                      + lit(DOUBLE_LITERALS)
                      + " AND "
                      + lit(DOUBLE_LITERALS);
              default ->
                  col("s")
                      + not()
                      + " BETWEEN "
                      + lit(STRING_LITERALS)
                      + " AND "
                      + lit(STRING_LITERALS);
            };
        case 10 -> col(COLUMNS[rnd.nextInt(COLUMNS.length)]) + " IS" + not() + " NULL";
        case 11 -> "`b` IS" + not() + (rnd.nextBoolean() ? " TRUE" : " FALSE");
        case 12 -> rnd.nextBoolean() ? "`b`" : "`b` = " + (rnd.nextBoolean() ? "TRUE" : "FALSE");
        default -> rnd.nextInt(5) == 0 ? (rnd.nextBoolean() ? "TRUE" : "FALSE") : "`b` <> FALSE";
      };
    }

    String col(String name) {
      return "`" + name + "`";
    }

    String op() {
      return OPS[rnd.nextInt(OPS.length)];
    }

    String not() {
      return rnd.nextInt(3) == 0 ? " NOT" : "";
    }

    String lit(String[] pool) {
      return pool[rnd.nextInt(pool.length)];
    }

    String list(String[] pool) {
      List<String> items = new ArrayList<>();
      for (int n = 1 + rnd.nextInt(4); n > 0; n--) {
        items.add(lit(pool));
      }
      return String.join(", ", items);
    }
  }

  /** Hand-picked cases on top of the random ones: the traps named in the class comment. */
  static final List<String> CHOSEN =
      List.of(
          "NOT (`d` > 5)",
          "NOT (`d` = 0)",
          "`d` <> 0 AND `d` <> 5",
          "`d` = 0 OR `d` = 5",
          "`d` > 1 AND `d` < 200",
          "NOT (`d` >= 1 AND `d` < 200)",
          "`d` >= 0 AND `d` <= 0",
          "NOT (`d` BETWEEN -1 AND 1)",
          "`l` > 9007199254740992",
          "`l` = -9223372036854775808 OR `l` < -9223372036854775807",
          "`l` = 9007199254740993",
          "`l` = 9.007199254740993e15",
          "`i` NOT IN (0, 1) AND `i` > -10",
          "`s` = 'DE' OR `s` = 'FRA'",
          "`s` IN ('DE', 'FRA')",
          "`s` NOT IN ('DE', 'FRA', '')",
          "`s` > '\uFFFD'",
          "`l` IN (2147483648, -9223372036854775807, 5.0)",
          "`s` = `t` OR `s` <> `home city`",
          "`s` < '\uD83D\uDE00' AND `s` > 'Z'",
          "NOT (`b`) OR `b` IS NULL",
          "`b` IS NOT TRUE AND `i` IS NOT NULL",
          "NOT (`s` IN ('DE') OR `l` IN (5, 100))",
          "`home city` <> ' DE'");

  @Test
  void compiledPredicatesAgreeWithFlinksPlanner() throws Exception {
    List<Row> input = rows();
    List<String> predicates = new ArrayList<>(CHOSEN);
    Generator g = new Generator();
    for (int k = 0; k < 260; k++) {
      predicates.add(g.predicate(3));
    }
    // the generator also writes forms next to the compiled ones (an INT's IN list with 2147483648,
    // ranges between two STRING columns), which must be left to the planner
    List<RowPredicate> compiled = new ArrayList<>();
    for (String p : predicates) {
      compiled.add(RowPredicate.compile(S, p).orElse(null));
    }
    for (int k = 0; k < CHOSEN.size(); k++) {
      assertTrue(compiled.get(k) != null, "not compiled: " + CHOSEN.get(k));
    }
    long compiledCount = compiled.stream().filter(c -> c != null).count();
    assertTrue(compiledCount > predicates.size() / 2, "compiled: " + compiledCount);

    // each predicate's filter is an exchange of the batch job, with network buffers of its own
    Configuration conf = new Configuration();
    conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.ofMebiBytes(512));
    conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.ofMebiBytes(512));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.setParallelism(1);
    StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
    DataStream<Row> source = env.fromData(input, FlinkTypes.rowType(S));
    tEnv.createTemporaryView("t", tEnv.fromDataStream(source));
    // one statement per 30 predicates: each a branch of a UNION ALL, tagged with its number
    DataStream<Row> kept = null;
    for (int from = 0; from < predicates.size(); from += 30) {
      List<String> branches = new ArrayList<>();
      for (int k = from; k < Math.min(from + 30, predicates.size()); k++) {
        branches.add("SELECT " + k + " AS k, `id` FROM `t` WHERE " + predicates.get(k));
      }
      DataStream<Row> part = tEnv.toDataStream(tEnv.sqlQuery(String.join(" UNION ALL ", branches)));
      kept = kept == null ? part : kept.union(part);
    }
    Map<Integer, TreeSet<Long>> planner = new TreeMap<>();
    try (CloseableIterator<Row> it = kept.executeAndCollect("row-predicate-test")) {
      it.forEachRemaining(
          r ->
              planner
                  .computeIfAbsent((Integer) r.getField(0), k -> new TreeSet<>())
                  .add((Long) r.getField(1)));
    }

    int someKept = 0;
    List<String> disagreements = new ArrayList<>();
    for (int k = 0; k < predicates.size(); k++) {
      if (compiled.get(k) == null) {
        continue;
      }
      TreeSet<Long> expected = planner.getOrDefault(k, new TreeSet<>());
      TreeSet<Long> actual = new TreeSet<>();
      for (Row r : input) {
        if (compiled.get(k).filter(r)) {
          actual.add((Long) r.getField(0));
        }
      }
      if (!expected.equals(actual)) {
        TreeSet<Long> onlyPlanner = new TreeSet<>(expected);
        onlyPlanner.removeAll(actual);
        TreeSet<Long> onlyOurs = new TreeSet<>(actual);
        onlyOurs.removeAll(expected);
        disagreements.add(
            predicates.get(k)
                + "\n    kept by the planner only: "
                + describe(input, onlyPlanner)
                + "\n    kept by RowPredicate only: "
                + describe(input, onlyOurs));
      }
      if (!expected.isEmpty() && expected.size() < input.size()) {
        someKept++;
      }
    }
    assertTrue(disagreements.isEmpty(), String.join("\n", disagreements));
    // the oracle is not trivial: most predicates keep some rows but not all
    assertTrue(someKept > compiledCount / 2, "predicates that keep some rows: " + someKept);
  }

  static String describe(List<Row> input, TreeSet<Long> ids) {
    List<String> out = new ArrayList<>();
    for (Long id : ids) {
      if (out.size() == 3) {
        out.add("... (" + ids.size() + ")");
        break;
      }
      out.add(input.get(id.intValue()).toString());
    }
    return out.toString();
  }

  /** DOUBLE's NaN and -0.0, against PostgreSQL's rule (see the class comment of RowPredicate). */
  @Test
  void nanAndNegativeZero() {
    TableSchema schema =
        new TableSchema(
            List.of(
                new Column("d", ColumnType.DOUBLE, true),
                new Column("e", ColumnType.DOUBLE, true)));
    double nan = Double.NaN;
    Object[][] cases = {
      // predicate, d, e, expected
      {"`d` = 0", -0.0, null, true},
      {"`d` < 0", -0.0, null, false},
      {"`d` >= -0.0", 0.0, null, true},
      {"`d` = `e`", -0.0, 0.0, true},
      {"`d` > 1e300", nan, null, true},
      {"`d` > -2.5", nan, null, true},
      {"`d` < 5", nan, null, false},
      {"NOT (`d` < 5)", nan, null, true},
      {"`d` = `e`", nan, nan, true},
      {"`d` > `e`", nan, Double.POSITIVE_INFINITY, true},
      {"`d` <> `e`", nan, 1.0, true},
      {"`d` BETWEEN 0 AND 1e308", nan, null, false},
      {"`d` NOT BETWEEN 0 AND 1e308", nan, null, true},
      {"`d` <> 0", nan, null, true},
    };
    for (Object[] c : cases) {
      RowPredicate p = RowPredicate.compile(schema, (String) c[0]).orElseThrow();
      assertEquals(c[3], p.test(Row.of(c[1], c[2])), c[0] + " on " + c[1] + ", " + c[2]);
    }
  }

  @Test
  void otherFormsAreLeftToThePlanner() {
    for (String p :
        List.of(
            "`s` LIKE 'D%'",
            "UPPER(`s`) = 'DE'",
            "`i` + 1 > 5",
            "CAST(`s` AS INT) = 5",
            "`f` > 0.5",
            "`raw` = `raw`",
            "`i` = '5'",
            "`s` = 5",
            "`d` IN (0, 5)",
            "`i` IN (1e2, 5)",
            "`i` IN (5, 100.5)",
            "`i` IN (5, 2147483648)",
            "`i` NOT IN (-1, 9223372036854775807)",
            "`s` < `t`",
            "`s` = 'DE '",
            "`s` IN ('FR', 'DE ')",
            "`b` IN (TRUE)",
            "`i` = NULL",
            "`i` IS DISTINCT FROM 5",
            "`s` IS NOT NULL AND `s` LIKE '%x'",
            "`i` = `d`",
            "`no such column` > 1",
            "`s`",
            "`d` BETWEEN SYMMETRIC 5 AND 1",
            "`i` = 1e400",
            "`i` = 99999999999999999999",
            "`i` = 99999999999999999999.0",
            "`i` = 123456789012345678901234567890123456789",
            "(`d` > 5) IS TRUE",
            "CURRENT_DATE > DATE '2000-01-01'",
            "`i` >")) {
      assertFalse(RowPredicate.compile(S, p).isPresent(), p);
    }
  }

  @Test
  void theWhereOfAParsedQueryIsCompiled() throws Exception {
    TableSchema schema =
        new TableSchema(
            List.of(
                new Column("id", ColumnType.BIGINT, false),
                new Column("spend", ColumnType.DOUBLE, true),
                new Column("country", ColumnType.STRING, true),
                new Column("home city", ColumnType.STRING, true)));
    String where =
        JoinQuery.parse(
                "SELECT a.id FROM a JOIN b ON a.id = b.id WHERE a.spend > 100"
                    + " AND a.country IN ('DE', 'FR') AND a.`home city` <> 'Köln' AND b.v = 1")
            .view(Role.A, schema)
            .wherePredicate();
    RowPredicate p =
        RowPredicate.compile(schema, where).orElseThrow(() -> new AssertionError(where));
    assertEquals(true, p.filter(Row.of(1L, 100.5, "DE", "Bonn")));
    assertEquals(false, p.filter(Row.of(2L, 100.0, "DE", "Bonn")));
    assertEquals(false, p.filter(Row.of(3L, 200.0, "NL", "Bonn")));
    assertEquals(false, p.filter(Row.of(4L, 200.0, "FR", "Köln")));
    assertEquals(null, p.test(Row.of(5L, null, "FR", "Bonn")));
    assertEquals(false, p.test(Row.of(6L, null, "NL", "Bonn")));
  }
}
