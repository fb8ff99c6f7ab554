package io.psiflink.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The n-party join query: parsing, the refusals, each party's view and resolution. */
class MultiJoinQueryTest {
  static final TableSchema A = table("k STRING, z INT, spend DOUBLE, email STRING, name STRING");
  static final TableSchema B =
      table("k STRING, z BIGINT, country STRING, email STRING, score FLOAT");
  static final TableSchema C = table("k STRING, z INT, age INT, email STRING");
  static final TableSchema D = table("k STRING, z INT, city STRING");
  static final TableSchema E = table("k STRING, z INT, flag BOOLEAN");
  static final List<TableSchema> SCHEMAS = List.of(A, B, C, D, E);

  static final String STAR =
      "SELECT a.spend, b.country, c.age FROM a JOIN b ON a.k = b.k JOIN c ON a.k = c.k"
          + " WHERE a.spend > 23 AND b.country = 'DE' AND c.age BETWEEN 18 AND 65";

  /** A schema of nullable columns: "name TYPE, ...". */
  static TableSchema table(String columns) {
    return new TableSchema(
        Stream.of(columns.split(", "))
            .map(c -> c.split(" "))
            .map(c -> new Column(c[0], ColumnType.valueOf(c[1]), true))
            .toList());
  }

  /** resolve() succeeds and its views are exactly what each party computes alone. */
  static ResolvedMultiJoin resolve(String sql) throws QueryException {
    MultiJoinQuery q = MultiJoinQuery.parse(sql);
    List<TableSchema> schemas = SCHEMAS.subList(0, q.parties());
    ResolvedMultiJoin r = q.resolve(schemas);
    for (int i = 0; i < q.parties(); i++) {
      assertEquals(q.view(i, schemas.get(i)), r.view(i), "party " + i);
      assertEquals(Role.party(i, q.parties()), r.view(i).side());
      assertEquals(JoinKind.INNER, r.view(i).kind());
      assertEquals(List.of(), r.view(i).notes());
    }
    return r;
  }

  static QueryException parseFails(String sql) {
    return assertThrows(QueryException.class, () -> MultiJoinQuery.parse(sql));
  }

  static QueryException resolveFails(String sql) {
    return assertThrows(QueryException.class, () -> resolve(sql));
  }

  // ---------------------------------------------------------------- parsing and views

  @Test
  void threePartiesStarForm() throws Exception {
    MultiJoinQuery q = MultiJoinQuery.parse(STAR);
    assertEquals(STAR, q.sql());
    assertEquals(3, q.parties());
    assertEquals(List.of("a", "b", "c"), q.tables());
    ResolvedMultiJoin r = resolve(STAR);
    assertEquals(3, r.output().size());
    // each party supplies one output column, keeps its key and filters by its own condition
    List<String> columns = List.of("spend", "country", "age");
    List<String> predicates =
        List.of("`spend` > 23", "`country` = 'DE'", "`age` BETWEEN ASYMMETRIC 18 AND 65");
    for (int i = 0; i < 3; i++) {
      String column = columns.get(i);
      assertEquals(new OutputColumn(Role.party(i, 3), column, column), r.output().get(i));
      assertEquals(
          new PartyView(
              Role.party(i, 3),
              List.of("k"),
              List.of(column),
              predicates.get(i),
              List.of(column),
              List.of("k", column),
              JoinKind.INNER,
              List.of(JoinKey.column("k")),
              List.of()),
          r.view(i));
    }
    assertEquals("P3", r.view(2).side().label());
  }

  @Test
  void chainFormIsTheStarForm() throws Exception {
    String chain = STAR.replace("JOIN c ON a.k = c.k", "JOIN c ON c.k = b.k");
    assertEquals(resolve(STAR).views(), resolve(chain).views());
    assertEquals(
        MultiJoinQuery.parse(STAR).fingerprint(), MultiJoinQuery.parse(chain).fingerprint());
    // both at once, and an equality restated, are the same join
    String both = STAR.replace("JOIN c ON a.k = c.k", "JOIN c ON a.k = c.k AND b.k = c.k");
    assertEquals(resolve(STAR).views(), resolve(both).views());
  }

