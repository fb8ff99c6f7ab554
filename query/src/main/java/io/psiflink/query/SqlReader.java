package io.psiflink.query;

import io.psiflink.api.Role;
import io.psiflink.query.ParsedQuery.Conjunct;
import io.psiflink.query.ParsedQuery.Expr;
import io.psiflink.query.ParsedQuery.Item;
import io.psiflink.query.ParsedQuery.Ref;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
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
 * What the two-party ({@link QueryParser}) and n-party ({@link MultiQueryParser}) readers of a join
 * query share: Calcite's parse, the clauses every form refuses, table and column references, SELECT
 * items, and the translation of conditions and key expressions to Flink SQL.
 */
abstract class SqlReader {
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

  final String sql;
  final SourceText src;

  /** The tables' names in party order. */
  final List<String> tables;

  /**
   * How the query refers to each table (its alias, or its name), in party order; null if unread.
   */
  final List<String> qualifiers;

  /** The words and joins of one form of query, for its messages. */
  final Form form;

  /**
   * What differs between the forms in the shared checks.
   *
   * @param theTables the tables, as in "join {@code the tables a and b} directly"
   * @param tablesAre after "unknown table x.y: ", which tables there are
   * @param subqueryHere why a subquery inside a condition is refused, in parentheses
   * @param leftJoin whether LEFT JOIN is allowed
   * @param outerJoin why an outer join that is not allowed is refused
   * @param supported why another join (CROSS) is refused: the joins this form supports
   */
  record Form(
      String theTables,
      String tablesAre,
      String subqueryHere,
      boolean leftJoin,
      String outerJoin,
      String supported) {}

  SqlReader(String sql, int parties, Form form) {
    this.form = form;
    this.sql = sql;
    this.src = new SourceText(sql);
    this.tables = new ArrayList<>(Collections.nCopies(parties, null));
    this.qualifiers = new ArrayList<>(Collections.nCopies(parties, null));
  }

  /** The party of table {@code index} (the constants {@link Role#A} and {@link Role#B} for two). */
  Role party(int index) {
    return ParsedQuery.party(index, tables.size());
  }

  // ---------------------------------------------------------------- statement shape

  /** The statement as Calcite parses it, or the syntax error. */
  SqlNode parseStatement() throws QueryException {
    try {
      return SqlParser.create(sql, CONFIG).parseQuery();
    } catch (SqlParseException e) {
      throw syntaxError(e);
    } catch (CalciteException e) {
      throw new QueryException("SQL", firstLine(e.getMessage()), src.all());
    }
  }

  QueryException syntaxError(SqlParseException e) {
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

  static String firstLine(String s) {
    if (s == null) {
      return "cannot parse the query";
    }
    int nl = s.indexOf('\n');
    return (nl < 0 ? s : s.substring(0, nl)).trim();
  }

  SqlSelect singleSelect(SqlNode node) throws QueryException {
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

  void checkClauses(SqlSelect select) throws QueryException {
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

  /**
   * Checks one JOIN's type ({@link #form}) and that it has an ON condition, between a column of
   * table {@code left} and one of {@code right}.
   */
  void checkJoin(SqlJoin join, String left, String right) throws QueryException {
    SourceSpan between = src.between(join.getLeft(), join.getRight());
    if (join.getJoinType() == JoinType.COMMA) {
      throw new QueryException(
          "FROM",
          "a comma between tables (a cross join) is not allowed: write FROM a JOIN b ON ...",
          between);
    }
    String why =
        switch (join.getJoinType()) {
          case INNER -> null;
          case LEFT -> form.leftJoin() ? null : form.outerJoin();
          case RIGHT, FULL -> form.outerJoin();
          default -> "only " + form.supported();
        };
    if (why != null) {
      throw new QueryException("FROM", describe(between) + " is not allowed: " + why, between);
    }
    if (join.isNatural()) {
      throw new QueryException(
          "FROM",
          "NATURAL JOIN is not allowed: write the ON condition, e.g. a JOIN b ON a.k = b.k",
          between);
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
            "the JOIN needs an ON condition: equalities between a column of "
                + left
                + " and one of "
                + right,
            src.span(join));
    }
  }

  /** {name, alias or null} of one side of the join. */
  String[] table(SqlNode node) throws QueryException {
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
          "FROM",
          "subqueries are not allowed: join " + form.theTables() + " directly",
          src.span(t));
    }
    if (t.getKind() == SqlKind.TABLE_REF) {
      throw new QueryException("FROM", "table hints are not allowed", src.span(t));
    }
    if (!(t instanceof SqlIdentifier id)) {
      throw new QueryException(
          "FROM",
          "only " + form.theTables() + " may be joined, not " + t.getKind().sql,
          src.span(node));
    }
    if (!id.isSimple()) {
      throw new QueryException(
          "FROM",
          "unknown table " + String.join(".", id.names) + ": " + form.tablesAre(),
          src.span(id));
    }
    return new String[] {id.getSimple(), alias};
  }

