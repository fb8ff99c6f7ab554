package io.psiflink.jobs.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import io.psiflink.connectors.FlinkTypes;
import io.psiflink.query.JoinQuery;
import io.psiflink.query.QueryException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Predicate;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs WHERE predicates, parsed from join queries, through {@link WhereFilter} (by {@link
 * RowPredicate} or Flink's SQL engine, as their form decides) on a MiniCluster in BATCH mode (the
 * local environment starts one for the job), and compares the surviving rows with the same
 * predicate evaluated in plain Java.
 */
class WhereFilterTest {
  static final TableSchema A =
      new TableSchema(
          List.of(
              new Column("id", ColumnType.BIGINT, false),
              new Column("n", ColumnType.INT, true),
              new Column("x", ColumnType.DOUBLE, true),
              new Column("s", ColumnType.STRING, true),
              new Column("flag", ColumnType.BOOLEAN, true),
              new Column("home city", ColumnType.STRING, true),
              new Column("raw", ColumnType.BYTES, true)));

  static final String[] WORDS = {"alpha", "beta", "gamma", "delta", "it's", "Müller", " pad ", ""};
  static final String[] CITIES = {"Hamburg", "Berlin", "Augsburg", "Köln"};

  static List<Row> rows(int count) {
    Random rnd = new Random(42);
    List<Row> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(
          Row.of(
              (long) i,
              rnd.nextInt(8) == 0 ? null : rnd.nextInt(120) - 10,
              rnd.nextInt(8) == 0 ? null : Math.round(rnd.nextDouble() * 400) / 10.0,
              rnd.nextInt(6) == 0 ? null : WORDS[rnd.nextInt(WORDS.length)],
              rnd.nextInt(5) == 0 ? null : rnd.nextBoolean(),
              rnd.nextInt(7) == 0 ? null : CITIES[rnd.nextInt(CITIES.length)],
              rnd.nextInt(4) == 0 ? null : new byte[] {(byte) i, (byte) (i >> 8)}));
    }
    return out;
  }

  static Integer n(Row r) {
    return (Integer) r.getField(1);
  }

  static Double x(Row r) {
    return (Double) r.getField(2);
  }

  static String s(Row r) {
    return (String) r.getField(3);
  }

  static Boolean flag(Row r) {
    return (Boolean) r.getField(4);
  }

  static String city(Row r) {
    return (String) r.getField(5);
  }

  /** WHERE clause of a query on a (with an unrelated condition on b) -> the same test in Java. */
  static Map<String, Predicate<Row>> cases() {
    Map<String, Predicate<Row>> m = new LinkedHashMap<>();
    m.put("a.n > 50", r -> n(r) != null && n(r) > 50);
    m.put("a.x BETWEEN 10 AND 20.5", r -> x(r) != null && x(r) >= 10 && x(r) <= 20.5);
    m.put(
        "a.s IN ('alpha', 'it''s', 'Müller')",
        r -> s(r) != null && List.of("alpha", "it's", "Müller").contains(s(r)));
    m.put(
        "a.`home city` LIKE '%burg' AND a.s NOT LIKE '_e%'",
        r ->
            city(r) != null
                && city(r).endsWith("burg")
                && s(r) != null
                && !(s(r).length() >= 2 && s(r).charAt(1) == 'e'));
    m.put(
        "(a.n < 0 OR a.s = 'gamma') AND a.flag IS NOT TRUE",
        r -> ((n(r) != null && n(r) < 0) || "gamma".equals(s(r))) && !Boolean.TRUE.equals(flag(r)));
    m.put(
        "a.n IS NULL OR (MOD(a.id, 3) = 0 AND a.n % 4 = 1)",
        r -> n(r) == null || ((long) r.getField(0) % 3 == 0 && n(r) % 4 == 1));
    m.put(
        "NOT (a.n * 2 + 1 > 100 OR a.x - a.n < 0)",
        r -> n(r) != null && x(r) != null && !(n(r) * 2 + 1 > 100 || x(r) - n(r) < 0));
    m.put(
        "UPPER(a.s) = 'BETA' OR CHAR_LENGTH(TRIM(a.s)) = 3"
            + " OR SUBSTRING(a.s FROM 2 FOR 2) = 'el' OR SPLIT_INDEX(a.`home city`, 'u', 0) = 'A'",
        r ->
            (s(r) != null
                    && (s(r).toUpperCase().equals("BETA")
                        || s(r).strip().length() == 3
                        || (s(r).length() >= 3 && s(r).substring(1, 3).equals("el"))))
                || "Augsburg".equals(city(r)));
    m.put(
        "CAST(a.x AS INT) = 15 OR CAST(a.n AS STRING) = '42'"
            + " OR (a.flag AND (a.n > 90 OR CURRENT_DATE < DATE '2000-01-01'))",
        r ->
            (x(r) != null && (int) x(r).doubleValue() == 15)
                || (n(r) != null && n(r) == 42)
                || (Boolean.TRUE.equals(flag(r)) && n(r) != null && n(r) > 90));
    m.put(
        "a.s <> 'it''s' AND a.s > 'b' AND a.raw IS NOT NULL",
        r ->
            s(r) != null
                && !s(r).equals("it's")
                && s(r).compareTo("b") > 0
                && r.getField(6) != null);
    return m;
  }

  /** One environment for the class: creating a table environment takes seconds. */
  static StreamExecutionEnvironment env;

  static StreamTableEnvironment tEnv;

  @BeforeAll
  static void environment() {
    env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.setParallelism(1);
    tEnv = StreamTableEnvironment.create(env);
  }

  @Test
  void predicatesFilterLikeTheJavaOracle() throws Exception {
    List<Row> input = rows(400);
    DataStream<Row> source = env.fromData(input, FlinkTypes.rowType(A));

    Map<String, Predicate<Row>> cases = cases();
    Map<String, String> flinkText = new LinkedHashMap<>();
    Map<String, CloseableIterator<Row>> results = new LinkedHashMap<>();
    for (String where : cases.keySet()) {
      JoinQuery q =
          JoinQuery.parse(
              "SELECT a.id, b.v FROM a JOIN b ON a.id = b.id WHERE ("
                  + where
                  + ") AND b.country = 'DE'");
      String predicate = q.view(Role.A, A).wherePredicate();
      flinkText.put(where, predicate);
      DataStream<Row> filtered = WhereFilter.apply(() -> tEnv, source, A, predicate);
      assertEquals(FlinkTypes.rowType(A), filtered.getType());
      results.put(where, filtered.collectAsync());
    }
    // Rows whose type names the fields differently (f0, f1, ...) are re-typed to the schema.
    RowTypeInfo otherNames = new RowTypeInfo(FlinkTypes.rowType(A).getFieldTypes());
    DataStream<Row> renamed = source.map(r -> r).returns(otherNames);
    DataStream<Row> renamedFiltered = WhereFilter.apply(() -> tEnv, renamed, A, "`n` > 50");
    assertEquals(FlinkTypes.rowType(A), renamedFiltered.getType());
    CloseableIterator<Row> renamedResult = renamedFiltered.collectAsync();

    env.execute("where-filter-test");
    List<Row> renamedRows = new ArrayList<>();
    try (CloseableIterator<Row> it = renamedResult) {
      it.forEachRemaining(renamedRows::add);
    }
    assertEquals(ids(input.stream().filter(cases.get("a.n > 50")).toList()), ids(renamedRows));

    for (Map.Entry<String, Predicate<Row>> c : cases.entrySet()) {
      List<Row> actual = new ArrayList<>();
      try (CloseableIterator<Row> it = results.get(c.getKey())) {
        it.forEachRemaining(actual::add);
      }
      List<Row> expected = input.stream().filter(c.getValue()).toList();
      String what = c.getKey() + "  ->  " + flinkText.get(c.getKey());
      assertTrue(
          !expected.isEmpty() && expected.size() < input.size(),
          "the oracle should keep some but not all rows: " + what);
      for (Row r : actual) {
        assertEquals(RowKind.INSERT, r.getKind(), what);
        assertEquals(A.size(), r.getArity(), what);
        assertEquals(null, r.getFieldNames(false), "positional rows expected: " + what);
      }
      assertEquals(ids(expected), ids(actual), what);
      Map<Long, Row> byId = new LinkedHashMap<>();
      expected.forEach(r -> byId.put((Long) r.getField(0), r));
      for (Row r : actual) {
        assertTrue(sameValues(byId.get((Long) r.getField(0)), r), what + ": " + r);
      }
    }
  }

  static List<Long> ids(List<Row> rows) {
    return rows.stream().map(r -> (Long) r.getField(0)).sorted().toList();
  }

  static boolean sameValues(Row expected, Row actual) {
    for (int i = 0; i < expected.getArity(); i++) {
      Object e = expected.getField(i);
      Object a = actual.getField(i);
      boolean same =
          e instanceof byte[] eb && a instanceof byte[] ab
              ? Arrays.equals(eb, ab)
              : java.util.Objects.equals(e, a);
      if (!same || (e != null && a != null && e.getClass() != a.getClass())) {
        return false;
      }
    }
    return true;
  }

  @Test
  void emptyPredicateReturnsTheStreamItself() throws Exception {
    DataStream<Row> source = env.fromData(rows(3), FlinkTypes.rowType(A));
    assertSame(source, WhereFilter.apply(() -> tEnv, source, A, ""));
    assertSame(
        source,
        WhereFilter.apply(
            () -> tEnv,
            source,
            A,
            JoinQuery.parse("SELECT a.id FROM a JOIN b ON a.id = b.id WHERE b.v > 1")
                .view(Role.A, A)
                .wherePredicate()));
  }

  @Test
  void predicatesFlinkCannotValidateFailAtJobBuildTime() throws Exception {
    DataStream<Row> source = env.fromData(rows(3), FlinkTypes.rowType(A));
    for (String[] bad :
        new String[][] {
          {"a.flag + 1 > 2", "+"},
          {"NO_SUCH_FUNCTION(a.s) = 1", "NO_SUCH_FUNCTION"},
          {"a.s", "condition"},
        }) {
      String predicate =
          JoinQuery.parse("SELECT a.id FROM a JOIN b ON a.id = b.id WHERE " + bad[0])
              .view(Role.A, A)
              .wherePredicate();
      QueryException e =
          assertThrows(
              QueryException.class,
              () -> WhereFilter.apply(() -> tEnv, source, A, predicate),
              bad[0]);
      assertEquals("WHERE", e.clause());
      assertTrue(e.getMessage().contains(predicate), e.getMessage());
      assertTrue(e.getMessage().toUpperCase().contains(bad[1].toUpperCase()), e.getMessage());
    }
  }
}
