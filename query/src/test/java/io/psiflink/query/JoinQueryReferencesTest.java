package io.psiflink.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.psiflink.api.Role;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link JoinQuery#references}: where a query names a column, for callers' error messages. */
class JoinQueryReferencesTest {
  static List<String> texts(JoinQuery q, Role side, String column, String clause) {
    return q.references(side, column, clause).stream().map(SourceSpan::text).toList();
  }

  @Test
  void findsQualifiedUnqualifiedAndStarReferences() throws QueryException {
    JoinQuery q =
        JoinQuery.parse(
            "SELECT x.spend, email, b.*\nFROM a AS x JOIN b"
                + " ON x.card = b.card AND b.zip = x.zip WHERE x.spend > 1 AND b.country = 'DE'");
    assertEquals(List.of("x.spend"), texts(q, Role.A, "spend", "SELECT"));
    assertEquals(List.of("email", "b.*"), texts(q, Role.B, "email", "SELECT"));
    assertEquals(List.of("email"), texts(q, Role.A, "email", "SELECT"));
    assertEquals(List.of("b.zip"), texts(q, Role.B, "zip", "ON"));
    assertEquals(List.of("x.zip"), texts(q, Role.A, "zip", "ON"));
    assertEquals(List.of("b.country"), texts(q, Role.B, "country", "WHERE"));
    assertEquals(List.of(), texts(q, Role.A, "country", "WHERE"));
    SourceSpan span = q.references(Role.B, "card", "ON").get(0);
    assertEquals(2, span.line());
    assertEquals(List.of(), texts(q, Role.A, "nothing", "ON"));
    assertThrows(IllegalArgumentException.class, () -> q.references(Role.A, "spend", "FROM"));
  }

  @Test
  void anExceptionAtASpanNamesIt() throws QueryException {
    JoinQuery q = JoinQuery.parse("SELECT b.card FROM a JOIN b ON a.card = b.card");
    SourceSpan at = q.references(Role.B, "card", "SELECT").get(0);
    QueryException e = new QueryException("SELECT", "not allowed", at);
    assertEquals("SELECT: not allowed (at line 1, column 8: `b.card`)", e.getMessage());
    assertEquals(
        "SELECT: not allowed",
        new QueryException("SELECT", "not allowed", (SourceSpan) null).getMessage());
  }
}
