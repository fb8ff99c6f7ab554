package io.psiflink.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Resolution against both schemas, and each party's view from its own schema only. */
class JoinQueryResolveTest {
  static final TableSchema A =
      schema(
          "card",
          ColumnType.STRING,
          "zip",
          ColumnType.INT,
          "spend",
          ColumnType.DOUBLE,
          "email",
          ColumnType.STRING,
          "home city",
          ColumnType.STRING);
  static final TableSchema B =
      schema(
          "card",
          ColumnType.STRING,
          "zip",
          ColumnType.BIGINT,
          "email_domain",
          ColumnType.STRING,
          "country",
          ColumnType.STRING,
          "email",
          ColumnType.STRING,
          "score",
          ColumnType.FLOAT);

  static TableSchema schema(Object... nameType) {
    Column[] cols = new Column[nameType.length / 2];
    for (int i = 0; i < cols.length; i++) {
      cols[i] = new Column((String) nameType[2 * i], (ColumnType) nameType[2 * i + 1], true);
    }
    return new TableSchema(Arrays.asList(cols));
  }

  static ResolvedJoin resolve(String sql) throws QueryException {
    return JoinQuery.parse(sql).resolve(A, B);
  }

  static QueryException resolveFails(String sql) {
    return assertThrows(QueryException.class, () -> resolve(sql));
  }

  /** resolve() succeeds and its views are exactly what each party computes alone. */
  static ResolvedJoin resolveAndCompareViews(String sql) throws QueryException {
    JoinQuery q = JoinQuery.parse(sql);
    ResolvedJoin r = q.resolve(A, B);
    assertEquals(q.view(Role.A, A), r.a());
    assertEquals(q.view(Role.B, B), r.b());
    assertEquals(r.a(), r.view(Role.A));
    // What each party does in a job: resolve against its schema and the columns the peer names.
    assertEquals(r, q.resolve(A, named(B, r.b())));
    assertEquals(r, q.resolve(named(A, r.a()), B));
    return r;
  }

  /** The columns of {@code schema} a view names, in table order: what a party sends its peer. */
  static TableSchema named(TableSchema schema, PartyView v) {
    return new TableSchema(
        schema.columns().stream()
            .filter(
                c -> v.neededColumns().contains(c.name()) || v.filterColumns().contains(c.name()))
            .toList());
  }

  @Test
  void designExample() throws Exception {
    ResolvedJoin r = resolveAndCompareViews(JoinQueryParseTest.DESIGN);
    assertEquals(List.of(new KeyPair("card", "card"), new KeyPair("zip", "zip")), r.on());
    assertEquals(
        List.of(
            new OutputColumn(Role.B, "email_domain", "email_domain"),
            new OutputColumn(Role.A, "spend", "spend")),
        r.output());
    assertEquals(
        new PartyView(
            Role.A,
            List.of("card", "zip"),
            List.of("spend"),
            "`spend` > 23",
            List.of("spend"),
            List.of("card", "zip", "spend"),
            JoinKind.INNER,
            List.of(JoinKey.column("card"), JoinKey.column("zip")),
            List.of()),
        r.a());
    assertEquals(
        new PartyView(
            Role.B,
            List.of("card", "zip"),
            List.of("email_domain"),
            "`country` = 'DE'",
            List.of("country"),
            List.of("card", "zip", "email_domain"),
            JoinKind.INNER,
            List.of(JoinKey.column("card"), JoinKey.column("zip")),
            List.of()),
        r.b());
  }

  @Test
  void aliasesReversedOnAndSeveralConjunctsPerSide() throws Exception {
    ResolvedJoin r =
        resolveAndCompareViews(
            "SELECT y.country AS c, x.`home city`"
                + " FROM a AS x JOIN b AS y ON y.zip = x.zip AND x.card = y.card"
                + " WHERE x.spend BETWEEN 1 AND 5 AND (x.`home city` LIKE 'B%' OR x.email IS NULL)"
                + " AND y.score > 0.5");
    assertEquals(List.of(new KeyPair("zip", "zip"), new KeyPair("card", "card")), r.on());
    assertEquals(
        List.of(
            new OutputColumn(Role.B, "country", "c"),
            new OutputColumn(Role.A, "home city", "home city")),
        r.output());
    assertEquals(List.of("zip", "card"), r.a().keyColumns());
    assertEquals(
        "(`spend` BETWEEN ASYMMETRIC 1 AND 5) AND (`home city` LIKE 'B%' OR `email` IS NULL)",
        r.a().wherePredicate());
    assertEquals(List.of("card", "zip", "home city"), r.a().neededColumns());
    assertEquals("`score` > 0.5", r.b().wherePredicate());
    assertEquals(List.of("card", "zip", "country"), r.b().neededColumns());
  }

