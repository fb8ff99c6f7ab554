package io.psiflink.query;

import java.util.Objects;

/**
 * A join query that cannot be run: a syntax error, a construct outside the supported subset, or a
 * reference that does not match a schema.
 *
 * <p>The message has the form {@code "<clause>: <what is wrong> (at line L, column C: `<text>`)"};
 * the location part is present when the problem is tied to a place in the query text. {@link
 * #clause()} names the clause at fault: {@code "SQL"} for a syntax error or a statement that is not
 * a query, {@code "SELECT"}, {@code "DISTINCT"}, {@code "FROM"}, {@code "ON"}, {@code "WHERE"},
 * {@code "GROUP BY"}, {@code "HAVING"}, {@code "WINDOW"}, {@code "QUALIFY"}, {@code "ORDER BY"},
 * {@code "LIMIT"}, {@code "OFFSET"}, {@code "WITH"}, {@code "UNION"}, {@code "INTERSECT"} or {@code
 * "EXCEPT"}.
 */
public class QueryException extends Exception {
  private static final long serialVersionUID = 1L;
  private static final int MAX_TEXT = 120;

  private final String clause;
  private final String problem;
  private final int line;
  private final int column;
  private final String text;

  /** A problem not tied to a place in the query text. */
  public QueryException(String clause, String problem) {
    this(clause, problem, 0, 0, null, null);
  }

  /** A problem not tied to a place in the query text, caused by {@code cause}. */
  public QueryException(String clause, String problem, Throwable cause) {
    this(clause, problem, 0, 0, null, cause);
  }

  /**
   * A problem at a place in the query text.
   *
   * @param line 1-based line of the offending text, or 0 if unknown
   * @param column 1-based column of the offending text, or 0 if unknown
   * @param text the offending text, or null if unknown
   */
  public QueryException(String clause, String problem, int line, int column, String text) {
    this(clause, problem, line, column, text, null);
  }

  /** A problem at a place in the query text ({@code at} may be null: no location). */
  public QueryException(String clause, String problem, SourceSpan at) {
    this(
        clause,
        problem,
        at == null ? 0 : at.line(),
        at == null ? 0 : at.column(),
        at == null ? null : at.text(),
        null);
  }

  private QueryException(
      String clause, String problem, int line, int column, String text, Throwable cause) {
    super(format(clause, problem, line, column, text), cause);
    this.clause = Objects.requireNonNull(clause, "clause");
    this.problem = Objects.requireNonNull(problem, "problem");
    this.line = line;
    this.column = column;
    this.text = text;
  }

  private static String format(String clause, String problem, int line, int column, String text) {
    StringBuilder sb = new StringBuilder(clause).append(": ").append(problem);
    if (line > 0) {
      sb.append(" (at line ").append(line).append(", column ").append(column);
      if (text != null) {
        String shown = text.length() > MAX_TEXT ? text.substring(0, MAX_TEXT) + "..." : text;
        sb.append(": `").append(shown).append('`');
      }
      sb.append(')');
    }
    return sb.toString();
  }

  /** The clause at fault, e.g. {@code "WHERE"}, or {@code "SQL"} for a syntax error. */
  public String clause() {
    return clause;
  }

  /** What is wrong, without the clause and location. */
  public String problem() {
    return problem;
  }

  /** 1-based line of the offending text, or 0 when the problem has no location. */
  public int line() {
    return line;
  }

  /** 1-based column of the offending text, or 0 when the problem has no location. */
  public int column() {
    return column;
  }

  /** The offending text as written in the query, or null when unknown. */
  public String offendingText() {
    return text;
  }
}
