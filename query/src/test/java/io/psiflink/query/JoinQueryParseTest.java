package io.psiflink.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
import io.psiflink.query.ParsedQuery.Item;
import io.psiflink.query.ParsedQuery.Ref;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Parsing and the checks that need no schema. */
class JoinQueryParseTest {
  static final String DESIGN =
      "SELECT b.email_domain, a.spend FROM a JOIN b ON a.card = b.card"
          + " AND a.zip = b.zip WHERE a.spend > 23 AND b.country = 'DE'";

  static final String OK = "SELECT a.k FROM a JOIN b ON a.k = b.k";

  @Test
  void designExample() throws Exception {
    JoinQuery q = JoinQuery.parse(DESIGN);
    ParsedQuery p = q.parsed();
    assertEquals(DESIGN, q.sql());
    assertEquals("a", p.qualifierA());
    assertEquals("b", p.qualifierB());
    assertEquals(
        List.of(Role.B, Role.A), p.select().stream().map(i -> i.ref().qualifier()).toList());
    assertEquals(
        List.of("email_domain", "spend"), p.select().stream().map(i -> i.ref().column()).toList());
    assertEquals(2, p.on().size());
    assertEquals("card", p.on().get(0).left().column().column());
    assertEquals(Role.B, p.on().get(1).right().column().qualifier());
    assertEquals(
        List.of("`spend` > 23", "`country` = 'DE'"),
        p.where().stream().map(ParsedQuery.Conjunct::flinkSql).toList());
    assertEquals(64, q.fingerprint().length());
    assertTrue(q.fingerprint().matches("[0-9a-f]{64}"));
  }

  @Test
  void aliasesQualifyColumns() throws Exception {
    ParsedQuery p =
        JoinQuery.parse(
                "SELECT x.spend AS total, y.country FROM a AS x INNER JOIN b y"
                    + " ON x.card = y.card WHERE x.spend BETWEEN 1 AND 5")
            .parsed();
    assertEquals("x", p.qualifierA());
    assertEquals("y", p.qualifierB());
    Item total = p.select().get(0);
    assertEquals(new Ref(Role.A, "spend", total.ref().span()), total.ref());
    assertEquals("total", total.alias());
    assertEquals(Role.B, p.select().get(1).ref().qualifier());
    assertNull(p.select().get(1).alias());
    assertEquals("`spend` BETWEEN ASYMMETRIC 1 AND 5", p.where().get(0).flinkSql());
  }

  @Test
  void reversedOnKeepsBothOrientations() throws Exception {
    ParsedQuery p = JoinQuery.parse("SELECT a.k FROM a JOIN b ON b.k = a.k AND a.j = b.j").parsed();
    assertEquals(Role.B, p.on().get(0).left().column().qualifier());
    assertEquals(Role.A, p.on().get(0).right().column().qualifier());
    assertEquals(Role.A, p.on().get(1).left().column().qualifier());
  }

  @Test
  void stars() throws Exception {
    List<Item> items =
        JoinQuery.parse("SELECT *, b.*, a.*, a.k FROM a JOIN b ON a.k = b.k").parsed().select();
    assertTrue(items.get(0).star());
    assertNull(items.get(0).starSide());
    assertEquals(Role.B, items.get(1).starSide());
    assertEquals(Role.A, items.get(2).starSide());
    assertTrue(!items.get(3).star());
  }

  @Test
  void backtickQuotedIdentifiersMayHoldSpacesBackticksAndKeywords() throws Exception {
    ParsedQuery p =
        JoinQuery.parse(
                "SELECT a.`home city` AS `City Name`, b.`odd``name`, b.`select`"
                    + " FROM a JOIN b ON a.`card no` = b.`card no`"
                    + " WHERE a.`home city` LIKE 'Ber%' AND b.`odd``name` <> 'x'")
            .parsed();
    assertEquals("home city", p.select().get(0).ref().column());
    assertEquals("City Name", p.select().get(0).alias());
    assertEquals("odd`name", p.select().get(1).ref().column());
    assertEquals("select", p.select().get(2).ref().column());
    assertEquals("card no", p.on().get(0).left().column().column());
    assertEquals("`home city` LIKE 'Ber%'", p.where().get(0).flinkSql());
    assertEquals("`odd``name` <> 'x'", p.where().get(1).flinkSql());
  }

