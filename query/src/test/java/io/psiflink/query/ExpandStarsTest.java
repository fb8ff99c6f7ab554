package io.psiflink.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Stars expanded in the query text against given schemas (what a coordinator registered). */
class ExpandStarsTest {
  private static final TableSchema A =
      new TableSchema(
          List.of(
              new Column("id", ColumnType.BIGINT, false),
              new Column("k", ColumnType.STRING, true)));
  private static final TableSchema B =
      new TableSchema(
          List.of(
              new Column("k", ColumnType.STRING, true),
              new Column("id", ColumnType.BIGINT, true),
              new Column("e-mail", ColumnType.STRING, true)));

  @Test
  void aStarBecomesTheRegisteredColumnsWithTheSameOutputNames() throws Exception {
    String sql = "SELECT a.id, y.* FROM a JOIN b AS y ON a.k = y.k WHERE y.id > 3";
    String expanded = JoinQuery.parse(sql).expandStars(A, B);
    assertEquals(
        "SELECT a.id, `y`.`k`, `y`.`id` AS `b_id`, `y`.`e-mail` FROM a JOIN b "
            + "AS y ON a.k = y.k WHERE y.id > 3",
        expanded);
    // the expanded query means the same against the same schemas: same output columns
    assertEquals(
        JoinQuery.parse(sql).resolve(A, B).output(),
        JoinQuery.parse(expanded).resolve(A, B).output());
    // and it no longer depends on what the table has later: a column added to b stays out
    TableSchema grown =
        new TableSchema(
            List.of(
                new Column("k", ColumnType.STRING, true),
                new Column("id", ColumnType.BIGINT, true),
                new Column("e-mail", ColumnType.STRING, true),
                new Column("ssn", ColumnType.STRING, true)));
    assertEquals(3, JoinQuery.parse(expanded).resolve(A, grown).output().size() - 1);
    assertNotEquals(JoinQuery.parse(sql).fingerprint(), JoinQuery.parse(expanded).fingerprint());
  }

  @Test
  void bareStarAndNoStar() throws Exception {
    assertEquals(
        "SELECT `a`.`id`, `a`.`k`, `b`.`k` AS `b_k`, `b`.`id` AS `b_id`, "
            + "`b`.`e-mail`\nFROM a JOIN b ON a.k = b.k",
        JoinQuery.parse("SELECT *\nFROM a JOIN b ON a.k = b.k").expandStars(A, B));
    String plain = "SELECT a.id FROM a JOIN b ON a.k = b.k";
    assertEquals(plain, JoinQuery.parse(plain).expandStars(A, B));
  }
}