  @Test
  void unqualifiedNamesResolveToTheTableThatHasThem() throws Exception {
    ResolvedJoin r =
        resolveAndCompareViews(
            "SELECT spend, email_domain, `home city`"
                + " FROM a JOIN b ON a.card = b.card WHERE spend > 1 AND country = 'DE'");
    assertEquals(
        List.of(Role.A, Role.B, Role.A), r.output().stream().map(OutputColumn::side).toList());
    assertEquals("`spend` > 1", r.a().wherePredicate());
    assertEquals("`country` = 'DE'", r.b().wherePredicate());
  }

  @Test
  void starsExpandInTableOrderAndRepeatedNamesGetTheTablePrefix() throws Exception {
    ResolvedJoin r = resolveAndCompareViews("SELECT * FROM a JOIN b ON a.card = b.card");
    assertEquals(
        List.of(
            "card",
            "zip",
            "spend",
            "email",
            "home city",
            "b_card",
            "b_zip",
            "email_domain",
            "country",
            "b_email",
            "score"),
        r.output().stream().map(OutputColumn::outputName).toList());
    assertEquals(new OutputColumn(Role.B, "email", "b_email"), r.output().get(9));
    assertEquals(A.names(), r.a().revealedColumns());
    assertEquals(B.names(), r.b().neededColumns());

    r =
        resolveAndCompareViews(
            "SELECT b.*, a.email, a.spend AS country_spend, a.card AS k"
                + " FROM a JOIN b ON a.card = b.card");
    assertEquals(
        List.of(
            "card",
            "zip",
            "email_domain",
            "country",
            "email",
            "score",
            "a_email",
            "country_spend",
            "k"),
        r.output().stream().map(OutputColumn::outputName).toList());
    assertEquals(List.of("email", "spend", "card"), r.a().revealedColumns());
    assertEquals(List.of("card", "spend", "email"), r.a().neededColumns());
  }

  @Test
  void outputNameCollisions() throws Exception {
    ResolvedJoin r =
        resolveAndCompareViews(
            "SELECT a.email, b.email, a.email, b.country AS email_2 FROM a JOIN b ON a.card = b.card");
    assertEquals(
        List.of("email", "b_email", "a_email", "email_2"),
        r.output().stream().map(OutputColumn::outputName).toList());
    assertEquals(List.of("email"), r.a().revealedColumns());

    QueryException e =
        resolveFails("SELECT a.email AS e, b.email AS e FROM a JOIN b ON a.card = b.card");
    assertEquals("SELECT", e.clause());
    assertEquals("b.email AS e", e.offendingText());
    assertTrue(e.getMessage().contains("output name e is used twice"), e.getMessage());

    e = resolveFails("SELECT a.card, b.email AS card FROM a JOIN b ON a.card = b.card");
    assertEquals("b.email AS card", e.offendingText());

    TableSchema a2 =
        schema("k", ColumnType.INT, "email", ColumnType.STRING, "b_email", ColumnType.STRING);
    e =
        assertThrows(
            QueryException.class,
            () ->
                JoinQuery.parse("SELECT a.email, b.email, a.b_email FROM a JOIN b ON a.k = b.zip")
                    .resolve(a2, B));
    assertEquals("SELECT", e.clause());
    assertEquals("a.b_email", e.offendingText());
    assertTrue(e.getMessage().contains("output name b_email is used twice"), e.getMessage());
  }

  @Test
  void repeatedKeyColumnsKeepOnePositionPerEquality() throws Exception {
    ResolvedJoin r =
        resolveAndCompareViews(
            "SELECT b.country FROM a JOIN b ON a.card = b.card AND a.card = b.email");
    assertEquals(List.of("card", "card"), r.a().keyColumns());
    assertEquals(List.of("card", "email"), r.b().keyColumns());
    assertEquals(List.of("card"), r.a().neededColumns());
    assertEquals(List.of(), r.a().revealedColumns());
    assertEquals("", r.a().wherePredicate());
    assertEquals(List.of("card", "country", "email"), r.b().neededColumns());
  }

  @Test
  void unknownColumnsListTheAvailableOnes() {
    QueryException e = resolveFails("SELECT a.nope FROM a JOIN b ON a.card = b.card");
    assertEquals("SELECT", e.clause());
    assertEquals("a.nope", e.offendingText());
    assertTrue(
        e.getMessage()
            .contains(
                "table a has no column nope; its columns are"
                    + " [card, zip, spend, email, home city]"),
        e.getMessage());

    e = resolveFails("SELECT x.spend FROM a AS x JOIN b ON x.card = b.card WHERE x.spnd > 1");
    assertEquals("WHERE", e.clause());
    assertEquals("x.spnd", e.offendingText());
    assertTrue(e.getMessage().contains("table a (x) has no column spnd"), e.getMessage());

    e = resolveFails("SELECT a.spend FROM a JOIN b ON a.card = b.kard");
    assertEquals("ON", e.clause());
    assertTrue(e.getMessage().contains(B.names().toString()), e.getMessage());

    e = resolveFails("SELECT nope FROM a JOIN b ON a.card = b.card");
    assertEquals("SELECT", e.clause());
    assertTrue(
        e.getMessage()
            .contains(
                "no column nope in a or b; a has columns "
                    + A.names()
                    + ", b has columns "
                    + B.names()),
        e.getMessage());
  }