  @Test
  void identifiersAreCaseSensitiveAndKeepTheirCase() throws Exception {
    ParsedQuery p =
        JoinQuery.parse(
                "select a.Spend, A_x.k from a as A_x join b on A_x.Card = b.card"
                    .replace("a.Spend", "A_x.Spend"))
            .parsed();
    assertEquals("Spend", p.select().get(0).ref().column());
    assertEquals("Card", p.on().get(0).left().column().column());
    QueryException e =
        assertThrows(
            QueryException.class, () -> JoinQuery.parse("SELECT A.k FROM a JOIN b ON a.k = b.k"));
    assertEquals("SELECT", e.clause());
    assertEquals("A.k", e.offendingText());
  }

  @Test
  void whereTextIsFlinkSqlWithUnqualifiedQuotedIdentifiers() throws Exception {
    ParsedQuery p =
        JoinQuery.parse(
                "SELECT a.k FROM a JOIN b ON a.k = b.k WHERE"
                    + " (a.n < 0 OR a.s = 'it''s') AND NOT a.flag AND a.s IN ('p', 'q')"
                    + " AND a.x IS NULL AND CAST(a.n AS STRING) = '4' AND a.d > DATE '2020-01-31'"
                    + " AND upper(a.s) LIKE 'A%' AND split_index(a.s, ',', 0) <> a.t"
                    + " AND a.n * 2 + 1 > a.x / 3 AND a.n % 2 != 0 AND a.t < CURRENT_DATE"
                    + " AND a.`CURRENT_DATE` = 1 AND a.s = 'Müller'")
            .parsed();
    assertEquals(
        List.of(
            "`n` < 0 OR `s` = 'it''s'",
            "NOT `flag`",
            "`s` IN ('p', 'q')",
            "`x` IS NULL",
            "CAST(`n` AS STRING) = '4'",
            "`d` > DATE '2020-01-31'",
            "UPPER(`s`) LIKE 'A%'",
            "`SPLIT_INDEX`(`s`, ',', 0) <> `t`",
            "`n` * 2 + 1 > `x` / 3",
            "`n` % 2 <> 0",
            "`t` < CURRENT_DATE",
            "`CURRENT_DATE` = 1",
            "`s` = 'Müller'"),
        p.where().stream().map(ParsedQuery.Conjunct::flinkSql).toList());
    assertEquals(List.of("t"), p.where().get(10).refs().stream().map(Ref::column).toList());
  }

