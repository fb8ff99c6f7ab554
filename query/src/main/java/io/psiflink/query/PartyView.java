package io.psiflink.query;

import io.psiflink.api.Role;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * What one party needs to run its half of a join query, derived from the query and its own schema
 * only.
 *
 * @param side the party
 * @param keyColumns this side's column of each {@code ON} equality, in {@code ON} order; one entry
 *     per equality (a column may repeat), so position {@code i} of A's list pairs with position
 *     {@code i} of B's: the join key is the tuple of these columns, in this order
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
 */
public record PartyView(
    Role side,
    List<String> keyColumns,
    List<String> revealedColumns,
    String wherePredicate,
    List<String> filterColumns,
    List<String> neededColumns)
    implements Serializable {
  public PartyView {
    Objects.requireNonNull(side, "side");
    keyColumns = List.copyOf(keyColumns);
    revealedColumns = List.copyOf(revealedColumns);
    Objects.requireNonNull(wherePredicate, "wherePredicate");
    filterColumns = List.copyOf(filterColumns);
    neededColumns = List.copyOf(neededColumns);
  }
}