  @Test
  void ambiguousUnqualifiedNames() throws Exception {
    QueryException e = resolveFails("SELECT email FROM a JOIN b ON a.card = b.card");
    assertEquals("SELECT", e.clause());
    assertEquals("email", e.offendingText());
    assertTrue(e.getMessage().contains("column email is ambiguous"), e.getMessage());

    e = resolveFails("SELECT spend FROM a JOIN b ON card = card");
    assertEquals("ON", e.clause());
    assertTrue(e.getMessage().contains("ambiguous"), e.getMessage());

    e = resolveFails("SELECT spend FROM a JOIN b ON a.card = b.card WHERE zip > 5");
    assertEquals("WHERE", e.clause());

    // Alone, each party takes the unqualified email for its own; the columns the peer names
    // (sent in the handshake) are enough for either party to see the ambiguity.
    JoinQuery q =
        JoinQuery.parse("SELECT spend FROM a JOIN b ON a.card = b.card WHERE email <> 'x'");
    assertEquals(List.of("email"), q.view(Role.A, A).filterColumns());
    assertEquals(List.of("email"), q.view(Role.B, B).filterColumns());
    TableSchema namedByB = named(B, q.view(Role.B, B));
    TableSchema namedByA = named(A, q.view(Role.A, A));
    e = assertThrows(QueryException.class, () -> q.resolve(A, namedByB));
    assertTrue(e.getMessage().contains("column email is ambiguous"), e.getMessage());
    e = assertThrows(QueryException.class, () -> q.resolve(namedByA, B));
    assertTrue(e.getMessage().contains("column email is ambiguous"), e.getMessage());
  }

  @Test
  void onColumnsMustCompare() throws Exception {
    QueryException e = resolveFails("SELECT a.spend FROM a JOIN b ON a.zip = b.card");
    assertEquals("ON", e.clause());
    assertEquals("a.zip = b.card", e.offendingText());
    assertTrue(
        e.getMessage()
            .startsWith("ON: a.zip (INT) = b.card (STRING): types do not compare (at line 1"),
        e.getMessage());

    e = resolveFails("SELECT a.spend FROM a JOIN b ON a.card = b.card AND b.zip = a.spend");
    assertTrue(
        e.getMessage().startsWith("ON: a.spend (DOUBLE) = b.zip (BIGINT): types do not compare"),
        e.getMessage());

    // INT and BIGINT share the integer key class; FLOAT and DOUBLE the floating one.
    assertEquals(
        List.of(new KeyPair("zip", "zip"), new KeyPair("spend", "score")),
        resolve("SELECT a.spend FROM a JOIN b ON a.zip = b.zip AND a.spend = b.score").on());
  }

  @Test
  void unqualifiedOnColumnsAreResolvedToo() throws Exception {
    ResolvedJoin r =
        resolveAndCompareViews("SELECT spend FROM a JOIN b ON email_domain = `home city`");
    assertEquals(List.of(new KeyPair("home city", "email_domain")), r.on());
    QueryException e = resolveFails("SELECT spend FROM a JOIN b ON spend = `home city`");
    assertEquals("ON", e.clause());
    assertTrue(e.getMessage().contains("both columns are in table a"), e.getMessage());
  }

  @Test
  void conditionsThatTurnOutToMixTablesAreRejected() throws Exception {
    String sql = "SELECT spend FROM a JOIN b ON a.card = b.card WHERE spend > CHAR_LENGTH(country)";
    QueryException e = resolveFails(sql);
    assertEquals("WHERE", e.clause());
    assertEquals("spend > CHAR_LENGTH(country)", e.offendingText());
    JoinQuery q = JoinQuery.parse(sql);
    assertEquals("WHERE", assertThrows(QueryException.class, () -> q.view(Role.A, A)).clause());
    assertEquals("WHERE", assertThrows(QueryException.class, () -> q.view(Role.B, B)).clause());
  }

