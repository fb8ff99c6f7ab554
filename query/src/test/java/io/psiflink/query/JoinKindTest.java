package io.psiflink.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Join kinds (LEFT, semi, anti), key expressions in ON, and every refusal naming its clause. */
class JoinKindTest {
  static final TableSchema A =
      new TableSchema(
          List.of(
              new Column("k", ColumnType.STRING, true),
              new Column("email", ColumnType.STRING, true),
              new Column("x", ColumnType.BIGINT, true),
              new Column("nn", ColumnType.STRING, false)));
  static final TableSchema B =
      new TableSchema(
          List.of(
              new Column("k", ColumnType.STRING, true),
              new Column("mail", ColumnType.STRING, true),
              new Column("country", ColumnType.STRING, true),
              new Column("v", ColumnType.DOUBLE, true),
              new Column("nn", ColumnType.STRING, false)));

  /** Resolves with both schemas and checks each party's own view agrees. */
  static ResolvedJoin resolve(String sql) throws QueryException {
    JoinQuery q = JoinQuery.parse(sql);
    ResolvedJoin r = q.resolve(A, B);
    assertEquals(r.a(), q.view(Role.A, A), "A's own view");
    assertEquals(r.b(), q.view(Role.B, B), "B's own view");
    return r;
  }

  @Test
  void innerJoinOfColumnsIsAsBefore() throws Exception {
    ResolvedJoin r = resolve("SELECT a.x, b.v FROM a JOIN b ON a.k = b.k");
    assertEquals(JoinKind.INNER, r.kind());
    assertEquals(List.of(JoinKey.column("k")), r.a().keys());
    assertEquals(List.of(), r.notes());
  }

  @Test
  void keyExpressionsAreEachPartysOwnFlinkSql() throws Exception {
    ResolvedJoin r =
        resolve(
            "SELECT a.x FROM a JOIN b ON LOWER(TRIM(a.email)) = lower(trim(b.mail))"
                + " AND a.k = b.k || 'x'");
    assertEquals(
        List.of(
            new JoinKey(
                "LOWER(TRIM(BOTH ' ' FROM `email`))",
                "LOWER(TRIM(BOTH ' ' FROM `email`))",
                List.of("email"),
                false),
            JoinKey.column("k")),
        r.a().keys());
    assertEquals("`k` || 'x'", r.b().keys().get(1).flinkSql());
    assertEquals(List.of("mail", "k"), r.b().keyColumns());
    assertTrue(r.b().computedKeys());
    assertEquals(List.of("email", "k"), r.a().keyColumns());
  }

  @Test
  void unicodeNormalisationIsAKeyExpression() throws Exception {
    ResolvedJoin r = resolve("SELECT a.x FROM a JOIN b ON nfc(a.k) = NFKC(LOWER(b.k))");
    assertEquals("`NFC`(`k`)", r.a().keys().get(0).flinkSql());
    assertEquals("`NFKC`(LOWER(`k`))", r.b().keys().get(0).flinkSql());
    // NULL for NULL, as SQL functions are: a WHERE through them rejects b's NULLs
    assertEquals(
        JoinKind.INNER,
        resolve("SELECT a.x FROM a LEFT JOIN b ON a.k = b.k WHERE NFC(b.country) = 'DE'").kind());
  }

  @Test
  void singleTableConditionsInOnAreThatTablesFilter() throws Exception {
    ResolvedJoin r =
        resolve("SELECT a.x FROM a JOIN b ON a.k = b.k AND b.country = 'DE' AND a.x > 1");
    assertEquals("`x` > 1", r.a().wherePredicate());
    assertEquals("`country` = 'DE'", r.b().wherePredicate());
    // same meaning as WHERE, not the same text: the fingerprints differ, the views agree
    ResolvedJoin w =
        resolve("SELECT a.x FROM a JOIN b ON a.k = b.k WHERE b.country = 'DE' AND a.x > 1");
    assertEquals(r.a().wherePredicate(), w.a().wherePredicate());
    assertEquals(r.b().wherePredicate(), w.b().wherePredicate());
  }

  @Test
  void leftJoinKeepsBsConditionsInOn() throws Exception {
    ResolvedJoin r =
        resolve(
            "SELECT a.x, b.v FROM a LEFT JOIN b ON a.k = b.k AND b.country = 'DE' WHERE a.x > 0");
    assertEquals(JoinKind.LEFT, r.kind());
    assertEquals(JoinKind.LEFT, r.b().kind());
    assertEquals("`country` = 'DE'", r.b().wherePredicate());
    assertEquals("`x` > 0", r.a().wherePredicate());
  }

