package io.psiflink.jobs.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link JoinQuery#references}: where a query names a column, for callers' error messages. */
class JoinQueryReferencesTest {
  static List<String> texts(JoinQuery q, Side side, String column, String clause) {
    return q.references(side, column, clause).stream().map(SourceSpan::text).toList();
  }

  @Test
  void findsQualifiedUnqualifiedAndStarReferences() throws QueryException {
    JoinQuery q = JoinQuery.parse("SELECT x.spend, email, b.*\nFROM a AS x JOIN b"
        + " ON x.card = b.card AND b.zip = x.zip WHERE x.spend > 1 AND b.country = 'DE'");
    assertEquals(List.of("x.spend"), texts(q, Side.A, "spend", "SELECT"));
    assertEquals(List.of("email", "b.*"), texts(q, Side.B, "email", "SELECT"));
    assertEquals(List.of("email"), texts(q, Side.A, "email", "SELECT"));
    assertEquals(List.of("b.zip"), texts(q, Side.B, "zip", "ON"));
    assertEquals(List.of("x.zip"), texts(q, Side.A, "zip", "ON"));
    assertEquals(List.of("b.country"), texts(q, Side.B, "country", "WHERE"));
    assertEquals(List.of(), texts(q, Side.A, "country", "WHERE"));
    SourceSpan span = q.references(Side.B, "card", "ON").get(0);
    assertEquals(2, span.line());
    assertEquals(List.of(), texts(q, Side.A, "nothing", "ON"));
    assertThrows(IllegalArgumentException.class, () -> q.references(Side.A, "spend", "FROM"));
  }

  @Test
  void anExceptionAtASpanNamesIt() throws QueryException {
    JoinQuery q = JoinQuery.parse("SELECT b.card FROM a JOIN b ON a.card = b.card");
    SourceSpan at = q.references(Side.B, "card", "SELECT").get(0);
    QueryException e = new QueryException("SELECT", "not allowed", at);
    assertEquals("SELECT: not allowed (at line 1, column 8: `b.card`)", e.getMessage());
    assertEquals("SELECT: not allowed", new QueryException("SELECT", "not allowed",
        (SourceSpan) null).getMessage());
  }
}