  static Stream<Arguments> rejected() {
    return Stream.of(
        // statement shape
        Arguments.of(OK + " UNION " + OK, "UNION", "UNION"),
        Arguments.of(OK + " UNION ALL " + OK, "UNION", "UNION ALL"),
        Arguments.of(OK + " INTERSECT " + OK, "INTERSECT", "INTERSECT"),
        Arguments.of(OK + " EXCEPT " + OK, "EXCEPT", "EXCEPT"),
        Arguments.of("WITH t AS (SELECT 1) " + OK, "WITH", "WITH t AS (SELECT 1)"),
        Arguments.of(OK + " ORDER BY a.k", "ORDER BY", "ORDER BY a.k"),
        Arguments.of(OK + " ORDER BY a.k LIMIT 3", "ORDER BY", "ORDER BY a.k"),
        Arguments.of(OK + " LIMIT 10", "LIMIT", "LIMIT 10"),
        Arguments.of(OK + " OFFSET 5 ROWS", "OFFSET", "OFFSET 5"),
        Arguments.of(OK + " GROUP BY a.k", "GROUP BY", "GROUP BY a.k"),
        Arguments.of(OK + " WHERE (a.x > 1) GROUP BY a.k", "GROUP BY", "GROUP BY a.k"),
        Arguments.of(OK + " HAVING a.k > 1", "HAVING", "HAVING a.k > 1"),
        Arguments.of(OK + " WINDOW w AS (ORDER BY a.k)", "WINDOW", "WINDOW w AS (ORDER BY a.k"),
        Arguments.of(OK + " QUALIFY a.k > 1", "QUALIFY", "QUALIFY a.k > 1"),
        Arguments.of("SELECT DISTINCT a.k FROM a JOIN b ON a.k = b.k", "DISTINCT", "DISTINCT"),
        Arguments.of(
            "SELECT /*+ BROADCAST(a) */ a.k FROM a JOIN b ON a.k = b.k",
            "SELECT",
            "/*+ BROADCAST(a) */"),
        Arguments.of("INSERT INTO t " + OK, "SQL", "INSERT INTO t"),
        Arguments.of(OK + "; DROP TABLE a", "SQL", ";"),
        Arguments.of("SELECT a.k FROM a JOIN b ON", "SQL", ""),
        Arguments.of("SELECT a.\"k\" FROM a JOIN b ON a.k = b.k", "SQL", "."),
        // SELECT items
        Arguments.of("SELECT COUNT(*) FROM a JOIN b ON a.k = b.k", "SELECT", "COUNT(*)"),
        Arguments.of("SELECT sum(a.x) AS s FROM a JOIN b ON a.k = b.k", "SELECT", "sum(a.x)"),
        Arguments.of(
            "SELECT ROW_NUMBER() OVER (ORDER BY a.k) FROM a JOIN b ON a.k = b.k",
            "SELECT",
            "ROW_NUMBER() OVER (ORDER BY a.k"),
        Arguments.of("SELECT a.k + 1 FROM a JOIN b ON a.k = b.k", "SELECT", "a.k + 1"),
        Arguments.of("SELECT UPPER(b.s) AS u FROM a JOIN b ON a.k = b.k", "SELECT", "UPPER(b.s)"),
        Arguments.of("SELECT 'x' FROM a JOIN b ON a.k = b.k", "SELECT", "'x'"),
        Arguments.of("SELECT CURRENT_DATE FROM a JOIN b ON a.k = b.k", "SELECT", "CURRENT_DATE"),
        Arguments.of("SELECT (SELECT 1) FROM a JOIN b ON a.k = b.k", "SELECT", "SELECT 1"),
        Arguments.of("SELECT a.t.k FROM a JOIN b ON a.k = b.k", "SELECT", "a.t.k"),
        Arguments.of("SELECT c.k FROM a JOIN b ON a.k = b.k", "SELECT", "c.k"),
        Arguments.of("SELECT a.k FROM a AS x JOIN b ON x.k = b.k", "SELECT", "a.k"),
        // FROM
        Arguments.of(
            "SELECT a.k FROM a RIGHT OUTER JOIN b ON a.k = b.k", "FROM", "RIGHT OUTER JOIN"),
        Arguments.of("SELECT a.k FROM a FULL JOIN b ON a.k = b.k", "FROM", "FULL JOIN"),
        Arguments.of("SELECT a.k FROM a CROSS JOIN b", "FROM", "CROSS JOIN"),
        Arguments.of("SELECT a.k FROM a, b WHERE a.k = b.k", "FROM", ","),
        Arguments.of("SELECT a.k FROM a NATURAL JOIN b", "FROM", "NATURAL JOIN"),
        Arguments.of("SELECT a.k FROM a JOIN b USING (k)", "FROM", "USING (k"),
        Arguments.of("SELECT a.k FROM a", "FROM", "a"),
        Arguments.of("SELECT a.k FROM a JOIN c ON a.k = c.k", "FROM", "c"),
        Arguments.of("SELECT a.k FROM a JOIN a ON a.k = a.k", "FROM", "a"),
        Arguments.of("SELECT a.k FROM b JOIN a ON a.k = b.k", "FROM", "b"),
        Arguments.of("SELECT a.k FROM a JOIN s.b ON a.k = b.k", "FROM", "s.b"),
        Arguments.of(OK + " JOIN c ON c.k = a.k", "FROM", "JOIN c"),
        Arguments.of(
            "SELECT a.k FROM (SELECT * FROM a) AS a JOIN b ON a.k = b.k",
            "FROM",
            "SELECT * FROM a"),
        Arguments.of("SELECT x.k FROM a AS b JOIN b AS x ON b.k = x.k", "FROM", "a AS b"),
        Arguments.of("SELECT t.k FROM a AS t JOIN b AS t ON t.k = t.k", "FROM", "b AS t"),
        Arguments.of("SELECT a.k FROM a AS x(k) JOIN b ON a.k = b.k", "FROM", "a AS x(k"),
        // ON
        Arguments.of(
            "SELECT a.k FROM a JOIN b ON a.k = b.k OR a.j = b.j", "ON", "a.k = b.k OR a.j = b.j"),
        Arguments.of("SELECT a.k FROM a JOIN b ON a.k < b.k", "ON", "a.k < b.k"),
        Arguments.of("SELECT a.k FROM a JOIN b ON a.k = 1", "ON", "a.k = 1"),
        Arguments.of("SELECT a.k FROM a JOIN b ON a.k = a.j", "ON", "a.k = a.j"),
        Arguments.of("SELECT a.k FROM a JOIN b ON a.k = b.k AND TRUE", "ON", "TRUE"),
        Arguments.of(
            "SELECT a.k FROM a JOIN b ON a.k IS NOT DISTINCT FROM b.k",
            "ON",
            "a.k IS NOT DISTINCT FROM b.k"),
        // WHERE
        Arguments.of(OK + " WHERE a.x = b.y", "WHERE", "a.x = b.y"),
        Arguments.of(OK + " WHERE a.x = 1 AND (a.y = 2 OR b.z = 3)", "WHERE", "a.y = 2 OR b.z = 3"),
        Arguments.of(OK + " WHERE a.x = 1 OR b.y = 2", "WHERE", "a.x = 1 OR b.y = 2"),
        Arguments.of(OK + " WHERE 1 = 1", "WHERE", "1 = 1"),
        Arguments.of(
            OK + " WHERE a.x > 1 AND CURRENT_DATE > DATE '2020-01-01'",
            "WHERE",
            "CURRENT_DATE > DATE '2020-01-01'"),
        Arguments.of(OK + " WHERE a.x IN (SELECT 1)", "WHERE", "SELECT 1"),
        Arguments.of(OK + " WHERE EXISTS (SELECT 1)", "WHERE", "SELECT 1"),
        Arguments.of(OK + " WHERE a.x = ?", "WHERE", "?"),
        Arguments.of(OK + " WHERE COUNT(a.x) > 1", "WHERE", "COUNT(a.x)"),
        Arguments.of(OK + " WHERE c.x = 1", "WHERE", "c.x"),
        Arguments.of(OK + " WHERE a.t.x = 1", "WHERE", "a.t.x"));
  }

