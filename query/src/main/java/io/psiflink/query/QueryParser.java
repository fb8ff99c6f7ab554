package io.psiflink.query;

import io.psiflink.api.Role;
import io.psiflink.query.ParsedQuery.Conjunct;
import io.psiflink.query.ParsedQuery.Count;
import io.psiflink.query.ParsedQuery.Equality;
import io.psiflink.query.ParsedQuery.Expr;
import io.psiflink.query.ParsedQuery.Item;
import io.psiflink.query.ParsedQuery.Ref;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.calcite.sql.JoinType;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;

/**
 * Parses a join query with Calcite and checks that it is inside the supported subset. See {@link
 * JoinQuery} for the subset and the lexical rules.
 */
final class QueryParser extends SqlReader {
  private static final String CANONICAL_VERSION = "psi-flink join query v1";

  private static final Form FORM =
      new Form(
          "the tables a and b",
          "the tables are a (party A) and b (party B)",
          "(a subquery over b may only be one AND-ed condition of WHERE with FROM a alone: [NOT]"
              + " EXISTS, [NOT] IN)",
          true,
          "it would give party A the rows of b outside the intersection, which party B never"
              + " reveals; a JOIN, LEFT JOIN, EXISTS or NOT EXISTS keeps to A's rows",
          "JOIN and LEFT JOIN with equalities in ON are supported");

  /**
   * A third table: a two-party query has two; more are an n-party join ({@link MultiJoinQuery}).
   */
  private static final String MORE_TABLES =
      "exactly two tables, a and b, may be joined here; three or more tables are an n-party join"
          + " (./psi local --table NAME=PATH for each)";

  private QueryParser(String sql) {
    super(sql, 2, FORM);
    tables.set(0, "a");
    tables.set(1, "b");
  }

  static ParsedQuery parse(String sql) throws QueryException {
    return new QueryParser(sql).run();
  }

  private ParsedQuery run() throws QueryException {
    SqlSelect select = singleSelect(parseStatement());
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
        tables,
        qualifiers,
        kind,
        notIn,
        items,
        count,
        on,
        onConditions,
        onSpan,
        where,
        List.of(),
        canonical(kind, notIn, items, count, on, onConditions, where));
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
      throw new QueryException("FROM", MORE_TABLES, src.after(inner, join.getRight()));
    }
    if (join.getRight() instanceof SqlJoin) {
      throw new QueryException("FROM", MORE_TABLES, src.span(join.getRight()));
    }
    checkJoin(join, "a", "b");
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
    qualifiers.set(0, left[1] != null ? left[1] : "a");
    qualifiers.set(1, right[1] != null ? right[1] : "b");
    if (qualifiers.get(0).equals(qualifiers.get(1))) {
      throw new QueryException(
          "FROM", "both tables are called " + qualifiers.get(0), src.span(join.getRight()));
    }
    return join;
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

  // ---------------------------------------------------------------- ON

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
              throw mixedKey(clause, x.span(), tablesOf(x.refs()));
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
    qualifiers.set(0, a[1] != null ? a[1] : "a");
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
    qualifiers.set(1, b[1] != null ? b[1] : "b");
    if (qualifiers.get(0).equals(qualifiers.get(1))) {
      throw new QueryException(
          "WHERE", "both tables are called " + qualifiers.get(0), src.span(from));
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
          .append(count.keys().stream().map(this::canonical).collect(Collectors.joining(", ")))
          .append(") AS ")
          .append(FlinkDialect.quote(count.name()));
    }
    sb.append(items.stream().map(this::canonical).collect(Collectors.joining(", ")));
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
    return sb.append(String.join(" AND ", eqs)).append(canonicalWhere(where)).toString();
  }
}