  @Test
  void eachPartyViewsTheQueryFromItsOwnSchema() throws Exception {
    JoinQuery q =
        JoinQuery.parse(
            "SELECT y.email_domain, spend, x.email"
                + " FROM a x JOIN b y ON x.card = y.card AND x.zip = y.zip"
                + " WHERE spend > 23 AND x.`home city` <> 'Köln' AND country IN ('DE', 'AT')");
    PartyView a = q.view(Role.A, A);
    assertEquals(
        new PartyView(
            Role.A,
            List.of("card", "zip"),
            List.of("spend", "email"),
            "(`spend` > 23) AND (`home city` <> 'Köln')",
            List.of("spend", "home city"),
            List.of("card", "zip", "spend", "email"),
            JoinKind.INNER,
            List.of(JoinKey.column("card"), JoinKey.column("zip")),
            List.of()),
        a);
    PartyView b = q.view(Role.B, B);
    assertEquals(
        new PartyView(
            Role.B,
            List.of("card", "zip"),
            List.of("email_domain"),
            "`country` IN ('DE', 'AT')",
            List.of("country"),
            List.of("card", "zip", "email_domain"),
            JoinKind.INNER,
            List.of(JoinKey.column("card"), JoinKey.column("zip")),
            List.of()),
        b);

    // A party only checks references to its own table: B does not know A's columns.
    JoinQuery typo = JoinQuery.parse("SELECT a.nope, b.country FROM a JOIN b ON a.card = b.card");
    QueryException e = assertThrows(QueryException.class, () -> typo.view(Role.A, A));
    assertEquals("SELECT", e.clause());
    assertTrue(e.getMessage().contains(A.names().toString()), e.getMessage());
    assertEquals(List.of("country"), typo.view(Role.B, B).revealedColumns());

    // An unqualified name missing from a party's schema is the other party's.
    JoinQuery other = JoinQuery.parse("SELECT mystery FROM a JOIN b ON a.card = b.card");
    assertEquals(List.of(), other.view(Role.A, A).revealedColumns());
    assertEquals(List.of(), other.view(Role.B, B).revealedColumns());
    e = assertThrows(QueryException.class, () -> other.resolve(A, B));
    assertTrue(e.getMessage().contains("no column mystery in a or b"), e.getMessage());

    // ON zip = b.zip is ambiguous for resolve(); B alone sees two columns of its own.
    JoinQuery ambiguous = JoinQuery.parse("SELECT a.spend FROM a JOIN b ON zip = b.zip");
    assertEquals(List.of("zip"), ambiguous.view(Role.A, A).keyColumns());
    e = assertThrows(QueryException.class, () -> ambiguous.view(Role.B, B));
    assertTrue(e.getMessage().contains("both columns are in table b"), e.getMessage());
    assertTrue(
        assertThrows(QueryException.class, () -> ambiguous.resolve(A, B))
            .getMessage()
            .contains("column zip is ambiguous"));

    JoinQuery noKey = JoinQuery.parse("SELECT a.spend FROM a JOIN b ON kx = ky");
    e = assertThrows(QueryException.class, () -> noKey.view(Role.A, A));
    assertEquals("ON", e.clause());
    assertTrue(
        e.getMessage().contains("neither side of this equality is a column of a"), e.getMessage());
  }

  @Test
  void countOfDistinctKeys() throws Exception {
    String on = " FROM a JOIN b ON a.card = b.card AND a.zip = b.zip WHERE b.country = 'DE'";
    ResolvedJoin r = resolveAndCompareViews("SELECT COUNT(DISTINCT a.zip, a.card) AS n" + on);
    assertTrue(r.query().countOnly());
    assertEquals("n", r.count());
    assertEquals(List.of(), r.output());
    assertEquals(List.of(), r.a().revealedColumns()); // nothing but the count leaves either party
    assertEquals(List.of(), r.b().revealedColumns());
    assertEquals("count", resolve("select count(distinct b.card, b.zip)" + on).count());
    assertEquals(null, resolve("SELECT a.card" + on).count());
    // a count and a row query differ, so the parties' fingerprints catch a mismatch
    assertTrue(
        !JoinQuery.parse("SELECT COUNT(DISTINCT a.card, a.zip)" + on)
            .fingerprint()
            .equals(JoinQuery.parse("SELECT a.card, a.zip" + on).fingerprint()));

    for (String bad :
        List.of(
            "SELECT COUNT(*)",
            "SELECT COUNT(a.card)",
            "SELECT COUNT(DISTINCT a.card, a.zip), a.spend",
            "SELECT COUNT(DISTINCT a.card + 1)")) {
      QueryException e = assertThrows(QueryException.class, () -> JoinQuery.parse(bad + on), bad);
      assertEquals("SELECT", e.clause(), bad);
    }
    for (String bad :
        List.of(
            "SELECT COUNT(DISTINCT a.card)",
            "SELECT COUNT(DISTINCT a.card, b.zip)",
            "SELECT COUNT(DISTINCT a.card, a.spend)")) {
      QueryException e = resolveFails(bad + on);
      assertTrue(e.getMessage().contains("join key columns of one table"), e.getMessage());
    }
  }
}