  @ParameterizedTest(name = "{1}: {0}")
  @MethodSource("rejected")
  void rejectedWithClauseAndOffendingText(String sql, String clause, String text) {
    QueryException e = assertThrows(QueryException.class, () -> JoinQuery.parse(sql));
    assertEquals(clause, e.clause(), e.getMessage());
    assertTrue(e.getMessage().startsWith(clause + ": "), e.getMessage());
    assertNotNull(e.offendingText(), e.getMessage());
    assertTrue(
        e.offendingText().contains(text),
        "offending text should contain [" + text + "]: " + e.getMessage());
    assertTrue(
        e.getMessage()
            .contains(
                "(at line "
                    + e.line()
                    + ", column "
                    + e.column()
                    + ": `"
                    + e.offendingText()
                    + "`)"),
        e.getMessage());
  }

  @Test
  void messagesSayWhatIsWrong() {
    assertMessage("SELECT a.\"k\" FROM a JOIN b ON a.k = b.k", "backticks");
    assertMessage("SELECT a.k FROM a RIGHT JOIN b ON a.k = b.k", "outside the intersection");
    assertMessage("SELECT COUNT(*) FROM a JOIN b ON a.k = b.k", "COUNT(DISTINCT");
    assertMessage("SELECT SUM(a.x) FROM a JOIN b ON a.k = b.k", "aggregate");
    assertMessage("SELECT a.k FROM a AS x JOIN b ON x.k = b.k", "table a is called x");
    assertMessage(OK + " WHERE a.x = 1 OR b.y = 2", "both a and b");
    assertMessage(OK + " WHERE 1 = 1", "uses no column");
    assertMessage("SELECT a.k FROM a JOIN b ON a.k = a.j", "two columns of table a");
  }

