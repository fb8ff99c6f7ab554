package io.psiflink.query;

/**
 * What party A's output holds, by the SQL form of the query. Every kind is computed at A from what
 * A learns anyway (which of its own keys match): none tells either party more than the inner join.
 *
 * <ul>
 *   <li>{@link #INNER}: {@code a JOIN b ON ...}: one row per pair of matching rows;
 *   <li>{@link #LEFT}: {@code a LEFT JOIN b ON ...}: the inner join's rows, and every row of a
 *       without a match (a NULL key included) once, with NULL for b's columns;
 *   <li>{@link #SEMI}: {@code WHERE EXISTS (SELECT ... FROM b WHERE b.k = a.k ...)} or {@code a.k
 *       IN (SELECT b.k FROM b ...)}: every row of a with a match, once; no column of b;
 *   <li>{@link #ANTI}: {@code NOT EXISTS (...)}, {@code LEFT JOIN ... WHERE b.k IS NULL} or a
 *       {@code NOT IN} whose keys cannot be NULL: every row of a without a match, a NULL key
 *       included; no column of b.
 * </ul>
 */
public enum JoinKind {
  INNER("inner join", true, true, false),
  LEFT("left join", true, true, true),
  SEMI("semi-join", false, true, false),
  ANTI("anti-join", false, false, true);

  private final String text;
  private final boolean peerColumns;
  private final boolean matched;
  private final boolean unmatched;

  JoinKind(String text, boolean peerColumns, boolean matched, boolean unmatched) {
    this.text = text;
    this.peerColumns = peerColumns;
    this.matched = matched;
    this.unmatched = unmatched;
  }

  /** In plain words, e.g. {@code "left join"}. */
  public String text() {
    return text;
  }

  /** Whether party B sends the columns of its matching rows (only then can A output them). */
  public boolean peerColumns() {
    return peerColumns;
  }

  /** Whether A's rows that match are output. */
  public boolean emitsMatched() {
    return matched;
  }

  /**
   * Whether A's rows without a match are output; then A's rows with a NULL key belong to the output
   * (SQL: no match exists for them), not to the quarantine.
   */
  public boolean emitsUnmatched() {
    return unmatched;
  }
}
