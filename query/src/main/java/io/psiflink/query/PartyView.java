package io.psiflink.query;

import io.psiflink.api.Role;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * What one party needs to run its half of a join query, derived from the query and its own schema
 * only.
 *
 * @param side the party: A or B, or party i of n for an n-party join ({@link MultiJoinQuery})
 * @param keyColumns the columns this side's join keys use, in {@code ON} order, one entry per use
 *     (a column may repeat); when every key is a column this is one entry per equality, position
 *     {@code i} of A's list pairing with position {@code i} of B's (for n parties: each key's
 *     columns, in key order)
 * @param revealedColumns this side's columns that appear in {@code SELECT} (stars expanded),
 *     deduplicated, in order of first appearance
 * @param wherePredicate Flink SQL text of this side's {@code WHERE} conjuncts joined by {@code
 *     AND}, or {@code ""} when there are none; identifiers are unqualified and backtick-quoted, so
 *     the text can be evaluated as {@code SELECT * FROM t WHERE <wherePredicate>} on a table with
 *     this side's columns (see {@link WhereFilter})
 * @param filterColumns this side's columns that its {@code WHERE} conjuncts reference,
 *     deduplicated, in order of first appearance
 * @param neededColumns the union of {@code keyColumns} and {@code revealedColumns}, in schema
 *     order: the columns this side must keep after filtering
 * @param kind what A outputs ({@link JoinKind}), after WHERE: a LEFT JOIN whose WHERE rejects b's
 *     NULLs is INNER, one with {@code WHERE b.k IS NULL} is ANTI
 * @param keys this side's join keys ({@link JoinKey}), one per equality in order: position {@code
 *     i} of A's list pairs with position {@code i} of B's, and the join key is their tuple (for n
 *     parties: one per key column, in key order)
 * @param notes how the query was read where SQL's rules changed its join kind, for the plan and the
 *     log (e.g. a LEFT JOIN that runs as an inner join)
 */
public record PartyView(
    Role side,
    List<String> keyColumns,
    List<String> revealedColumns,
    String wherePredicate,
    List<String> filterColumns,
    List<String> neededColumns,
    JoinKind kind,
    List<JoinKey> keys,
    List<String> notes)
    implements Serializable {
  public PartyView {
    Objects.requireNonNull(side, "side");
    keyColumns = List.copyOf(keyColumns);
    revealedColumns = List.copyOf(revealedColumns);
    Objects.requireNonNull(wherePredicate, "wherePredicate");
    filterColumns = List.copyOf(filterColumns);
    neededColumns = List.copyOf(neededColumns);
    Objects.requireNonNull(kind, "kind");
    keys = List.copyOf(keys);
    notes = List.copyOf(notes);
  }

  /** Whether some join key is an expression (computed with Flink SQL), not a column. */
  public boolean computedKeys() {
    return keys.stream().anyMatch(k -> !k.plain());
  }
}