  @Test
  void positionsAreLineAndColumnOfTheOffendingText() {
    QueryException e =
        assertThrows(
            QueryException.class,
            () ->
                JoinQuery.parse(
                    "SELECT a.k\nFROM a JOIN b ON a.k = b.k\nWHERE a.x > 1\n  AND\ta.y < b.z"));
    assertEquals("WHERE", e.clause());
    assertEquals(4, e.line());
    assertEquals(7, e.column()); // Calcite counts a tab as one column
    assertEquals("a.y < b.z", e.offendingText());
    assertEquals(
        "WHERE: this condition uses columns of both a and b; each AND-ed condition may"
            + " use the columns of only one table (equalities between the tables belong in ON)"
            + " (at line 4, column 7: `a.y < b.z`)",
        e.getMessage());
  }

  private static void assertMessage(String sql, String fragment) {
    QueryException e = assertThrows(QueryException.class, () -> JoinQuery.parse(sql));
    assertTrue(e.getMessage().contains(fragment), e.getMessage());
  }

  // ---------------------------------------------------------------- fingerprint

  @Test
  void fingerprintIgnoresWhitespaceCaseCommentsAndSpelling() throws Exception {
    String fp = JoinQuery.parse(DESIGN).fingerprint();
    for (String same :
        List.of(
            "select b.email_domain,a.spend from a join b on a.card=b.card and a.zip=b.zip"
                + " where a.spend>23 and b.country='DE'",
            "SELECT\n  b.email_domain,\n  a.spend -- what B reveals, what A reveals\nFROM a\n"
                + "  INNER JOIN b ON (a.card = b.card) AND b.zip = a.zip\n"
                + "/* filters */ WHERE (a.spend > 23) AND (b.country = 'DE')",
            "SELECT y.email_domain, x.spend FROM a x JOIN b AS y ON x.card = y.card"
                + " AND x.zip = y.zip WHERE x.spend > 23 AND y.country = 'DE'")) {
      assertEquals(fp, JoinQuery.parse(same).fingerprint(), same);
    }
    assertEquals(
        JoinQuery.parse(OK + " WHERE upper(b.s) = 'X'").fingerprint(),
        JoinQuery.parse(OK + " WHERE UPPER(b.s) = 'X'").fingerprint());
    assertEquals(
        JoinQuery.parse(OK + " WHERE split_index(b.s, ',', 0) = 'X'").fingerprint(),
        JoinQuery.parse(OK + " WHERE SPLIT_INDEX(b.s, ',', 0) = 'X'").fingerprint());
  }

  @Test
  void fingerprintChangesWithMeaning() throws Exception {
    String fp = JoinQuery.parse(DESIGN).fingerprint();
    for (String other :
        List.of(
            DESIGN.replace("23", "24"),
            DESIGN.replace("'DE'", "'de'"),
            DESIGN.replace("> 23", ">= 23"),
            DESIGN.replace("b.email_domain", "b.country"),
            DESIGN.replace("b.email_domain", "b.email_domain AS d"),
            DESIGN.replace("SELECT b.email_domain, a.spend", "SELECT a.spend, b.email_domain"),
            DESIGN.replace(" AND a.zip = b.zip", ""),
            DESIGN.replace(" AND b.country = 'DE'", ""),
            DESIGN.replace("a.spend > 23", "a.zip > 23"),
            DESIGN.replace("a.spend > 23", "spend > 23"))) {
      assertNotEquals(fp, JoinQuery.parse(other).fingerprint(), other);
    }
    assertNotEquals(
        JoinQuery.parse(OK + " WHERE b.s = 'a b'").fingerprint(),
        JoinQuery.parse(OK + " WHERE b.s = 'a  b'").fingerprint());
    assertNotEquals(
        JoinQuery.parse(OK + " WHERE b.s = 'x'").fingerprint(),
        JoinQuery.parse(OK + " WHERE a.s = 'x'").fingerprint());
  }

  @Test
  void serializable() throws Exception {
    JoinQuery q = JoinQuery.parse(DESIGN);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(q);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      JoinQuery back = (JoinQuery) in.readObject();
      assertEquals(q, back);
      assertEquals(q.fingerprint(), back.fingerprint());
      assertEquals(q.parsed(), back.parsed());
    }
  }
}