  @Test
  void fourPartiesCompositeKeyWithAliases() throws Exception {
    String sql =
        "SELECT x.name, w.city, y.score AS s FROM a AS x JOIN b y ON x.k = y.k AND x.z = y.z"
            + " JOIN c ON y.z = c.z AND c.k = y.k JOIN d w ON w.k = c.k AND x.z = w.z"
            + " WHERE w.city <> 'Paris' AND c.email LIKE '%@example.org' AND x.z > 0";
    MultiJoinQuery q = MultiJoinQuery.parse(sql);
    assertEquals(4, q.parties());
    assertEquals(List.of("x", "y", "c", "w"), q.tables());
    ResolvedMultiJoin r = resolve(sql);
    assertEquals(
        List.of(
            new OutputColumn(Role.party(0, 4), "name", "name"),
            new OutputColumn(Role.party(3, 4), "city", "city"),
            new OutputColumn(Role.party(1, 4), "score", "s")),
        r.output());
    // key order is the first ON's (k, z), whatever order a later ON writes them in
    for (int i = 0; i < 4; i++) {
      assertEquals(List.of("k", "z"), r.view(i).keyColumns(), "party " + i);
      assertEquals(List.of(JoinKey.column("k"), JoinKey.column("z")), r.view(i).keys());
    }
    assertEquals("`z` > 0", r.view(0).wherePredicate());
    assertEquals(List.of("k", "z", "name"), r.view(0).neededColumns());
    assertEquals(List.of("score"), r.view(1).revealedColumns());
    assertEquals("", r.view(1).wherePredicate());
    assertEquals(List.of(), r.view(1).filterColumns());
    assertEquals("`email` LIKE '%@example.org'", r.view(2).wherePredicate());
    assertEquals(List.of("email"), r.view(2).filterColumns());
    // a filtered column is not needed after filtering unless it is a key or revealed
    assertEquals(List.of("k", "z"), r.view(2).neededColumns());
    assertEquals("`city` <> 'Paris'", r.view(3).wherePredicate());
    assertEquals(List.of("k", "z", "city"), r.view(3).neededColumns());
  }

  @Test
  void fivePartiesWithSeveralConditionsPerTable() throws Exception {
    String sql =
        "SELECT a.name, e.flag FROM a JOIN b ON a.k = b.k JOIN c ON b.k = c.k JOIN d ON c.k ="
            + " d.k JOIN e ON d.k = e.k WHERE a.spend > 1 AND (b.score < 2.5 OR b.country IS"
            + " NULL) AND d.city IN ('Berlin', 'Köln') AND a.name IS NOT NULL AND e.flag"
            + " AND `spend` <> 7";
    ResolvedMultiJoin r =
        MultiJoinQuery.parse(sql).resolve(List.of(A, B, C, D, table("k STRING, flag BOOLEAN")));
    assertEquals(
        List.of(
            "(`spend` > 1) AND (`name` IS NOT NULL) AND (`spend` <> 7)",
            "`score` < 2.5 OR `country` IS NULL",
            "",
            "`city` IN ('Berlin', 'Köln')",
            "`flag`"),
        Stream.of(0, 1, 2, 3, 4).map(i -> r.view(i).wherePredicate()).toList());
    assertEquals(List.of("spend", "name"), r.view(0).filterColumns());
    assertEquals(List.of("score", "country"), r.view(1).filterColumns());
    assertEquals(List.of("k", "flag"), r.view(4).neededColumns());
    assertEquals(Role.party(4, 5), r.output().get(1).side());
    assertEquals("P5", r.output().get(1).side().label());
  }

