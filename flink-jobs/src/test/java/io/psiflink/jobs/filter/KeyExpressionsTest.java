package io.psiflink.jobs.filter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import io.psiflink.query.JoinKey;
import io.psiflink.query.JoinQuery;
import io.psiflink.query.QueryException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The types Flink gives key expressions, as the handshake compares them, and the refusals. */
class KeyExpressionsTest {
  static final TableSchema A =
      new TableSchema(
          List.of(
              new Column("id", ColumnType.BIGINT, false),
              new Column("email", ColumnType.STRING, true),
              new Column("n", ColumnType.INT, true),
              new Column("raw", ColumnType.BYTES, true)));

  static List<JoinKey> keysOf(String on) throws QueryException {
    return JoinQuery.parse("SELECT a.id FROM a JOIN b ON " + on).view(Role.A, A).keys();
  }

  @Test
  void expressionTypesAreMappedToKeyTypes() throws Exception {
    List<JoinKey> keys =
        keysOf(
            "LOWER(TRIM(a.email)) = b.e AND a.id = b.id AND CHAR_LENGTH(a.email) = b.l"
                + " AND CAST(a.n AS TINYINT) = b.t AND a.email || 'x' = b.s"
                + " AND a.n * 2.5e0 = b.d AND a.n > 3 = b.flag AND CAST(a.id AS STRING) = b.c");
    List<Column> cols = KeyExpressions.columns(A, keys);
    assertEquals(
        List.of(
            ColumnType.STRING,
            ColumnType.BIGINT,
            ColumnType.INT,
            ColumnType.INT,
            ColumnType.STRING,
            ColumnType.DOUBLE,
            ColumnType.BOOLEAN,
            ColumnType.STRING),
        cols.stream().map(Column::type).toList());
    assertEquals("id", cols.get(1).name()); // a column key keeps its column
    assertEquals("LOWER(TRIM(BOTH ' ' FROM `email`))", cols.get(0).name());
    // computed keys follow the schema's columns; a column key stays where it is
    assertArrayEquals(new int[] {4, 0, 5, 6, 7, 8, 9, 10}, KeyExpressions.fields(A, keys));
  }

  @Test
  void substringAndCoalesceAsFlinkReadsThem() throws Exception {
    List<JoinKey> keys =
        keysOf(
            "SUBSTRING(a.email FROM 2 FOR 3) = b.x AND COALESCE(a.email, '') = b.y"
                + " AND SUBSTRING(a.email, 1, 2) = b.z AND COALESCE(a.n, 0) = b.w");
    assertEquals(
        List.of(ColumnType.STRING, ColumnType.STRING, ColumnType.STRING, ColumnType.INT),
        KeyExpressions.columns(A, keys).stream().map(Column::type).toList());
  }

  @Test
  void unicodeNormalisationFunctionsAreStringKeys() throws Exception {
    assertEquals(
        List.of(ColumnType.STRING, ColumnType.STRING, ColumnType.STRING),
        KeyExpressions.columns(
                A,
                keysOf("NFC(a.email) = b.x AND nfkd(LOWER(a.email)) = b.y AND NFD(a.email) = b.z"))
            .stream()
            .map(Column::type)
            .toList());
  }

  @Test
  void aKeyTypeThatCannotBeTokenizedIsRefusedSayingToCast() throws Exception {
    QueryException e =
        assertThrows(
            QueryException.class,
            () -> KeyExpressions.columns(A, keysOf("CAST(a.n AS DECIMAL(10, 2)) = b.k")));
    assertEquals("ON", e.clause());
    assertTrue(e.getMessage().contains("DECIMAL(10, 2)"), e.getMessage());
    assertTrue(e.getMessage().contains("CAST it"), e.getMessage());
  }

  @Test
  void anExpressionFlinkCannotEvaluateIsRefused() throws Exception {
    QueryException e =
        assertThrows(
            QueryException.class,
            () -> KeyExpressions.columns(A, keysOf("NO_SUCH_FUNCTION(a.email) = b.k")));
    assertEquals("ON", e.clause());
    assertTrue(e.getMessage().contains("NO_SUCH_FUNCTION"), e.getMessage());
  }
}