  @Test
  void leftJoinWithNullRejectingWhereOnBIsInner() throws Exception {
    ResolvedJoin r = resolve("SELECT a.x, b.v FROM a LEFT JOIN b ON a.k = b.k WHERE b.v > 2");
    assertEquals(JoinKind.INNER, r.kind());
    assertEquals("`v` > 2", r.b().wherePredicate());
    assertTrue(r.notes().get(0).contains("runs as an inner join"), r.notes().toString());
    for (String w :
        List.of(
            "b.country IS NOT NULL",
            "UPPER(b.country) = 'DE'",
            "b.v BETWEEN 1 AND 2",
            "b.country IN ('DE', 'AT')",
            "(b.v > 1 OR b.v < -1)",
            "b.country LIKE 'D%'")) {
      assertEquals(
          JoinKind.INNER,
          resolve("SELECT a.x FROM a LEFT JOIN b ON a.k = b.k WHERE " + w).kind(),
          w);
    }
  }

  @Test
  void leftJoinWhereBKeyIsNullIsAnti() throws Exception {
    ResolvedJoin r = resolve("SELECT a.x FROM a LEFT JOIN b ON a.k = b.k WHERE b.k IS NULL");
    assertEquals(JoinKind.ANTI, r.kind());
    assertEquals(JoinKind.ANTI, r.b().kind());
    assertEquals("", r.b().wherePredicate());
    // a column inside a strict key expression is NULL for every unmatched row too
    assertEquals(
        JoinKind.ANTI,
        resolve(
                "SELECT a.x FROM a LEFT JOIN b ON LOWER(a.email) = LOWER(b.mail)"
                    + " WHERE b.mail IS NULL AND a.x > 1")
            .kind());
  }

  @Test
  void semiJoins() throws Exception {
    ResolvedJoin exists =
        resolve(
            "SELECT a.x FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.country ="
                + " 'DE') AND a.x > 3");
    assertEquals(JoinKind.SEMI, exists.kind());
    assertEquals("`country` = 'DE'", exists.b().wherePredicate());
    assertEquals("`x` > 3", exists.a().wherePredicate());
    assertEquals(List.of(), exists.b().revealedColumns());
    ResolvedJoin in =
        resolve(
            "SELECT a.x FROM a WHERE a.k IN (SELECT b.k FROM b WHERE b.country = 'DE') AND a.x >"
                + " 3");
    assertEquals(JoinKind.SEMI, in.kind());
    assertEquals(exists.a(), in.a());
    assertEquals(exists.b(), in.b());
    assertEquals(exists.query().fingerprint(), in.query().fingerprint());
    assertEquals(
        JoinQuery.parse(
                "SELECT a.x FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.country ="
                    + " 'DE') AND a.x > 3")
            .fingerprint(),
        JoinQuery.parse(
                "SELECT t.x FROM a AS t WHERE EXISTS (SELECT * FROM b AS u WHERE t.k = u.k AND"
                    + " u.country = 'DE') AND t.x > 3")
            .fingerprint());
    ResolvedJoin row =
        resolve(
            "SELECT * FROM a WHERE (a.k, LOWER(a.email)) IN (SELECT b.k, LOWER(b.mail) FROM b)");
    assertEquals(2, row.a().keys().size());
    assertEquals(List.of("k", "email", "x", "nn"), row.a().revealedColumns());
    assertEquals("LOWER(`mail`)", row.b().keys().get(1).flinkSql());
  }

  @Test
  void antiJoins() throws Exception {
    ResolvedJoin r =
        resolve("SELECT a.* FROM a WHERE NOT EXISTS (SELECT 1 FROM b y WHERE y.k = a.k)");
    assertEquals(JoinKind.ANTI, r.kind());
    assertEquals(List.of("k", "email", "x", "nn"), r.a().revealedColumns());
    // NOT IN where neither key can be NULL: declared NOT NULL, or tested in the query
    assertEquals(
        JoinKind.ANTI, resolve("SELECT a.x FROM a WHERE a.nn NOT IN (SELECT b.nn FROM b)").kind());
    assertEquals(
        JoinKind.ANTI,
        resolve(
                "SELECT a.x FROM a WHERE a.k IS NOT NULL AND a.k NOT IN (SELECT b.k FROM b WHERE"
                    + " b.k IS NOT NULL)")
            .kind());
    assertEquals(
        JoinKind.ANTI,
        resolve("SELECT a.x FROM a WHERE NOT (a.nn IN (SELECT b.nn FROM b))").kind());
  }

