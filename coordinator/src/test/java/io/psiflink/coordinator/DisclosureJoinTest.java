package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.JoinMode;
import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import io.psiflink.query.JoinQuery;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The approval shows the join kind and the key expressions each party computes. */
class DisclosureJoinTest {
  static final TableSchema A =
      new TableSchema(
          List.of(
              new Column("email", ColumnType.STRING, true),
              new Column("spend", ColumnType.DOUBLE, true)));
  static final TableSchema B =
      new TableSchema(
          List.of(
              new Column("mail", ColumnType.STRING, true),
              new Column("country", ColumnType.STRING, true)));

  static Disclosure of(String sql) throws Exception {
    return of(sql, JoinMode.BOTH, null);
  }

  static Disclosure of(String sql, JoinMode mode, Integer labelBytes) throws Exception {
    return Disclosure.of(
        Role.B,
        JoinQuery.parse(sql).resolve(A, B),
        mode,
        labelBytes,
        Model.Prefiltering.NONE,
        null,
        "mine",
        "rounded",
        "theirs",
        "exact");
  }

  @Test
  void leftJoinOnAnExpression() throws Exception {
    Disclosure d =
        of(
            "SELECT a.spend, b.country FROM a LEFT JOIN b ON LOWER(TRIM(a.email)) ="
                + " LOWER(TRIM(b.mail))");
    assertEquals("left join", d.join());
    assertEquals(
        List.of(
            "(LOWER(TRIM(BOTH ' ' FROM `email`)) of a) = (LOWER(TRIM(BOTH ' ' FROM `mail`)) of"
                + " b)"),
        d.keys());
    assertEquals(List.of("country"), d.peerLearnsAboutMine().columns());
    assertTrue(d.summary().startsWith("A left join on (LOWER("), d.summary());
  }

  @Test
  void antiJoinSendsNoColumnOfBAndSaysHowItWasRead() throws Exception {
    Disclosure d = of("SELECT a.spend FROM a LEFT JOIN b ON a.email = b.mail WHERE b.mail IS NULL");
    assertEquals("anti-join", d.join());
    assertEquals(List.of("a.email = b.mail"), d.keys());
    assertEquals(List.of(), d.peerLearnsAboutMine().columns());
    assertTrue(d.notes().get(0).contains("anti-join"), d.notes().toString());
    assertEquals(
        "semi-join", of("SELECT a.spend FROM a WHERE a.email IN (SELECT b.mail FROM b)").join());
  }

  /** The summary names the join first, then the mode and what it means. */
  @Test
  void theSummarySaysTheJoinThenTheMode() throws Exception {
    Disclosure d =
        of(
            "SELECT a.spend, b.country FROM a LEFT JOIN b ON a.email = b.mail",
            JoinMode.LABELED,
            96);
    assertTrue(
        d.summary().startsWith("A left join on a.email = b.mail. Mode labeled: B learns"),
        d.summary());
    assertEquals(96, d.labelBytes());
  }
}
