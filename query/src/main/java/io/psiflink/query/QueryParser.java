package io.psiflink.query;

import io.psiflink.api.Role;
import io.psiflink.query.ParsedQuery.Conjunct;
import io.psiflink.query.ParsedQuery.Count;
import io.psiflink.query.ParsedQuery.Equality;
import io.psiflink.query.ParsedQuery.Expr;
import io.psiflink.query.ParsedQuery.Item;
import io.psiflink.query.ParsedQuery.Ref;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.calcite.config.Lex;
import org.apache.calcite.runtime.CalciteException;
import org.apache.calcite.sql.JoinType;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlSelectKeyword;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.SqlUnresolvedFunction;
import org.apache.calcite.sql.SqlUserDefinedTypeNameSpec;
import org.apache.calcite.sql.SqlWith;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlShuttle;
import org.apache.calcite.sql.validate.SqlConformance;
import org.apache.calcite.sql.validate.SqlConformanceEnum;
import org.apache.calcite.sql.validate.SqlDelegatingConformance;
import org.apache.calcite.sql.validate.SqlNameMatchers;

/**
 * Parses a join query with Calcite and checks that it is inside the supported subset. See {@link
 * JoinQuery} for the subset and the lexical rules.
 */
final class QueryParser {
  /** Calcite's default conformance, plus {@code !=} and {@code %}, which Flink SQL accepts too. */
  private static final SqlConformance CONFORMANCE =
      new SqlDelegatingConformance(SqlConformanceEnum.DEFAULT) {
        @Override
        public boolean isBangEqualAllowed() {
          return true;
        }

        @Override
        public boolean isPercentRemainderAllowed() {
          return true;
        }
      };

  /**
   * Lex.JAVA: identifiers quoted with backticks, case-sensitive, unquoted identifiers keep their
   * case; string literals in single quotes. This is also Flink SQL's lexical convention.
   */
  static final SqlParser.Config CONFIG =
      SqlParser.config()
          .withLex(Lex.JAVA)
          .withIdentifierMaxLength(1024)
          .withConformance(CONFORMANCE);

  private static final String CANONICAL_VERSION = "psi-flink join query v1";

  private final String sql;
  private final SourceText src;
  private String qualifierA;
  private String qualifierB;

  private QueryParser(String sql) {
    this.sql = sql;
    this.src = new SourceText(sql);
  }

  static ParsedQuery parse(String sql) throws QueryException {
    return new QueryParser(sql).run();
  }

  private ParsedQuery run() throws QueryException {
    SqlNode node;
    try {
      node = SqlParser.create(sql, CONFIG).parseQuery();
    } catch (SqlParseException e) {
      throw syntaxError(e);
    } catch (CalciteException e) {
      throw new QueryException("SQL", firstLine(e.getMessage()), src.all());
    }
    SqlSelect select = singleSelect(node);
    checkClauses(select);
    List<SqlNode> whereNodes =
        new ArrayList<>(select.getWhere() == null ? List.of() : conjuncts(select.getWhere()));
    List<Equality> on = new ArrayList<>();
    List<Conjunct> onConditions = new ArrayList<>();
    JoinKind kind;
    SourceSpan onSpan;
    boolean notIn = false;
    if (select.getFrom() instanceof SqlJoin) {
      SqlJoin join = readFrom(select);
      kind = join.getJoinType() == JoinType.LEFT ? JoinKind.LEFT : JoinKind.INNER;
      onSpan = src.span(join.getCondition());
      readOn(join.getCondition(), "ON", on, onConditions);
    } else {
      SqlNode sub = subqueryConjunct(select, whereNodes);
      whereNodes.remove(sub);
      onSpan = src.span(sub);
      notIn = readSubquery(sub, on, onConditions);
      kind = isNegated(sub) ? JoinKind.ANTI : JoinKind.SEMI;
    }
    Count count = readCount(select.getSelectList());
    if (count != null && kind != JoinKind.INNER) {
      throw new QueryException(
          "SELECT",
          "COUNT(DISTINCT ...) is computed for an inner JOIN only (the number of keys both"
              + " tables hold), not for a "
              + kind.text(),
          count.span());
    }
    List<Item> items = count != null ? List.of() : readSelect(select.getSelectList());
    List<Conjunct> where = readWhere(whereNodes);
    return new ParsedQuery(
        qualifierA,
        qualifierB,
        kind,
        notIn,
        items,
        count,
        on,
        onConditions,
        onSpan,
        where,
        canonical(kind, notIn, items, count, on, onConditions, where));
  }

  // ---------------------------------------------------------------- statement shape