  @Test
  void starsExpandInTableOrderWithUniqueNames() throws Exception {
    ResolvedMultiJoin r =
        resolve("SELECT * FROM a JOIN b ON a.k = b.k JOIN c ON a.k = c.k WHERE c.age > 3");
    assertEquals(
        List.of(
            "k", "z", "spend", "email", "name", "b_k", "b_z", "country", "b_email", "score", "c_k",
            "c_z", "age", "c_email"),
        r.output().stream().map(OutputColumn::outputName).toList());
    assertEquals(Role.party(2, 3), r.output().get(13).side());
    assertEquals("email", r.output().get(13).column());
    assertEquals(List.of("k", "z", "age", "email"), r.view(2).revealedColumns());
    assertEquals(C.names(), r.view(2).neededColumns());

    r = resolve("SELECT c.*, a.spend FROM a JOIN b ON a.k = b.k JOIN c ON a.k = c.k");
    assertEquals(
        List.of("k", "z", "age", "email", "spend"),
        r.output().stream().map(OutputColumn::outputName).toList());
    assertEquals(List.of(), r.view(1).revealedColumns());
    assertEquals(List.of("k"), r.view(1).neededColumns());
  }

  @Test
  void keyExpressions() throws Exception {
    ResolvedMultiJoin r =
        resolve(
            "SELECT a.name FROM a JOIN b ON a.name || '@' || a.email = LOWER(b.email)"
                + " JOIN c ON LOWER(b.email) = c.email");
    String concat = "`name` || '@' || `email`";
    assertEquals(
        List.of(new JoinKey(concat, concat, List.of("name", "email"), false)), r.view(0).keys());
    assertEquals(List.of("name", "email"), r.view(0).keyColumns());
    assertEquals(
        List.of(new JoinKey("LOWER(`email`)", "LOWER(`email`)", List.of("email"), false)),
        r.view(1).keys());
    assertEquals(List.of(JoinKey.column("email")), r.view(2).keys());
    assertTrue(r.view(1).computedKeys());
    assertEquals(List.of("email", "name"), r.view(0).neededColumns());
    assertEquals(List.of("name"), r.view(0).revealedColumns());
  }

  @Test
  void viewNeedsOnlyTheOwnSchema() throws Exception {
    MultiJoinQuery q =
        MultiJoinQuery.parse(
            "SELECT name, country, age FROM a JOIN b ON a.k = b.k JOIN c ON a.k = c.k"
                + " WHERE age > 18 AND spend > 2");
    PartyView c = q.view(2, C);
    assertEquals(List.of("age"), c.revealedColumns());
    assertEquals("`age` > 18", c.wherePredicate());
    assertEquals(List.of("k", "age"), c.neededColumns());
    assertEquals(List.of("name"), q.view(0, A).revealedColumns());
    assertEquals("`spend` > 2", q.view(0, A).wherePredicate());
    assertEquals(List.of("country"), q.view(1, B).revealedColumns());
    assertThrows(IndexOutOfBoundsException.class, () -> q.view(3, C));
    assertThrows(IllegalArgumentException.class, () -> q.resolve(List.of(A, B)));
  }

  @Test
  void serializable() throws Exception {
    MultiJoinQuery q = MultiJoinQuery.parse(STAR);
    ResolvedMultiJoin r = q.resolve(List.of(A, B, C));
    ResolvedMultiJoin back = RoleSerializationTest.roundTrip(r);
    assertEquals(r, back);
    assertEquals(q.fingerprint(), back.query().fingerprint());
    assertEquals(r, back.query().resolve(List.of(A, B, C)));
  }

  // ---------------------------------------------------------------- fingerprint

  @Test
  void fingerprintIgnoresWhitespaceCaseCommentsAndAliases() throws Exception {
    String fp = MultiJoinQuery.parse(STAR).fingerprint();
    assertTrue(fp.matches("[0-9a-f]{64}"));
    for (String same :
        List.of(
            STAR.replace(" ", "\n  "),
            STAR.replace("SELECT", "select")
                .replace("JOIN", "inner join")
                .replace("WHERE", "where"),
            STAR.replace("FROM a", "-- the parties\nFROM a /* P1 */"),
            "SELECT x.spend, b.country, c.age FROM a x JOIN b ON x.k = b.k JOIN c ON c.k = x.k"
                + " WHERE (x.spend > 23) AND b.country = 'DE' AND c.age BETWEEN 18 AND 65")) {
      assertEquals(fp, MultiJoinQuery.parse(same).fingerprint(), same);
    }
  }