  /** Known answers, computed by the implementation before join kinds and key expressions. */
  @Test
  void anInnerJoinOfColumnsKeepsItsFingerprint() throws Exception {
    assertEquals(
        "011b54cf7d2acb159e5d45ff5e20134c43862bd84bffd7511b664547b3877663",
        JoinQuery.parse(
                "SELECT b.email_domain, a.spend FROM a JOIN b ON a.card = b.card AND a.zip ="
                    + " b.zip WHERE a.spend > 23 AND b.country = 'DE'")
            .fingerprint());
    assertEquals(
        "b433f4259d508df85043339c2783ab92828b39078f45c462fc78954374be600e",
        JoinQuery.parse("SELECT * FROM a x JOIN b ON b.k = x.k").fingerprint());
    assertEquals(
        "29de90838eae61c56b665a0a1caa6c9b89d1af862a5cfe8ea6c9ba721b59c413",
        JoinQuery.parse(
                "SELECT COUNT(DISTINCT a.k) AS n FROM a JOIN b ON a.k = b.k WHERE b.x IN (1, 2)")
            .fingerprint());
  }

  @Test
  void kindAndKeysAreInTheFingerprint() throws Exception {
    List<String> queries =
        List.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k",
            "SELECT a.x FROM a LEFT JOIN b ON a.k = b.k",
            "SELECT a.x FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k)",
            "SELECT a.x FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k)",
            "SELECT a.x FROM a JOIN b ON LOWER(a.k) = b.k",
            "SELECT a.x FROM a JOIN b ON a.k = LOWER(b.k)",
            "SELECT a.x FROM a JOIN b ON a.k = b.k AND b.country = 'DE'");
    assertEquals(
        queries.size(),
        queries.stream()
            .map(
                s -> {
                  try {
                    return JoinQuery.parse(s).fingerprint();
                  } catch (QueryException e) {
                    throw new AssertionError(e);
                  }
                })
            .distinct()
            .count());
    assertEquals(
        JoinQuery.parse("SELECT a.x FROM a JOIN b ON lower(a.k) = b.k").fingerprint(),
        JoinQuery.parse("SELECT a.x FROM a JOIN b ON b.k = LOWER(a.k)").fingerprint());
    assertNotEquals(
        JoinQuery.parse("SELECT a.x FROM a JOIN b ON LOWER(a.k) = b.k").fingerprint(),
        JoinQuery.parse("SELECT a.x FROM a JOIN b ON UPPER(a.k) = b.k").fingerprint());
  }

  static Stream<Arguments> refused() {
    return Stream.of(
        // RIGHT and FULL would give A rows of b outside the intersection
        Arguments.of(
            "SELECT a.x FROM a RIGHT JOIN b ON a.k = b.k", "FROM", "RIGHT JOIN", "intersection"),
        Arguments.of(
            "SELECT a.x FROM a FULL OUTER JOIN b ON a.k = b.k",
            "FROM",
            "FULL OUTER JOIN",
            "intersection"),
        // a key expression mixing the tables
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k || b.k = b.mail", "ON", "a.k || b.k", "both a and b"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON CONCAT(email, country) = b.mail",
            "ON",
            "CONCAT(email, country)",
            "both a and b"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON a.k = b.k AND (a.x = 1 OR b.v = 2)",
            "ON",
            "a.x = 1 OR b.v = 2",
            "both a and b"),
        // Unicode normalisation: NORMALIZE does not parse in Flink SQL; other dialects' names
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON NORMALIZE(a.k) = NORMALIZE(b.k)",
            "SQL",
            "NORMALIZE",
            "write NFC(x)"),
        Arguments.of(
            "SELECT a.x FROM a JOIN b ON nfc_normalize(a.k) = b.k",
            "ON",
            "nfc_normalize(a.k)",
            "write NFC(x)"),
        // WHERE after LEFT that is not null-rejecting
        Arguments.of(
            "SELECT a.x FROM a LEFT JOIN b ON a.k = b.k WHERE b.country IS NULL",
            "WHERE",
            "b.country IS NULL",
            "LEFT JOIN"),
        Arguments.of(
            "SELECT a.x FROM a LEFT JOIN b ON a.k = b.k WHERE COALESCE(b.country, 'DE') = 'DE'",
            "WHERE",
            "COALESCE(b.country, 'DE') = 'DE'",
            "LEFT JOIN"),
        Arguments.of(
            "SELECT a.x FROM a LEFT JOIN b ON a.k = b.k WHERE b.v > 1 OR b.v IS NULL",
            "WHERE",
            "b.v > 1 OR b.v IS NULL",
            "LEFT JOIN"),
        Arguments.of(
            "SELECT a.x FROM a LEFT JOIN b ON a.k = b.k WHERE b.k IS NULL AND b.v > 1",
            "WHERE",
            "b.v > 1",
            "never true"),
        Arguments.of(
            "SELECT a.x, b.v FROM a LEFT JOIN b ON a.k = b.k WHERE b.k IS NULL",
            "SELECT",
            "b.v",
            "NULL in every row"),
        // A's conditions in a LEFT JOIN's ON do not filter A
        Arguments.of(
            "SELECT a.x FROM a LEFT JOIN b ON a.k = b.k AND a.x > 1", "ON", "a.x > 1", "WHERE"),
        // unsafe NOT IN
        Arguments.of(
            "SELECT a.x FROM a WHERE a.k NOT IN (SELECT b.k FROM b)",
            "WHERE",
            "a.k NOT IN",
            "NULL"),
        Arguments.of(
            "SELECT a.x FROM a WHERE a.nn NOT IN (SELECT b.k FROM b)",
            "WHERE",
            "a.nn NOT IN",
            "b.k may be NULL"),
        Arguments.of(
            "SELECT a.x FROM a WHERE a.k NOT IN (SELECT b.nn FROM b)",
            "WHERE",
            "a.k NOT IN",
            "a.k may be NULL"),
        Arguments.of(
            "SELECT a.x FROM a WHERE LOWER(a.nn) NOT IN (SELECT b.nn FROM b)",
            "WHERE",
            "NOT IN",
            "expression"),
        // b's columns outside a semi- or anti-join's subquery
        Arguments.of(
            "SELECT a.x, b.v FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k)",
            "SELECT",
            "b.v",
            "semi-join"),
        Arguments.of(
            "SELECT a.x FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k) AND b.v > 1",
            "WHERE",
            "b.v > 1",
            "subquery"),
        Arguments.of(
            "SELECT a.x FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND a.x > 1)",
            "WHERE",
            "a.x > 1",
            "outer WHERE"),
        Arguments.of(
            "SELECT a.x FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.country = 'DE')",
            "WHERE",
            "b.country = 'DE'",
            "equality"),
        Arguments.of(
            "SELECT a.x FROM a WHERE EXISTS (SELECT 1 FROM c WHERE c.k = a.k)",
            "WHERE",
            "c",
            "table b"),
        Arguments.of(
            "SELECT a.x FROM a WHERE a.k IN (SELECT b.k, b.mail FROM b)", "WHERE", "IN", "1"),
        Arguments.of(
            "SELECT a.x FROM a WHERE a.k IN (SELECT b.k FROM b WHERE b.mail = a.email)",
            "WHERE",
            "b.mail = a.email",
            "EXISTS"),
        Arguments.of(
            "SELECT a.x FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k)" + " OR a.x > 1",
            "WHERE",
            "SELECT 1",
            "subquer"),
        Arguments.of(
            "SELECT COUNT(DISTINCT a.k) FROM a LEFT JOIN b ON a.k = b.k",
            "SELECT",
            "COUNT(DISTINCT a.k)",
            "inner JOIN"),
        Arguments.of(
            "SELECT COUNT(DISTINCT a.k) FROM a JOIN b ON LOWER(a.k) = b.k",
            "SELECT",
            "COUNT(DISTINCT a.k)",
            "expressions"));
  }

  @ParameterizedTest(name = "{1}: {0}")
  @MethodSource("refused")
  void refusedNamingTheClause(String sql, String clause, String text, String why) {
    QueryException e =
        assertThrows(
            QueryException.class,
            () -> {
              JoinQuery q = JoinQuery.parse(sql);
              q.resolve(A, B);
            });
    assertEquals(clause, e.clause(), e.getMessage());
    assertNotNull(e.offendingText(), e.getMessage());
    assertTrue(e.offendingText().contains(text), "[" + text + "] in " + e.getMessage());
    assertTrue(e.problem().contains(why), "[" + why + "] in " + e.getMessage());
  }

  @Test
  void starExpandsToAsColumnsOnlyInASubqueryJoin() throws Exception {
    JoinQuery q = JoinQuery.parse("SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k)");
    assertEquals(
        "SELECT `a`.`k`, `a`.`email`, `a`.`x`, `a`.`nn` FROM a WHERE EXISTS (SELECT 1 FROM b"
            + " WHERE b.k = a.k)",
        q.expandStars(A, B));
  }
}