  static boolean isQuery(SqlNode node) {
    return node instanceof SqlSelect || node.getKind().belongsTo(SqlKind.QUERY);
  }

  static String describe(SourceSpan span) {
    return span == null
        ? "this join"
        : span.text().replaceAll("\\s+", " ").toUpperCase(Locale.ROOT);
  }

  // ---------------------------------------------------------------- column references

  Role qualifier(SqlIdentifier id, String clause) throws QueryException {
    String q = id.names.get(0);
    int at = qualifiers.indexOf(q);
    if (at >= 0) {
      return party(at);
    }
    String hint;
    if (tables.contains(q)) {
      hint = "table " + q + " is called " + qualifiers.get(tables.indexOf(q)) + " in this query";
    } else {
      List<String> described = new ArrayList<>();
      for (int i = 0; i < tables.size(); i++) {
        described.add(describeQualifier(i));
      }
      hint = "the tables are " + and(described);
    }
    throw new QueryException(clause, "unknown table " + q + ": " + hint, src.span(id));
  }

  private String describeQualifier(int i) {
    String q = qualifiers.get(i);
    return q.equals(tables.get(i)) ? q : q + " (table " + tables.get(i) + ")";
  }

  /** "x and y", "x, y and z". */
  static String and(List<String> items) {
    return list(items, " and ");
  }

  /** "x or y", "x, y or z". */
  static String or(List<String> items) {
    return list(items, " or ");
  }

  private static String list(List<String> items, String last) {
    int n = items.size();
    return n <= 1
        ? String.join("", items)
        : String.join(", ", items.subList(0, n - 1)) + last + items.get(n - 1);
  }

  /** The tables in a message that some text uses them together: "both a and b", "a, b and c". */
  static String both(List<String> tables) {
    return (tables.size() == 2 ? "both " : "") + and(tables);
  }

  /** The names of the tables some references qualify, in party order. */
  List<String> tablesOf(List<Ref> refs) {
    return qualifiers(refs).stream()
        .sorted(Comparator.comparingInt(Role::index))
        .map(r -> tables.get(r.index()))
        .toList();
  }