  @Test
  void fingerprintChangesWithMeaning() throws Exception {
    List<String> queries =
        List.of(
            STAR,
            STAR.replace("a.spend,", "a.name,"),
            STAR.replace("c.age FROM", "c.age AS years FROM"),
            STAR.replace("> 23", "> 24"),
            STAR.replace("'DE'", "'de'"),
            STAR.replace(" AND c.age BETWEEN 18 AND 65", ""),
            STAR.replace("a.k = b.k", "a.k = b.k AND a.z = b.z")
                .replace("a.k = c.k", "a.k = c.k AND a.z = c.z"),
            STAR.replace("b.", "b2.").replace("JOIN b ON", "JOIN b2 ON"),
            STAR.replace("a.k = b.k", "LOWER(a.k) = b.k").replace("a.k = c.k", "LOWER(a.k) = c.k"),
            STAR + " AND c.email IS NOT NULL");
    Set<String> fingerprints = new HashSet<>();
    for (String sql : queries) {
      fingerprints.add(MultiJoinQuery.parse(sql).fingerprint());
    }
    assertEquals(queries.size(), fingerprints.size(), "every query has its own fingerprint");
    // a two-party query's canonical form has another version line: the two never collide
    assertTrue(MultiJoinQuery.parse(STAR).canonical().startsWith("psi-flink n-party join query"));
    assertTrue(
        JoinQuery.parse("SELECT a.spend FROM a JOIN b ON a.k = b.k")
            .canonical()
            .startsWith("psi-flink join query v1\n"));
  }

  // ---------------------------------------------------------------- refusals

