package io.psiflink.query;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.parser.SqlParserPos;

/** Maps Calcite parser positions back to the text of the query, for error messages. */
final class SourceText {
  private final String sql;
  private final int[] lineStarts;

  SourceText(String sql) {
    this.sql = sql;
    List<Integer> starts = new ArrayList<>();
    starts.add(0);
    for (int i = 0; i < sql.length(); i++) {
      char c = sql.charAt(i);
      if (c == '\r' && i + 1 < sql.length() && sql.charAt(i + 1) == '\n') {
        i++;
        starts.add(i + 1);
      } else if (c == '\r' || c == '\n') {
        starts.add(i + 1);
      }
    }
    lineStarts = starts.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Offset of the start of {@code span} in the text, or -1 when the text is not there. */
  int offsetOf(SourceSpan span) {
    int at = offset(span.line(), span.column());
    return at >= 0 && sql.startsWith(span.text(), at) ? at : -1;
  }

  /** Offset of a 1-based line and column (Calcite counts a tab as one column). */
  private int offset(int line, int column) {
    if (line < 1 || column < 1) {
      return -1;
    }
    if (line > lineStarts.length) {
      return sql.length();
    }
    return Math.min(sql.length(), lineStarts[line - 1] + column - 1);
  }

  /** The span of text from offset {@code from} (inclusive) to {@code to} (exclusive), trimmed. */
  SourceSpan span(int from, int to) {
    from = Math.max(0, Math.min(from, sql.length()));
    to = Math.max(from, Math.min(to, sql.length()));
    while (from < to && (Character.isWhitespace(sql.charAt(from)) || sql.charAt(from) == ')')) {
      from++;
    }
    while (to > from && (Character.isWhitespace(sql.charAt(to - 1)) || sql.charAt(to - 1) == '(')) {
      to--;
    }
    int line = Arrays.binarySearch(lineStarts, from);
    if (line < 0) {
      line = -line - 2;
    }
    return new SourceSpan(line + 1, from - lineStarts[line] + 1, sql.substring(from, to));
  }

  /** The text of a parser position (end inclusive), or null for an unknown position. */
  SourceSpan span(SqlParserPos pos) {
    if (pos == null || !known(pos)) {
      return null;
    }
    int from = offset(pos.getLineNum(), pos.getColumnNum());
    int to = offset(pos.getEndLineNum(), pos.getEndColumnNum()) + 1;
    return span(from, to);
  }

  /** The text of a node and everything under it. */
  SourceSpan span(SqlNode node) {
    int[] ext = extent(node);
    return ext == null ? null : span(ext[0], ext[1]);
  }

  /**
   * The text after {@code prev} up to the end of {@code last}: a clause keyword and its operands,
   * e.g. {@code GROUP BY a.k} after the {@code WHERE} condition.
   */
  SourceSpan after(SqlNode prev, SqlNode last) {
    int[] p = prev == null ? null : extent(prev);
    int[] l = extent(last);
    if (p == null) {
      return l == null ? null : span(l[0], l[1]);
    }
    return span(p[1], l == null ? sql.length() : Math.max(p[1], l[1]));
  }

  /** The text between two nodes, e.g. the join keyword between two tables. */
  SourceSpan between(SqlNode left, SqlNode right) {
    int[] l = extent(left);
    int[] r = extent(right);
    if (l == null || r == null) {
      return null;
    }
    return span(l[1], Math.max(l[1], r[0]));
  }

  /** From the start of the first occurrence of {@code needle} to the end of {@code until}. */
  SourceSpan find(String needle, String until) {
    int i = sql.indexOf(needle);
    if (i < 0) {
      return null;
    }
    int j = sql.indexOf(until, i + needle.length());
    return span(i, j < 0 ? sql.length() : j + until.length());
  }

  /** The last word of the statement (where it ends too early). */
  SourceSpan lastWord() {
    int to = sql.length();
    while (to > 0 && Character.isWhitespace(sql.charAt(to - 1))) {
      to--;
    }
    int from = to;
    while (from > 0 && !Character.isWhitespace(sql.charAt(from - 1))) {
      from--;
    }
    return span(from, to);
  }

  /** The whole statement. */
  SourceSpan all() {
    return span(0, sql.length());
  }

  /** Start (inclusive) and end (exclusive) offsets of a node and all nodes under it, or null. */
  int[] extent(SqlNode node) {
    int[] ext = {Integer.MAX_VALUE, Integer.MIN_VALUE};
    collect(node, ext);
    return ext[0] == Integer.MAX_VALUE ? null : ext;
  }

  private void collect(SqlNode node, int[] ext) {
    if (node == null) {
      return;
    }
    SqlParserPos pos = node.getParserPosition();
    if (known(pos)) {
      int from = offset(pos.getLineNum(), pos.getColumnNum());
      int to = offset(pos.getEndLineNum(), pos.getEndColumnNum()) + 1;
      if (from >= 0 && to > from) {
        ext[0] = Math.min(ext[0], from);
        ext[1] = Math.max(ext[1], to);
      }
    }
    if (node instanceof SqlNodeList list) {
      for (SqlNode n : list) {
        collect(n, ext);
      }
    } else if (node instanceof SqlCall call) {
      for (SqlNode n : call.getOperandList()) {
        collect(n, ext);
      }
    }
  }

  private static boolean known(SqlParserPos pos) {
    return pos != null
        && pos.getLineNum() > 0
        && pos.getColumnNum() > 0
        && pos.getEndLineNum() > 0
        && pos.getEndColumnNum() > 0;
  }
}