  Ref ref(SqlIdentifier id, String clause) throws QueryException {
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
  static SqlOperator niladicFunction(SqlIdentifier id) {
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

  static boolean isColumn(SqlNode node) {
    return node instanceof SqlIdentifier id && !id.isStar() && niladicFunction(id) == null;
  }

  /** Whether a call is an aggregate or window function (which a row filter cannot contain). */
  static boolean isAggregateOrWindow(SqlCall call) {
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

  static String whyNotAllowed(SqlNode expr) {
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

  /** COUNT(...): the parser leaves functions unresolved, so it is recognised by name. */
  static boolean isCount(SqlNode expr) {
    return expr instanceof SqlCall call
        && (call.getKind() == SqlKind.COUNT
            || call.getOperator() instanceof SqlUnresolvedFunction fn
                && fn.getName().equalsIgnoreCase("COUNT"));
  }

  List<Item> readSelect(SqlNodeList list) throws QueryException {
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

  static List<SqlNode> conjuncts(SqlNode node) {
    List<SqlNode> out = new ArrayList<>();
    flattenAnd(node, out);
    return out;
  }

  static void flattenAnd(SqlNode node, List<SqlNode> out) {
    if (node.getKind() == SqlKind.AND) {
      for (SqlNode operand : ((SqlCall) node).getOperandList()) {
        flattenAnd(operand, out);
      }
    } else {
      out.add(node);
    }
  }

  /** A key expression that uses the columns of several {@code tables}. */
  static QueryException mixedKey(String clause, SourceSpan at, List<String> tables) {
    return new QueryException(
        clause,
        "this key expression uses columns of "
            + both(tables)
            + "; each side of a key equality is computed by one party on its own rows, from its"
            + " own columns",
        at);
  }

  static Set<Role> qualifiers(List<Ref> refs) {
    Set<Role> out = new HashSet<>();
    for (Ref r : refs) {
      if (r.qualifier() != null) {
        out.add(r.qualifier());
      }
    }
    return out;
  }

  /** One side of a key equality: its Flink SQL, canonical text and references. */
  Expr expr(SqlNode n, String clause) throws QueryException {
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
  List<String> namesOf(Ref r) {
    return r.qualifier() == null ? List.of(r.column()) : List.of(q(r.qualifier()), r.column());
  }

  String q(Role side) {
    return qualifiers.get(side.index());
  }

  /** A single-table condition: its Flink SQL, canonical text and what the NULL analysis proves. */
  Conjunct condition(SqlNode c, String clause) throws QueryException {
    Rewriter flink = new Rewriter(false, clause);
    SqlNode rewritten = flink.rewrite(c);
    if (flink.refs.isEmpty()) {
      List<String> each = new ArrayList<>(); // "a or of b", "a, of b or of c"
      for (String t : tables) {
        each.add(each.isEmpty() ? t : "of " + t);
      }
      throw new QueryException(
          clause,
          "this condition uses no column: each AND-ed condition must test columns of " + or(each),
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

  // ---------------------------------------------------------------- WHERE

  List<Conjunct> readWhere(List<SqlNode> where) throws QueryException {
    List<Conjunct> out = new ArrayList<>();
    for (SqlNode c : where) {
      Conjunct conjunct = condition(c, "WHERE");
      if (qualifiers(conjunct.refs()).size() > 1) {
        throw mixesTables(src.span(c), tablesOf(conjunct.refs()));
      }
      out.add(conjunct);
    }
    return out;
  }

  /** A WHERE conjunct that uses the columns of several {@code tables}. */
  static QueryException mixesTables(SourceSpan at, List<String> tables) {
    return new QueryException(
        "WHERE",
        "this condition uses columns of "
            + both(tables)
            + "; each AND-ed condition may use the columns of only one table (equalities between"
            + " the tables belong in ON)",
        at);
  }

  /**
   * Rewrites a WHERE condition for evaluation by Flink, collecting its column references: columns
   * become unqualified (or, for the canonical form, qualified by the table name rather than an
   * alias); niladic functions such as {@code CURRENT_DATE} stay functions; Flink type names such as
   * {@code STRING} are written as keywords; unquoted function names are upper-cased.
   */
  final class Rewriter extends SqlShuttle {
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
            List.of(tables.get(r.qualifier().index()), r.column()), SqlParserPos.QUOTED_ZERO);
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
                clause, "subqueries are not allowed here " + form.subqueryHere(), src.span(call)));
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

  /** A SELECT item for the fingerprint: qualified by table names, not aliases. */
  String canonical(Item item) {
    if (item.star()) {
      return item.starSide() == null ? "*" : tables.get(item.starSide().index()) + ".*";
    }
    return canonical(item.ref())
        + (item.alias() == null ? "" : " AS " + FlinkDialect.quote(item.alias()));
  }

  String canonical(Ref ref) {
    return (ref.qualifier() == null ? "" : tables.get(ref.qualifier().index()) + ".")
        + FlinkDialect.quote(ref.column());
  }

  /** The WHERE conjuncts for the fingerprint, or "" when there are none. */
  static String canonicalWhere(List<Conjunct> where) {
    return where.isEmpty()
        ? ""
        : "\nWHERE "
            + where.stream()
                .map(c -> "(" + c.canonical() + ")")
                .collect(Collectors.joining(" AND "));
  }
}
