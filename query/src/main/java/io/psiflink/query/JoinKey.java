package io.psiflink.query;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * One side of one join-key equality: a column of the party's table, or an expression over its
 * columns that the party evaluates with Flink SQL on its own rows before tokenizing ({@code
 * LOWER(TRIM(a.email))}). Keys compare by SQL equality of their values: a string key is its UTF-8
 * bytes, unnormalised; a NULL key never matches.
 *
 * @param name the column's name for a column key, else the expression's Flink SQL text; names the
 *     key in messages and in the job's handshake
 * @param flinkSql the Flink SQL text of the key, identifiers unqualified and backtick-quoted
 *     ({@code `email`} or {@code LOWER(TRIM(`email`))}), evaluable on a table with the party's
 *     columns
 * @param columns the party's columns the key uses, deduplicated, in order of first use
 * @param plain whether the key is just the column {@code columns.get(0)}
 */
public record JoinKey(String name, String flinkSql, List<String> columns, boolean plain)
    implements Serializable {
  public JoinKey {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(flinkSql, "flinkSql");
    columns = List.copyOf(columns);
    if (plain && columns.size() != 1) {
      throw new IllegalArgumentException("a column key uses exactly one column");
    }
  }

  /** A key that is the column {@code column}. */
  public static JoinKey column(String column) {
    return new JoinKey(column, FlinkDialect.quote(column), List.of(column), true);
  }
}
