package io.psiflink.query;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The registered columns against a table's: added, missing and retyped columns are named. */
class ExpectedColumnsTest {
  @TempDir Path dir;

  @Test
  void missingAndRetypedColumnsAreNamedToo() {
    List<Column> registered =
        List.of(
            new Column("k", ColumnType.BIGINT, true),
            new Column("email", ColumnType.STRING, true),
            new Column("age", ColumnType.INT, true));
    io.psiflink.api.TableSchema found =
        new io.psiflink.api.TableSchema(
            List.of(
                new Column("k", ColumnType.STRING, true),
                new Column("email", ColumnType.STRING, true)));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ExpectedColumns.check(registered, found, "of party A"));
    assertTrue(
        e.getMessage()
            .contains(
                "column 'k' changed its type from BIGINT to STRING; "
                    + "column 'age' (INT) is missing"),
        e.getMessage());
    ExpectedColumns.check(
        registered.subList(1, 2),
        new io.psiflink.api.TableSchema(List.of(new Column("email", ColumnType.STRING, false))),
        "of party A");
  }
}