  private QueryException syntaxError(SqlParseException e) {
    String msg =
        firstLine(e.getMessage()).replaceAll("\\s*at line \\d+, column \\d+\\.?", "").trim();
    if (msg.endsWith(".")) {
      msg = msg.substring(0, msg.length() - 1);
    }
    Collection<String> expected = e.getExpectedTokenNames();
    if (expected != null && !expected.isEmpty()) {
      Set<String> shown = new LinkedHashSet<>();
      for (String t : expected) {
        shown.add(t.matches("<[A-Z_]*IDENTIFIER>") ? "an identifier" : t);
      }
      if (shown.size() <= 6) {
        msg += "; expected " + (shown.size() == 1 ? "" : "one of ") + String.join(", ", shown);
      }
    }
    if (sql.indexOf('"') >= 0) {
      msg +=
          " (identifiers are quoted with backticks, e.g. a.`home city`, not with double"
              + " quotes; string literals use single quotes)";
    }
    SourceSpan at = e.getPos() == null ? null : src.span(e.getPos());
    if (at != null && at.text().equalsIgnoreCase("NORMALIZE")) {
      return new QueryException(
          "SQL",
          "NORMALIZE is a reserved word of Flink SQL: write NFC(x) for NORMALIZE(x) (or NFD,"
              + " NFKC, NFKD for the other forms)",
          at);
    }
    if (msg.startsWith("Encountered \"<EOF>\"")) {
      msg = "the query ends too early" + msg.substring("Encountered \"<EOF>\"".length());
      at = src.lastWord();
    }
    return new QueryException("SQL", "syntax error: " + msg, at);
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "cannot parse the query";
    }
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).trim();
  }

  private SqlSelect singleSelect(SqlNode node) throws QueryException {
    if (node instanceof SqlOrderBy ob) {
      boolean ordered = ob.orderList != null && !ob.orderList.isEmpty();
      if (ordered) {
        throw new QueryException(
            "ORDER BY",
            "ORDER BY is not allowed: the joined rows have no defined order",
            src.after(ob.query, ob.orderList));
      }
      SqlNode last = ob.fetch != null ? ob.fetch : ob.offset;
      if (ob.offset != null
          && ob.fetch != null
          && src.extent(ob.offset)[1] > src.extent(ob.fetch)[1]) {
        last = ob.offset;
      }
      throw new QueryException(
          ob.fetch != null ? "LIMIT" : "OFFSET",
          (ob.fetch != null ? "LIMIT/FETCH" : "OFFSET")
              + " is not allowed: the query returns every"
              + " joined row",
          src.after(ob.query, last));
    }
    if (node instanceof SqlWith with) {
      throw new QueryException(
          "WITH",
          "WITH is not allowed: the query must be a single SELECT",
          src.span(src.extent(with)[0], src.extent(with.body)[0]));
    }
    if (node.getKind() == SqlKind.UNION
        || node.getKind() == SqlKind.INTERSECT
        || node.getKind() == SqlKind.EXCEPT) {
      SqlCall call = (SqlCall) node;
      String clause = node.getKind().name();
      throw new QueryException(
          clause,
          clause + " is not allowed: the query must be a single SELECT",
          src.between(call.operand(0), call.operand(1)));
    }
    if (!(node instanceof SqlSelect select)) {
      throw new QueryException(
          "SQL",
          "only a single SELECT query is allowed, not " + node.getKind().sql,
          src.span(node));
    }
    return select;
  }

  private void checkClauses(SqlSelect select) throws QueryException {
    if (select.hasHints()) {
      throw new QueryException("SELECT", "hints are not allowed", src.find("/*+", "*/"));
    }
    SqlNode distinct = select.getModifierNode(SqlSelectKeyword.DISTINCT);
    if (distinct != null) {
      throw new QueryException(
          "DISTINCT",
          "SELECT DISTINCT is not allowed: the query returns every joined row",
          src.span(distinct));
    }
    SqlNode stream = select.getModifierNode(SqlSelectKeyword.STREAM);
    if (stream != null) {
      throw new QueryException("SELECT", "SELECT STREAM is not allowed", src.span(stream));
    }
    SqlNode prev = select.getWhere() != null ? select.getWhere() : select.getFrom();
    if (select.getGroup() != null) {
      throw new QueryException(
          "GROUP BY",
          "GROUP BY is not allowed: the query returns joined rows, not aggregates",
          src.after(prev, select.getGroup()));
    }
    if (select.getHaving() != null) {
      throw new QueryException(
          "HAVING",
          "HAVING is not allowed: the query returns joined rows, not aggregates",
          src.after(prev, select.getHaving()));
    }
    if (select.getWindowList() != null && !select.getWindowList().isEmpty()) {
      throw new QueryException(
          "WINDOW", "WINDOW is not allowed", src.after(prev, select.getWindowList()));
    }
    if (select.getQualify() != null) {
      throw new QueryException(
          "QUALIFY", "QUALIFY is not allowed", src.after(prev, select.getQualify()));
    }
    if (select.getOrderList() != null && !select.getOrderList().isEmpty()) {
      throw new QueryException(
          "ORDER BY",
          "ORDER BY is not allowed: the joined rows have no defined order",
          src.span(select.getOrderList()));
    }
    if (select.getFetch() != null) {
      throw new QueryException("LIMIT", "LIMIT/FETCH is not allowed", src.span(select.getFetch()));
    }
    if (select.getOffset() != null) {
      throw new QueryException("OFFSET", "OFFSET is not allowed", src.span(select.getOffset()));
    }
  }

  // ---------------------------------------------------------------- FROM

  private SqlJoin readFrom(SqlSelect select) throws QueryException {
    SqlNode from = select.getFrom();
    if (from == null) {
      throw new QueryException(
          "FROM", "the query must read FROM a JOIN b ON <a-column> = <b-column>", src.all());
    }
    if (!(from instanceof SqlJoin join)) {
      SqlNode inner = from.getKind() == SqlKind.AS ? ((SqlCall) from).operand(0) : from;
      if (isQuery(inner)) {
        throw new QueryException(
            "FROM", "subqueries are not allowed: join the tables a and b directly", src.span(from));
      }
      throw new QueryException(
          "FROM",
          "the query must join the two tables: FROM a JOIN b ON <a-column> = <b-column>",
          src.span(from));
    }
    if (join.getLeft() instanceof SqlJoin inner) {
      throw new QueryException(
          "FROM", "exactly two tables, a and b, may be joined", src.after(inner, join.getRight()));
    }
    if (join.getRight() instanceof SqlJoin) {
      throw new QueryException(
          "FROM", "exactly two tables, a and b, may be joined", src.span(join.getRight()));
    }
    String joinText = describe(src.between(join.getLeft(), join.getRight()));
    switch (join.getJoinType()) {
      case INNER:
      case LEFT:
        break;
      case RIGHT:
      case FULL:
        throw new QueryException(
            "FROM",
            joinText
                + " is not allowed: it would give party A the rows of b outside the intersection,"
                + " which party B never reveals; a JOIN, LEFT JOIN, EXISTS or NOT EXISTS keeps"
                + " to A's rows",
            src.between(join.getLeft(), join.getRight()));
      case COMMA:
        throw new QueryException(
            "FROM",
            "a comma between tables (a cross join) is not allowed: write FROM a JOIN b ON ...",
            src.between(join.getLeft(), join.getRight()));
      default:
        throw new QueryException(
            "FROM",
            joinText
                + " is not allowed: only JOIN and LEFT JOIN with equalities in ON are supported",
            src.between(join.getLeft(), join.getRight()));
    }
    if (join.isNatural()) {
      throw new QueryException(
          "FROM",
          "NATURAL JOIN is not allowed: write the ON condition, e.g. a JOIN b ON a.k = b.k",
          src.between(join.getLeft(), join.getRight()));
    }
    switch (join.getConditionType()) {
      case ON:
        break;
      case USING:
        throw new QueryException(
            "FROM",
            "USING is not allowed: write the ON condition, e.g. a JOIN b ON a.k = b.k",
            src.after(join.getRight(), join.getCondition()));
      default:
        throw new QueryException(
            "ON",
            "the JOIN needs an ON condition: equalities between a column of a and one of b",
            src.span(join));
    }
    String[] left = table(join.getLeft());
    String[] right = table(join.getRight());
    String leftName = left[0];
    String rightName = right[0];
    if (leftName.equals(rightName) && (leftName.equals("a") || leftName.equals("b"))) {
      throw new QueryException(
          "FROM",
          "table "
              + leftName
              + " appears twice: the query joins table a (party A) with table b (party B)",
          src.span(join.getRight()));
    }
    for (String[] t : List.of(left, right)) {
      if (!t[0].equals("a") && !t[0].equals("b")) {
        throw new QueryException(
            "FROM",
            "unknown table " + t[0] + ": the tables are a (party A) and b (party B)",
            src.span(t == left ? join.getLeft() : join.getRight()));
      }
    }
    if (!leftName.equals("a")) {
      throw new QueryException(
          "FROM", "write table a first: FROM a JOIN b ON ...", src.span(join.getLeft()));
    }
    if ("b".equals(left[1])) {
      throw new QueryException(
          "FROM", "alias b of table a would be confused with table b", src.span(join.getLeft()));
    }
    if ("a".equals(right[1])) {
      throw new QueryException(
          "FROM", "alias a of table b would be confused with table a", src.span(join.getRight()));
    }
    qualifierA = left[1] != null ? left[1] : "a";
    qualifierB = right[1] != null ? right[1] : "b";
    if (qualifierA.equals(qualifierB)) {
      throw new QueryException(
          "FROM", "both tables are called " + qualifierA, src.span(join.getRight()));
    }
    return join;
  }

  /** {name, alias or null} of one side of the join. */
  private String[] table(SqlNode node) throws QueryException {
    SqlNode t = node;
    String alias = null;
    if (node.getKind() == SqlKind.AS) {
      SqlCall as = (SqlCall) node;
      t = as.operand(0);
      if (as.operandCount() > 2) {
        throw new QueryException(
            "FROM", "column aliases after a table alias are not allowed", src.span(node));
      }
      alias = ((SqlIdentifier) as.operand(1)).getSimple();
    }
    if (isQuery(t)) {
      throw new QueryException(
          "FROM", "subqueries are not allowed: join the tables a and b directly", src.span(t));
    }
    if (t.getKind() == SqlKind.TABLE_REF) {
      throw new QueryException("FROM", "table hints are not allowed", src.span(t));
    }
    if (!(t instanceof SqlIdentifier id)) {
      throw new QueryException(
          "FROM", "only the tables a and b may be joined, not " + t.getKind().sql, src.span(node));
    }
    if (!id.isSimple()) {
      throw new QueryException(
          "FROM",
          "unknown table "
              + String.join(".", id.names)
              + ": the tables are a (party A) and b (party B)",
          src.span(id));
    }
    return new String[] {id.getSimple(), alias};
  }

  private static boolean isQuery(SqlNode node) {
    return node instanceof SqlSelect || node.getKind().belongsTo(SqlKind.QUERY);
  }

  private static String describe(SourceSpan span) {
    return span == null
        ? "this join"
        : span.text().replaceAll("\\s+", " ").toUpperCase(Locale.ROOT);
  }

  // ---------------------------------------------------------------- column references

  private Role qualifier(SqlIdentifier id, String clause) throws QueryException {
    String q = id.names.get(0);
    if (q.equals(qualifierA)) {
      return Role.A;
    }
    if (q.equals(qualifierB)) {
      return Role.B;
    }
    String hint;
    if (q.equals("a") || q.equals("b")) {
      hint =
          "table "
              + q
              + " is called "
              + (q.equals("a") ? qualifierA : qualifierB)
              + " in this query";
    } else {
      hint = "the tables are " + describeQualifier(Role.A) + " and " + describeQualifier(Role.B);
    }
    throw new QueryException(clause, "unknown table " + q + ": " + hint, src.span(id));
  }

  private String describeQualifier(Role side) {
    String q = Role.A.equals(side) ? qualifierA : qualifierB;
    return q.equals(side.table()) ? q : q + " (table " + side.table() + ")";
  }

  private Ref ref(SqlIdentifier id, String clause) throws QueryException {
    if (id.isStar()) {
      throw new QueryException(clause, "* is only allowed as a SELECT item", src.span(id));
    }
    switch (id.names.size()) {
      case 1:
        return new Ref(null, id.getSimple(), src.span(id));
      case 2:
        return new Ref(qualifier(id, clause), id.names.get(1), src.span(id));
      default:
        throw new QueryException(
            clause,
            "a column is written <table>.<column> or <column>, not " + String.join(".", id.names),
            src.span(id));
    }
  }

  /** The SQL function an unquoted identifier such as {@code CURRENT_DATE} names, or null. */
  private static SqlOperator niladicFunction(SqlIdentifier id) {
    if (!id.isSimple() || id.isComponentQuoted(0)) {
      return null;
    }
    List<SqlOperator> ops = new ArrayList<>();
    SqlStdOperatorTable.instance()
        .lookupOperatorOverloads(
            id, null, SqlSyntax.FUNCTION, ops, SqlNameMatchers.withCaseSensitive(false));
    for (SqlOperator op : ops) {
      if (op.getSyntax() == SqlSyntax.FUNCTION_ID) {
        return op;
      }
    }
    return null;
  }

  private static boolean isColumn(SqlNode node) {
    return node instanceof SqlIdentifier id && !id.isStar() && niladicFunction(id) == null;
  }

  /** Whether a call is an aggregate or window function (which a row filter cannot contain). */
  private static boolean isAggregateOrWindow(SqlCall call) {
    SqlKind k = call.getKind();
    if (k == SqlKind.OVER
        || k == SqlKind.FILTER
        || k == SqlKind.WITHIN_GROUP
        || k == SqlKind.WITHIN_DISTINCT
        || call.getOperator().isAggregator()) {
      return true;
    }
    if (call.getOperator() instanceof SqlUnresolvedFunction fn) {
      List<SqlOperator> ops = new ArrayList<>();
      SqlStdOperatorTable.instance()
          .lookupOperatorOverloads(
              fn.getNameAsId(),
              null,
              SqlSyntax.FUNCTION,
              ops,
              SqlNameMatchers.withCaseSensitive(false));
      return ops.stream().anyMatch(SqlOperator::isAggregator);
    }
    return false;
  }

  private static String whyNotAllowed(SqlNode expr) {
    if (expr instanceof SqlCall call) {
      if (isQuery(call)) {
        return "subqueries are not allowed";
      }
      if (call.getKind() == SqlKind.OVER) {
        return "window functions are not allowed";
      }
      if (isAggregateOrWindow(call)) {
        return "aggregate functions are not allowed";
      }
    }
    return null;
  }

  // ---------------------------------------------------------------- SELECT

  /**
   * A SELECT list that is one {@code COUNT(DISTINCT col, ...) [AS name]}, or null if the list has
   * no COUNT. COUNT(*) and COUNT of a non-distinct list count joined rows, which would need each
   * key's row counts from both parties; only the distinct keys both tables hold can be counted
   * without revealing more.
   */
  private Count readCount(SqlNodeList list) throws QueryException {
    SqlNode count = null;
    String alias = null;
    for (SqlNode node : list) {
      SqlNode expr = node.getKind() == SqlKind.AS ? ((SqlCall) node).operand(0) : node;
      if (isCount(expr)) {
        count = expr;
        if (node.getKind() == SqlKind.AS) {
          SqlNode a = ((SqlCall) node).operand(1);
          alias = a instanceof SqlIdentifier id ? id.getSimple() : a.toString();
        }
      }
    }
    if (count == null) {
      return null;
    }
    if (list.size() != 1) {
      throw new QueryException(
          "SELECT",
          "COUNT(DISTINCT ...) must be the only SELECT item: a "
              + "private join reveals either joined rows or their count",
          src.span(list));
    }
    SqlBasicCall call = (SqlBasicCall) count;
    SqlLiteral quantifier = call.getFunctionQuantifier();
    boolean distinct =
        quantifier != null
            && quantifier.getValue() == org.apache.calcite.sql.SqlSelectKeyword.DISTINCT;
    List<Ref> keys = new ArrayList<>();
    for (SqlNode operand : call.getOperandList()) {
      if (!isColumn(operand)) {
        distinct = false;
        break;
      }
      keys.add(ref((SqlIdentifier) operand, "SELECT"));
    }
    if (!distinct || keys.isEmpty()) {
      throw new QueryException(
          "SELECT",
          "only COUNT(DISTINCT <the join key columns of a or b>) "
              + "can be computed privately (the number of keys both tables hold); COUNT(*) would need "
              + "every key's row count from both parties",
          src.span(count));
    }
    return new Count(keys, alias == null ? "count" : alias, src.span(list));
  }

  /** COUNT(...): the parser leaves functions unresolved, so it is recognised by name. */
  private static boolean isCount(SqlNode expr) {
    return expr instanceof SqlCall call
        && (call.getKind() == SqlKind.COUNT
            || call.getOperator() instanceof SqlUnresolvedFunction fn
                && fn.getName().equalsIgnoreCase("COUNT"));
  }

  private List<Item> readSelect(SqlNodeList list) throws QueryException {
    List<Item> items = new ArrayList<>();
    for (SqlNode node : list) {
      SqlNode expr = node;
      String alias = null;
      if (node.getKind() == SqlKind.AS) {
        SqlCall as = (SqlCall) node;
        expr = as.operand(0);
        alias =
            as.operand(1) instanceof SqlIdentifier id ? id.getSimple() : as.operand(1).toString();
      }
      if (expr instanceof SqlIdentifier id && id.isStar()) {
        if (id.names.size() == 1) {
          items.add(new Item(null, null, null, src.span(node)));
        } else if (id.names.size() == 2) {
          items.add(new Item(null, qualifier(id, "SELECT"), null, src.span(node)));
        } else {
          throw new QueryException(
              "SELECT",
              "write * or <table>.*, not "
                  + String.join(".", id.names.subList(0, id.names.size() - 1))
                  + ".*",
              src.span(id));
        }
      } else if (isColumn(expr)) {
        items.add(new Item(ref((SqlIdentifier) expr, "SELECT"), null, alias, src.span(node)));
      } else {
        String why = whyNotAllowed(expr);
        throw new QueryException(
            "SELECT",
            (why != null ? why + "; " : "")
                + "only column references may be selected (a.x, a.x AS y, *, a.*), not expressions",
            src.span(expr));
      }
    }
    return items;
  }

  // ---------------------------------------------------------------- ON

  private static List<SqlNode> conjuncts(SqlNode node) {
    List<SqlNode> out = new ArrayList<>();
    flattenAnd(node, out);
    return out;
  }

  private static void flattenAnd(SqlNode node, List<SqlNode> out) {
    if (node.getKind() == SqlKind.AND) {
      for (SqlNode operand : ((SqlCall) node).getOperandList()) {
        flattenAnd(operand, out);
      }
    } else {
      out.add(node);
    }
  }

  /**
   * Reads the AND-ed conditions of ON (or of a correlated subquery's WHERE, {@code clause}
   * "WHERE"): an equality between two expressions that use columns is a candidate key equality (the
   * resolver decides which compare the two tables); anything else is a condition on one table.
   */
  private void readOn(SqlNode condition, String clause, List<Equality> on, List<Conjunct> conds)
      throws QueryException {
    SqlNode oneTableEquality = null;
    for (SqlNode e : conjuncts(condition)) {
      if (e.getKind() == SqlKind.EQUALS) {
        SqlCall eq = (SqlCall) e;
        Expr l = expr(eq.operand(0), clause);
        Expr r = expr(eq.operand(1), clause);
        Set<Role> ls = qualifiers(l.refs());
        Set<Role> rs = qualifiers(r.refs());
        boolean oneTable =
            ls.size() == 1
                && ls.equals(rs)
                && l.refs().stream().allMatch(x -> x.qualifier() != null)
                && r.refs().stream().allMatch(x -> x.qualifier() != null);
        if (!l.refs().isEmpty() && !r.refs().isEmpty() && !oneTable) {
          for (Expr x : List.of(l, r)) {
            if (qualifiers(x.refs()).size() > 1) {
              throw mixedKey(clause, x.span());
            }
          }
          on.add(new Equality(l, r, condition(e, clause), src.span(e)));
          continue;
        }
      }
      Conjunct c = condition(e, clause);
      if (e.getKind() == SqlKind.EQUALS && oneTableEquality == null) {
        oneTableEquality = e;
      }
      if (qualifiers(c.refs()).size() > 1) {
        throw new QueryException(
            clause,
            "this condition uses columns of both a and b; besides the key equalities (an"
                + " expression of a = an expression of b) each AND-ed condition may use the columns"
                + " of only one table",
            src.span(e));
      }
      conds.add(c);
    }
    if (on.isEmpty() && oneTableEquality != null) {
      Set<Role> sides = qualifiers(condition(oneTableEquality, clause).refs());
      throw new QueryException(
          clause,
          "this equality compares "
              + (isConstant(((SqlCall) oneTableEquality).operand(0))
                      || isConstant(((SqlCall) oneTableEquality).operand(1))
                  ? "a constant with table "
                  : "two columns of table ")
              + (sides.isEmpty() ? "a or b" : sides.iterator().next().table())
              + "; the join needs at least one equality between an expression of a and one of b",
          src.span(oneTableEquality));
    }
    if (on.isEmpty()) {
      throw new QueryException(
          clause,
          "the join needs at least one equality between an expression of a and one of b, e.g."
              + " a.k = b.k or LOWER(a.email) = LOWER(b.email)",
          src.span(condition));
    }
  }

  private boolean isConstant(SqlNode n) throws QueryException {
    return new Rewriter(false, "ON").rewriteRefs(n).isEmpty();
  }

  static QueryException mixedKey(String clause, SourceSpan at) {
    return new QueryException(
        clause,
        "this key expression uses columns of both a and b; each side of a key equality is"
            + " computed by one party on its own rows, from its own columns",
        at);
  }

  private static Set<Role> qualifiers(List<Ref> refs) {
    Set<Role> out = new HashSet<>();
    for (Ref r : refs) {
      if (r.qualifier() != null) {
        out.add(r.qualifier());
      }
    }
    return out;
  }

  /** One side of a key equality: its Flink SQL, canonical text and references. */
  private Expr expr(SqlNode n, String clause) throws QueryException {
    Rewriter flink = new Rewriter(false, clause);
    SqlNode rewritten = flink.rewrite(n);
    Ref column = isColumn(n) ? ref((SqlIdentifier) n, clause) : null;
    // a column is written as in ON before key expressions existed: fingerprints stay the same
    String canonical =
        column != null
            ? canonical(column)
            : FlinkDialect.unparse(new Rewriter(true, clause).rewrite(n));
    List<Ref> strict = new ArrayList<>();
    for (Ref r : flink.refs) {
      if (Nulls.nullish(n, id -> id.names.equals(namesOf(r)))) {
        strict.add(r);
      }
    }
    return new Expr(
        flink.refs, FlinkDialect.unparse(rewritten), canonical, column, strict, src.span(n));
  }

  /** The identifier parts a reference was written with. */
  private List<String> namesOf(Ref r) {
    return r.qualifier() == null ? List.of(r.column()) : List.of(q(r.qualifier()), r.column());
  }

  private String q(Role side) {
    return Role.A.equals(side) ? qualifierA : qualifierB;
  }

  /** A single-table condition: its Flink SQL, canonical text and what the NULL analysis proves. */
  private Conjunct condition(SqlNode c, String clause) throws QueryException {
    Rewriter flink = new Rewriter(false, clause);
    SqlNode rewritten = flink.rewrite(c);
    if (flink.refs.isEmpty()) {
      throw new QueryException(
          clause,
          "this condition uses no column: each AND-ed condition must test columns of a or of b",
          src.span(c));
    }
    String canonical = FlinkDialect.unparse(new Rewriter(true, clause).rewrite(c));
    Ref isNull = null;
    Ref isNotNull = null;
    if ((c.getKind() == SqlKind.IS_NULL || c.getKind() == SqlKind.IS_NOT_NULL)
        && isColumn(((SqlCall) c).operand(0))) {
      Ref r = ref((SqlIdentifier) ((SqlCall) c).operand(0), clause);
      if (c.getKind() == SqlKind.IS_NULL) {
        isNull = r;
      } else {
        isNotNull = r;
      }
    }
    return new Conjunct(
        flink.refs,
        FlinkDialect.unparse(rewritten),
        src.span(c),
        canonical,
        isNull,
        isNotNull,
        Nulls.rejects(c));
  }

  // ---------------------------------------------------------------- semi- and anti-joins

  /**
   * With FROM a alone, the one AND-ed condition of WHERE that is a subquery over b: EXISTS, NOT
   * EXISTS, IN or NOT IN. Reads table a's name and alias first.
   */
  private SqlNode subqueryConjunct(SqlSelect select, List<SqlNode> where) throws QueryException {
    SqlNode from = select.getFrom();
    if (from == null) {
      throw new QueryException(
          "FROM", "the query must read FROM a JOIN b ON <a-column> = <b-column>", src.all());
    }
    String[] a = table(from);
    SqlNode found = null;
    for (SqlNode c : where) {
      SqlNode e = c.getKind() == SqlKind.NOT ? ((SqlCall) c).operand(0) : c;
      boolean sub =
          e.getKind() == SqlKind.EXISTS
              || ((e.getKind() == SqlKind.IN || e.getKind() == SqlKind.NOT_IN)
                  && isQuery(((SqlCall) e).operand(1)));
      if (sub) {
        if (found != null) {
          throw new QueryException(
              "WHERE",
              "only one subquery (EXISTS, NOT EXISTS, IN or NOT IN over b) is allowed",
              src.span(c));
        }
        found = c;
      }
    }
    if (found == null) {
      for (SqlNode c : where) {
        SqlNode nested = nestedQuery(c);
        if (nested != null) {
          throw new QueryException(
              "WHERE",
              "a subquery over b may only be one AND-ed condition of WHERE: [NOT] EXISTS (SELECT"
                  + " 1 FROM b WHERE b.k = a.k ...) or a.k [NOT] IN (SELECT b.k FROM b ...)",
              src.span(nested));
        }
      }
      throw new QueryException(
          "FROM",
          "the query must join the two tables: FROM a JOIN b ON <a-column> = <b-column>, or FROM a"
              + " WHERE [NOT] EXISTS (SELECT 1 FROM b WHERE b.k = a.k)",
          src.span(from));
    }
    if (!a[0].equals("a")) {
      throw new QueryException(
          "FROM",
          "write table a in FROM and b in the subquery: party A's table gives the rows",
          src.span(from));
    }
    if ("b".equals(a[1])) {
      throw new QueryException(
          "FROM", "alias b of table a would be confused with table b", src.span(from));
    }
    qualifierA = a[1] != null ? a[1] : "a";
    return found;
  }

  /** The first subquery inside {@code n}, or null. */
  private static SqlNode nestedQuery(SqlNode n) {
    if (n == null) {
      return null;
    }
    if (isQuery(n)) {
      return n;
    }
    if (n instanceof SqlNodeList list) {
      for (SqlNode o : list) {
        SqlNode q = nestedQuery(o);
        if (q != null) {
          return q;
        }
      }
    }
    if (n instanceof SqlCall call) {
      for (SqlNode o : call.getOperandList()) {
        SqlNode q = nestedQuery(o);
        if (q != null) {
          return q;
        }
      }
    }
    return null;
  }

  private static boolean isNegated(SqlNode c) {
    return c.getKind() == SqlKind.NOT || c.getKind() == SqlKind.NOT_IN;
  }

  /**
   * Reads the subquery of a semi- or anti-join: its table b, the key equalities and b's conditions.
   * Returns whether it is a NOT IN.
   */
  private boolean readSubquery(SqlNode c, List<Equality> on, List<Conjunct> conds)
      throws QueryException {
    boolean negated = c.getKind() == SqlKind.NOT;
    SqlCall e = (SqlCall) (negated ? ((SqlCall) c).operand(0) : c);
    SqlSelect sub = subSelect(e.getKind() == SqlKind.EXISTS ? e.operand(0) : e.operand(1));
    readSubqueryTable(sub);
    if (e.getKind() == SqlKind.EXISTS) {
      if (sub.getWhere() == null) {
        throw new QueryException(
            "WHERE",
            "the EXISTS subquery must relate b's rows to a's: SELECT 1 FROM b WHERE b.k = a.k",
            src.span(sub));
      }
      readOn(sub.getWhere(), "WHERE", on, conds);
      return false;
    }
    // [NOT] IN: the left side's expressions pair with the subquery's SELECT items, in order
    SqlNode left = e.operand(0);
    List<SqlNode> lefts =
        left instanceof SqlNodeList l
            ? l.getList()
            : left.getKind() == SqlKind.ROW ? ((SqlCall) left).getOperandList() : List.of(left);
    List<SqlNode> rights = new ArrayList<>();
    for (SqlNode item : sub.getSelectList()) {
      SqlNode x = item.getKind() == SqlKind.AS ? ((SqlCall) item).operand(0) : item;
      if (x instanceof SqlIdentifier id && id.isStar()) {
        throw new QueryException(
            "WHERE", "list b's key expressions in the IN subquery, not *", src.span(x));
      }
      rights.add(x);
    }
    if (lefts.size() != rights.size()) {
      throw new QueryException(
          "WHERE",
          "IN compares "
              + lefts.size()
              + " expression(s) of a with "
              + rights.size()
              + " of the subquery",
          src.span(e));
    }
    for (int i = 0; i < lefts.size(); i++) {
      Expr l = expr(lefts.get(i), "WHERE");
      Expr r = expr(rights.get(i), "WHERE");
      for (Expr x : List.of(l, r)) {
        if (x.refs().isEmpty()) {
          throw new QueryException(
              "WHERE", "IN must compare expressions of a with expressions of b", x.span());
        }
      }
      if (qualifiers(l.refs()).contains(Role.B) || qualifiers(r.refs()).contains(Role.A)) {
        throw new QueryException(
            "WHERE",
            "IN must compare expressions of a (left) with expressions of b (in the subquery)",
            src.span(e));
      }
      on.add(new Equality(l, r, null, src.span(e)));
    }
    if (sub.getWhere() != null) {
      for (SqlNode w : conjuncts(sub.getWhere())) {
        Conjunct cond = condition(w, "WHERE");
        if (qualifiers(cond.refs()).contains(Role.A)) {
          throw new QueryException(
              "WHERE",
              "the IN subquery may test only b's columns; relate the tables with EXISTS (SELECT 1"
                  + " FROM b WHERE b.k = a.k AND ...)",
              src.span(w));
        }
        conds.add(cond);
      }
    }
    return negated || e.getKind() == SqlKind.NOT_IN;
  }

  private SqlSelect subSelect(SqlNode n) throws QueryException {
    if (!(n instanceof SqlSelect sub)) {
      throw new QueryException(
          "WHERE", "the subquery must be a single SELECT ... FROM b WHERE ...", src.span(n));
    }
    checkClauses(sub);
    return sub;
  }

  private void readSubqueryTable(SqlSelect sub) throws QueryException {
    SqlNode from = sub.getFrom();
    if (from == null || from instanceof SqlJoin) {
      throw new QueryException(
          "WHERE",
          "the subquery must read table b alone: SELECT 1 FROM b WHERE b.k = a.k",
          from == null ? src.span(sub) : src.span(from));
    }
    String[] b = table(from);
    if (!b[0].equals("b")) {
      throw new QueryException(
          "WHERE", "the subquery must read table b (party B), not " + b[0], src.span(from));
    }
    if ("a".equals(b[1])) {
      throw new QueryException(
          "WHERE", "alias a of table b would be confused with table a", src.span(from));
    }
    qualifierB = b[1] != null ? b[1] : "b";
    if (qualifierA.equals(qualifierB)) {
      throw new QueryException("WHERE", "both tables are called " + qualifierA, src.span(from));
    }
  }

  // ---------------------------------------------------------------- WHERE

  private List<Conjunct> readWhere(List<SqlNode> where) throws QueryException {
    List<Conjunct> out = new ArrayList<>();
    for (SqlNode c : where) {
      Conjunct conjunct = condition(c, "WHERE");
      if (qualifiers(conjunct.refs()).size() > 1) {
        throw mixesTables(src.span(c));
      }
      out.add(conjunct);
    }
    return out;
  }

  static QueryException mixesTables(SourceSpan at) {
    return new QueryException(
        "WHERE",
        "this condition uses columns of both a and b; each AND-ed"
            + " condition may use the columns of only one table (equalities between the tables belong"
            + " in ON)",
        at);
  }

  /**
   * Rewrites a WHERE condition for evaluation by Flink, collecting its column references: columns
   * become unqualified (or, for the canonical form, qualified by the table name rather than an
   * alias); niladic functions such as {@code CURRENT_DATE} stay functions; Flink type names such as
   * {@code STRING} are written as keywords; unquoted function names are upper-cased.
   */
  private final class Rewriter extends SqlShuttle {
    private final boolean canonical;
    private final String clause;
    final List<Ref> refs = new ArrayList<>();

    Rewriter(boolean canonical, String clause) {
      this.canonical = canonical;
      this.clause = clause;
    }

    List<Ref> rewriteRefs(SqlNode node) throws QueryException {
      rewrite(node);
      return refs;
    }

    SqlNode rewrite(SqlNode node) throws QueryException {
      try {
        return node.accept(this);
      } catch (Failure f) {
        throw f.error;
      }
    }

    @Override
    public SqlNode visit(SqlIdentifier id) {
      SqlOperator fn = niladicFunction(id);
      if (fn != null) {
        return new SqlBasicCall(fn, List.of(), id.getParserPosition());
      }
      Ref r = call(() -> ref(id, clause));
      refs.add(r);
      // Quoted positions: an identifier spelled like a niladic function (a column named
      // CURRENT_DATE) must be written back quoted, or it would turn into the function.
      if (canonical && r.qualifier() != null) {
        return new SqlIdentifier(
            List.of(r.qualifier().table(), r.column()), SqlParserPos.QUOTED_ZERO);
      }
      return new SqlIdentifier(r.column(), SqlParserPos.QUOTED_ZERO);
    }

    @Override
    public SqlNode visit(SqlDynamicParam param) {
      throw new Failure(
          new QueryException(clause, "query parameters (?) are not allowed", src.span(param)));
    }

    @Override
    public SqlNode visit(SqlDataTypeSpec type) {
      if (type.getTypeNameSpec() instanceof SqlUserDefinedTypeNameSpec udt
          && udt.getTypeName().isSimple()
          && !udt.getTypeName().isComponentQuoted(0)) {
        return new SqlDataTypeSpec(
            new FlinkDialect.KeywordTypeName(
                udt.getTypeName().getSimple().toUpperCase(Locale.ROOT), type.getParserPosition()),
            type.getTimeZone(),
            type.getNullable(),
            type.getParserPosition());
      }
      return type;
    }

    @Override
    public SqlNode visit(SqlCall call) {
      if (isQuery(call)) {
        throw new Failure(
            new QueryException(
                clause,
                "subqueries are not allowed here (a subquery over b may only be one AND-ed"
                    + " condition of WHERE with FROM a alone: [NOT] EXISTS, [NOT] IN)",
                src.span(call)));
      }
      if (isAggregateOrWindow(call)) {
        throw new Failure(
            new QueryException(
                clause, "aggregate and window functions are not allowed", src.span(call)));
      }
      if (call.getOperator() instanceof SqlUnresolvedFunction fn
          && UNICODE_NORMALIZATION.contains(fn.getName().toUpperCase(Locale.ROOT))) {
        throw new Failure(
            new QueryException(
                clause,
                fn.getName()
                    + " is not available: write NFC(x) (or NFD, NFKC, NFKD) for Unicode"
                    + " normalisation",
                src.span(call)));
      }
      SqlNode out = super.visit(call);
      if (out instanceof SqlCall c && c.getOperator() instanceof SqlUnresolvedFunction fn) {
        SqlIdentifier name = fn.getSqlIdentifier();
        if (name != null && name.isSimple() && !name.isComponentQuoted(0)) {
          SqlUnresolvedFunction upper =
              new SqlUnresolvedFunction(
                  new SqlIdentifier(
                      name.getSimple().toUpperCase(Locale.ROOT), name.getParserPosition()),
                  null,
                  null,
                  null,
                  null,
                  fn.getFunctionType());
          return upper.createCall(
              c.getFunctionQuantifier(),
              c.getParserPosition(),
              c.getOperandList().toArray(new SqlNode[0]));
        }
      }
      return out;
    }
  }

  /**
   * Other dialects' names of Unicode normalisation; the jobs provide NFC, NFD, NFKC and NFKD
   * (NORMALIZE itself does not parse: it is a reserved word).
   */
  private static final Set<String> UNICODE_NORMALIZATION =
      Set.of("NFC_NORMALIZE", "UNICODE_NORMALIZE", "NORMALIZE_STRING");

  private interface Step<T> {
    T get() throws QueryException;
  }

  private static <T> T call(Step<T> step) {
    try {
      return step.get();
    } catch (QueryException e) {
      throw new Failure(e);
    }
  }

  private static final class Failure extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient QueryException error;

    Failure(QueryException error) {
      super(error.getMessage(), null, false, false);
      this.error = error;
    }
  }

  // ---------------------------------------------------------------- fingerprint

  /**
   * The canonical text of the query's meaning: SELECT items, ON equalities (column of a first when
   * both are qualified) and WHERE conjuncts, with table aliases replaced by the table names, every
   * identifier quoted, keywords and unquoted function names upper-case. It does not depend on
   * whitespace, comments or keyword case.
   */
  private String canonical(
      JoinKind kind,
      boolean notIn,
      List<Item> items,
      Count count,
      List<Equality> on,
      List<Conjunct> onConditions,
      List<Conjunct> where) {
    StringBuilder sb = new StringBuilder(CANONICAL_VERSION).append("\nSELECT ");
    if (count != null) {
      sb.append("COUNT(DISTINCT ")
          .append(
              count.keys().stream().map(QueryParser::canonical).collect(Collectors.joining(", ")))
          .append(") AS ")
          .append(FlinkDialect.quote(count.name()));
    }
    sb.append(items.stream().map(QueryParser::canonical).collect(Collectors.joining(", ")));
    // an inner join of columns reads as it did before join kinds and key expressions existed, so
    // that its fingerprint did not change
    sb.append("\nFROM a ")
        .append(
            switch (kind) {
              case INNER -> "INNER JOIN";
              case LEFT -> "LEFT JOIN";
              case SEMI -> "SEMI JOIN";
              case ANTI -> notIn ? "ANTI JOIN (NOT IN)" : "ANTI JOIN";
            })
        .append(" b\nON ");
    List<String> eqs = new ArrayList<>();
    for (Equality e : on) {
      Expr l = e.left();
      Expr r = e.right();
      if (qualifiers(l.refs()).equals(Set.of(Role.B))
          && qualifiers(r.refs()).equals(Set.of(Role.A))) {
        Expr t = l;
        l = r;
        r = t;
      }
      eqs.add(l.canonical() + " = " + r.canonical());
    }
    for (Conjunct c : onConditions) {
      eqs.add("(" + c.canonical() + ")");
    }
    sb.append(String.join(" AND ", eqs));
    if (!where.isEmpty()) {
      sb.append("\nWHERE ");
      sb.append(
          where.stream().map(c -> "(" + c.canonical() + ")").collect(Collectors.joining(" AND ")));
    }
    return sb.toString();
  }

  private static String canonical(Item item) {
    if (item.star()) {
      return item.starSide() == null ? "*" : item.starSide().table() + ".*";
    }
    return canonical(item.ref())
        + (item.alias() == null ? "" : " AS " + FlinkDialect.quote(item.alias()));
  }

  private static String canonical(Ref ref) {
    return (ref.qualifier() == null ? "" : ref.qualifier().table() + ".")
        + FlinkDialect.quote(ref.column());
  }
}