  static Stream<Arguments> refusals() {
    String from3 = " FROM a JOIN b ON a.k = b.k JOIN c ON a.k = c.k";
    String ok = "SELECT a.spend" + from3;
    return Stream.of(
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k",
            "FROM",
            "two tables are a two-party join: parse it with JoinQuery",
            "a JOIN b ON a.k = b.k"),
        Arguments.of("SELECT a.x FROM a", "FROM", "an n-party join joins 3 or more tables", "a"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k LEFT JOIN c ON a.k = c.k",
            "FROM",
            "LEFT JOIN is not allowed: an n-party join is an inner JOIN of all its tables",
            "LEFT JOIN"),
        Arguments.of(
            "SELECT a.x FROM a RIGHT JOIN b ON a.k = b.k JOIN c ON a.k = c.k",
            "FROM",
            "RIGHT JOIN is not allowed: an n-party join is an inner JOIN",
            "RIGHT JOIN"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k FULL OUTER JOIN c ON a.k = c.k",
            "FROM",
            "FULL OUTER JOIN is not allowed",
            "FULL OUTER JOIN"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k CROSS JOIN c",
            "FROM",
            "CROSS JOIN is not allowed: only JOIN with equalities in ON is supported",
            "CROSS JOIN"),
        Arguments.of(
            "SELECT a.x FROM a, b, c WHERE a.k = b.k AND a.k = c.k",
            "FROM",
            "a comma between tables (a cross join) is not allowed",
            ","),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k JOIN c USING (k)",
            "FROM",
            "USING is not allowed",
            "USING (k)"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k NATURAL JOIN c",
            "FROM",
            "NATURAL JOIN is not allowed",
            "NATURAL JOIN"),
        Arguments.of(
            "SELECT a.x FROM a JOIN (b JOIN c ON b.k = c.k) ON a.k = b.k",
            "FROM",
            "without parentheses",
            "b JOIN c ON b.k = c.k"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k JOIN c ON b.j = c.j",
            "ON",
            "b.j is not in the join key of b (b.k, as the first ON sets it): an n-party join"
                + " matches every table on the same key",
            "b.j = c.j"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k JOIN c ON a.j = c.k",
            "ON",
            "a.j is not in the join key of a (a.k, as the first ON sets it)",
            "a.j = c.k"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k AND a.z = b.z JOIN c ON a.k = c.k",
            "ON",
            "this ON gives c no expression equal to a.z: an n-party join matches every table on"
                + " the same key (a.k, a.z of a)",
            "a.k = c.k"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k JOIN c ON a.k = b.k",
            "ON",
            "this ON gives c no expression equal to a.k",
            "a.k = b.k"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k AND a.z = b.z JOIN c ON a.k = c.k AND b.z ="
                + " c.k",
            "ON",
            "b.z and c.k are different columns of the join key",
            "b.z = c.k"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k JOIN c ON a.k = c.k AND b.k = c.j",
            "ON",
            "c.k and c.j are both equated with b.k",
            "b.k = c.j"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k AND a.k = b.j JOIN c ON a.k = c.k",
            "ON",
            "b.k and b.j are both equated with a.k: each table has one expression for each column"
                + " of the join key",
            "a.k = b.j"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k AND a.z = b.z JOIN c ON a.k = c.k AND a.z ="
                + " c.z AND a.k = b.z",
            "ON",
            "a.k and b.z are different columns of the join key",
            "a.k = b.z"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k OR a.z = b.z JOIN c ON a.k = c.k",
            "ON",
            "OR is not allowed here: the ON of an n-party join holds AND-ed equalities between two"
                + " tables' keys",
            "a.k = b.k OR a.z = b.z"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k JOIN c ON a.k = c.k AND c.age > 3",
            "ON",
            "the ON of an n-party join holds AND-ed equalities between two tables' keys (a"
                + " condition on one table belongs in WHERE)",
            "c.age > 3"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k < b.k JOIN c ON a.k = c.k",
            "ON",
            "holds AND-ed equalities",
            "a.k < b.k"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k JOIN c ON a.k = c.k AND c.z = 3",
            "ON",
            "this equality compares a constant",
            "c.z = 3"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k JOIN c ON a.k = c.k AND c.z = c.y",
            "ON",
            "this equality compares two expressions of table c",
            "c.z = c.y"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k JOIN c ON a.k = k",
            "ON",
            "qualify the column k with its table (e.g. a.k): in an n-party join every ON column"
                + " names its table",
            "k"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = c.k JOIN c ON a.k = c.k",
            "ON",
            "table c is joined after this ON",
            "c.k"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k || b.k = b.k JOIN c ON a.k = c.k",
            "ON",
            "this key expression uses columns of both a and b",
            "a.k || b.k"),
        Arguments.of(
            ok + " WHERE a.x = b.y",
            "WHERE",
            "this condition uses columns of both a and b; each AND-ed condition may use the"
                + " columns of only one table (equalities between the tables belong in ON)",
            "a.x = b.y"),
        Arguments.of(
            ok + " WHERE a.x = 1 AND (b.y = 2 OR c.z = 3)",
            "WHERE",
            "this condition uses columns of both b and c",
            "(b.y = 2 OR c.z = 3)"),
        Arguments.of(
            ok + " WHERE a.x + b.y + c.z > 1",
            "WHERE",
            "this condition uses columns of a, b and c",
            "a.x + b.y + c.z > 1"),
        Arguments.of(
            ok + " WHERE 1 = 1",
            "WHERE",
            "this condition uses no column: each AND-ed condition must test columns of a, of b"
                + " or of c",
            "1 = 1"),
        Arguments.of(
            ok + " WHERE a.k IN (SELECT d.k FROM d)",
            "WHERE",
            "subqueries are not allowed here (an n-party join relates its tables in ON)",
            "SELECT d.k FROM d"),
        Arguments.of(
            "SELECT a.x FROM a JOIN (SELECT * FROM b) s ON a.k = s.k JOIN c ON a.k = c.k",
            "FROM",
            "subqueries are not allowed: join the tables directly",
            "SELECT * FROM b"),
        Arguments.of(
            "SELECT (SELECT 1) FROM a JOIN b ON a.k = b.k JOIN c ON a.k = c.k",
            "SELECT",
            "subqueries are not allowed",
            "(SELECT 1)"),
        Arguments.of(
            "SELECT COUNT(DISTINCT a.k)" + from3,
            "SELECT",
            "COUNT is not yet for n-party joins",
            "COUNT(DISTINCT a.k)"),
        Arguments.of(
            "SELECT COUNT(*) AS n" + from3, "SELECT", "not yet for n-party joins", "COUNT(*)"),
        Arguments.of(
            "SELECT SUM(a.spend)" + from3,
            "SELECT",
            "aggregate functions are not allowed",
            "SUM(a.spend)"),
        Arguments.of(
            "SELECT DISTINCT a.spend" + from3,
            "DISTINCT",
            "SELECT DISTINCT is not allowed",
            "DISTINCT"),
        Arguments.of(
            ok + " GROUP BY a.spend", "GROUP BY", "GROUP BY is not allowed", "GROUP BY a.spend"),
        Arguments.of(
            ok + " GROUP BY a.spend HAVING a.spend > 1",
            "GROUP BY",
            "GROUP BY is not allowed",
            "GROUP BY a.spend"),
        Arguments.of(
            ok + " HAVING a.spend > 1", "HAVING", "HAVING is not allowed", "HAVING a.spend > 1"),
        Arguments.of(
            ok + " ORDER BY a.spend", "ORDER BY", "ORDER BY is not allowed", "ORDER BY a.spend"),
        Arguments.of(ok + " LIMIT 10", "LIMIT", "LIMIT/FETCH is not allowed", "LIMIT 10"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k JOIN a ON a.k = b.k",
            "FROM",
            "table a is joined twice: each party's table appears once",
            "a"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k JOIN a AS c ON a.k = c.k",
            "FROM",
            "table a is joined twice",
            "a AS c"),
        Arguments.of(
            "SELECT x.x FROM a x JOIN b x ON x.k = x.k JOIN c ON x.k = c.k",
            "FROM",
            "two tables are called x",
            "b x"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b AS c ON a.k = c.k JOIN c AS d ON a.k = d.k",
            "FROM",
            "alias c of table b would be confused with table c",
            "c AS d"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k JOIN c AS b2 ON a.k = b2.k JOIN d AS b ON"
                + " a.k = b.k",
            "FROM",
            "alias b of table d would be confused with table b",
            "d AS b"),
        Arguments.of(
            ok + " WHERE q.x = 1", "WHERE", "unknown table q: the tables are a, b and c", "q.x"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b y ON a.k = b.k JOIN c ON a.k = c.k",
            "ON",
            "unknown table b: table b is called y in this query",
            "b.k"),
        Arguments.of(
            "SELECT z.* FROM a x JOIN b ON x.k = b.k JOIN c ON x.k = c.k",
            "SELECT",
            "unknown table z: the tables are x (table a), b and c",
            "z.*"),
        Arguments.of(
            "SELECT a.x FROM a JOIN db.b ON a.k = b.k JOIN c ON a.k = c.k",
            "FROM",
            "unknown table db.b: name each party's table by one identifier",
            "db.b"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k JOIN c ON a.k = c.k UNION SELECT a.x FROM a",
            "UNION",
            "UNION is not allowed",
            "UNION"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k JOIN c",
            "ON",
            "the JOIN needs an ON condition: equalities between a column of a and one of c",
            "a JOIN b ON a.k = b.k JOIN c"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k JOIN c ON",
            "SQL",
            "syntax error: the query ends too early",
            "ON"));
  }

  @ParameterizedTest
  @MethodSource("refusals")
  void refusal(String sql, String clause, String message, String at) {
    QueryException e = parseFails(sql);
    assertEquals(clause, e.clause(), e.getMessage());
    assertTrue(e.problem().contains(message), e.getMessage());
    assertEquals(at, e.offendingText(), e.getMessage());
    assertTrue(e.line() > 0, e.getMessage());
  }

  // ---------------------------------------------------------------- resolution errors

  @Test
  void unknownColumns() {
    QueryException e = resolveFails(STAR.replace("c.age FROM", "c.years FROM"));
    assertEquals(
        "SELECT: table c has no column years; its columns are [k, z, age, email] (at line 1,"
            + " column 28: `c.years`)",
        e.getMessage());
    e = parseFails("SELECT a.spend FROM a x JOIN b ON x.k = b.k JOIN c ON x.k = c.nope");
    assertEquals(
        "SELECT: unknown table a: table a is called x in this query",
        e.getMessage().substring(0, 58));
    e = resolveFails("SELECT x.spend FROM a x JOIN b ON x.k = b.k JOIN c ON x.k = c.nope");
    assertEquals("ON", e.clause());
    assertEquals("table c has no column nope; its columns are [k, z, age, email]", e.problem());
    e = resolveFails("SELECT x.spnd FROM a x JOIN b ON x.k = b.k JOIN c ON x.k = c.k");
    assertTrue(e.problem().startsWith("table a (x) has no column spnd;"), e.getMessage());
    e = resolveFails(STAR + " AND mystery = 1");
    assertEquals("WHERE", e.clause());
    assertEquals(
        "no column mystery in a, b or c; a has columns [k, z, spend, email, name], b has columns"
            + " [k, z, country, email, score], c has columns [k, z, age, email]",
        e.problem());
    assertEquals("mystery", e.offendingText());
  }

  @Test
  void ambiguousColumns() {
    QueryException e = resolveFails(STAR.replace("c.age FROM", "email FROM"));
    assertEquals("SELECT", e.clause());
    assertEquals(
        "column email is ambiguous: a, b and c have it; write a.email, b.email or c.email",
        e.problem());
    e =
        resolveFails(
            "SELECT a.spend FROM a JOIN b y ON a.k = y.k JOIN d ON a.k = d.k WHERE country = 'DE'"
                + " AND score > 1 AND spend > 1 AND z = 1");
    assertEquals("WHERE", e.clause());
    assertEquals("column z is ambiguous: a, b and d have it; write a.z, y.z or d.z", e.problem());
    e =
        assertThrows(
            QueryException.class,
            () ->
                MultiJoinQuery.parse(
                        "SELECT a.spend FROM a JOIN b ON a.k = b.k JOIN c ON a.k = c.k WHERE"
                            + " age = 1")
                    .resolve(List.of(A, table("k STRING, age INT"), C)));
    assertEquals("WHERE", e.clause());
    assertEquals(
        "column age is ambiguous: both b and c have it; write b.age or c.age", e.problem());
  }

  @Test
  void keyTypesMustCompare() throws Exception {
    // INT and BIGINT compare (one key class), as in a two-party join
    resolve(
        "SELECT a.spend FROM a JOIN b ON a.k = b.k AND a.z = b.z JOIN c ON a.k = c.k AND c.age ="
            + " b.z");
    QueryException e =
        resolveFails(
            "SELECT a.spend FROM a JOIN b ON a.k = b.k JOIN c ON b.k = c.age JOIN d ON a.k = d.k");
    assertEquals(
        "ON: b.k (STRING) = c.age (INT): types do not compare (at line 1, column 53: `b.k ="
            + " c.age`)",
        e.getMessage());
    e = resolveFails("SELECT a.spend FROM a JOIN b ON a.k = b.k JOIN c ON c.age = a.k");
    assertEquals("a.k (STRING) = c.age (INT): types do not compare", e.problem());
    // a view alone cannot see another party's types
    MultiJoinQuery q =
        MultiJoinQuery.parse("SELECT a.spend FROM a JOIN b ON a.k = b.k JOIN c ON c.age = a.k");
    assertEquals(List.of("age"), q.view(2, C).keyColumns());
  }
}
