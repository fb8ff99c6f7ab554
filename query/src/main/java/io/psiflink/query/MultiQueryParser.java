package io.psiflink.query;

import io.psiflink.query.ParsedQuery.Conjunct;
import io.psiflink.query.ParsedQuery.Equality;
import io.psiflink.query.ParsedQuery.Expr;
import io.psiflink.query.ParsedQuery.Item;
import io.psiflink.query.ParsedQuery.Ref;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSelect;

/**
 * Parses an n-party join query ({@link MultiJoinQuery}) and checks that its ON clauses join every
 * table on one key.
 */
final class MultiQueryParser extends SqlReader {
  private static final String CANONICAL_VERSION = "psi-flink n-party join query v1";
  private static final String EXAMPLE = "FROM a JOIN b ON a.k = b.k JOIN c ON a.k = c.k";

  private static final Form FORM =
      new Form(
          "the tables",
          "name each party's table by one identifier",
          "(an n-party join relates its tables in ON)",
          false,
          "an n-party join is an inner JOIN of all its tables: it outputs only the rows whose key"
              + " every table holds",
          "JOIN with equalities in ON is supported");

  /** The key's columns, in key order: each table's (by party index) expression for it. */
  private final List<Map<Integer, Expr>> key = new ArrayList<>();

  private MultiQueryParser(String sql) {
    super(sql, 0, FORM);
  }

  static ParsedQuery parse(String sql) throws QueryException {
    return new MultiQueryParser(sql).run();
  }

  private ParsedQuery run() throws QueryException {
    SqlSelect select = singleSelect(parseStatement());
    checkClauses(select);
    List<SqlJoin> joins = readFrom(select);
    List<Equality> on = new ArrayList<>();
    for (int t = 1; t < tables.size(); t++) {
      readOn(joins.get(t - 1).getCondition(), t, on);
    }
    for (SqlNode item : select.getSelectList()) {
      SqlNode expr = item.getKind() == SqlKind.AS ? ((SqlCall) item).operand(0) : item;
      if (isCount(expr)) {
        throw new QueryException(
            "SELECT",
            "COUNT is not yet for n-party joins (a two-party join can count: JoinQuery); select"
                + " columns",
            src.span(expr));
      }
    }
    List<Item> items = readSelect(select.getSelectList());
    List<Conjunct> where =
        readWhere(select.getWhere() == null ? List.of() : conjuncts(select.getWhere()));
    List<List<Expr>> keys = new ArrayList<>();
    for (int i = 0; i < tables.size(); i++) {
      int party = i;
      keys.add(key.stream().map(c -> c.get(party)).toList());
    }
    return new ParsedQuery(
        tables,
        qualifiers,
        JoinKind.INNER,
        false,
        items,
        null,
        on,
        List.of(),
        src.span(joins.get(0).getCondition()),
        where,
        keys,
        canonical(items, keys, where));
  }

  // ---------------------------------------------------------------- FROM

  /** Reads the tables in FROM order; returns the joins, the i-th joining table i + 1. */
  private List<SqlJoin> readFrom(SqlSelect select) throws QueryException {
    SqlNode from = select.getFrom();
    if (from == null) {
      throw new QueryException("FROM", "an n-party join reads " + EXAMPLE, src.all());
    }
    List<SqlJoin> joins = new ArrayList<>();
    SqlNode first = from;
    while (first instanceof SqlJoin join) {
      if (join.getRight() instanceof SqlJoin) {
        throw new QueryException(
            "FROM",
            "write the joins one after another, without parentheses: " + EXAMPLE,
            src.span(join.getRight()));
      }
      joins.add(0, join);
      first = join.getLeft();
    }
    if (joins.isEmpty()) {
      table(from); // refuses a subquery, naming it
      throw new QueryException(
          "FROM", "an n-party join joins 3 or more tables: " + EXAMPLE, src.span(from));
    }
    if (joins.size() == 1) {
      throw new QueryException(
          "FROM",
          "two tables are a two-party join: parse it with JoinQuery (an n-party join joins 3 or"
              + " more tables)",
          src.span(from));
    }
    addTable(first);
    for (SqlJoin join : joins) {
      String[] right = table(join.getRight());
      checkJoin(join, tables.get(0), right[0]);
      addTable(join.getRight());
    }
    return joins;
  }

  private void addTable(SqlNode node) throws QueryException {
    String[] t = table(node);
    String name = t[0];
    String qualifier = t[1] != null ? t[1] : name;
    if (tables.contains(name)) {
      throw new QueryException(
          "FROM",
          "table " + name + " is joined twice: each party's table appears once",
          src.span(node));
    }
    if (!qualifier.equals(name) && tables.contains(qualifier)) {
      throw new QueryException(
          "FROM",
          "alias " + qualifier + " of table " + name + " would be confused with table " + qualifier,
          src.span(node));
    }
    int other = qualifiers.indexOf(name);
    if (other >= 0) {
      throw new QueryException(
          "FROM",
          "alias "
              + name
              + " of table "
              + tables.get(other)
              + " would be confused with table "
              + name,
          src.span(node));
    }
    if (qualifiers.contains(qualifier)) {
      throw new QueryException("FROM", "two tables are called " + qualifier, src.span(node));
    }
    tables.add(name);
    qualifiers.add(qualifier);
  }

  // ---------------------------------------------------------------- ON

  /** Reads the ON of the join of table {@code t}: equalities that give t the tables' key. */
  private void readOn(SqlNode condition, int t, List<Equality> on) throws QueryException {
    for (SqlNode e : conjuncts(condition)) {
      Equality eq = keyEquality(e, t);
      on.add(eq);
      match(eq, t);
    }
    for (Map<Integer, Expr> column : key) {
      if (!column.containsKey(t)) {
        throw new QueryException(
            "ON",
            "this ON gives "
                + tables.get(t)
                + " no expression equal to "
                + column.get(0).span().text()
                + ": an n-party join matches every table on the same key ("
                + keyText(0)
                + " of "
                + tables.get(0)
                + ")",
            src.span(condition));
      }
    }
  }

  /** An equality of ON between an expression of one table and one of another, up to table t. */
  private Equality keyEquality(SqlNode e, int t) throws QueryException {
    if (e.getKind() != SqlKind.EQUALS) {
      throw new QueryException(
          "ON",
          (e.getKind() == SqlKind.OR ? "OR is not allowed here: " : "")
              + "the ON of an n-party join holds AND-ed equalities between two tables' keys (a"
              + " condition on one table belongs in WHERE)",
          src.span(e));
    }
    SqlCall call = (SqlCall) e;
    Expr l = expr(call.operand(0), "ON");
    Expr r = expr(call.operand(1), "ON");
    for (Expr x : List.of(l, r)) {
      if (x.refs().isEmpty()) {
        throw new QueryException(
            "ON",
            "this equality compares a constant: the ON of an n-party join holds equalities between"
                + " two tables' keys (a condition on one table belongs in WHERE)",
            src.span(e));
      }
      for (Ref ref : x.refs()) {
        if (ref.qualifier() == null) {
          throw new QueryException(
              "ON",
              "qualify the column "
                  + ref.column()
                  + " with its table (e.g. "
                  + qualifiers.get(0)
                  + "."
                  + ref.column()
                  + "): in an n-party join every ON column names its table",
              ref.span());
        }
      }
      if (qualifiers(x.refs()).size() > 1) {
        throw mixedKey("ON", x.span(), tablesOf(x.refs()));
      }
      int table = tableOf(x);
      if (table > t) {
        throw new QueryException(
            "ON",
            "table "
                + tables.get(table)
                + " is joined after this ON: an ON relates the table it joins to the tables"
                + " before it",
            x.span());
      }
    }
    if (tableOf(l) == tableOf(r)) {
      throw new QueryException(
          "ON",
          "this equality compares two expressions of table "
              + tables.get(tableOf(l))
              + ": the ON of an n-party join holds equalities between two tables' keys (a"
              + " condition on one table belongs in WHERE)",
          src.span(e));
    }
    return new Equality(l, r, null, src.span(e));
  }

  private static int tableOf(Expr x) {
    return x.refs().get(0).qualifier().index();
  }

  /**
   * Puts both sides of {@code e} into the same column of the key: the first ON (t = 1) sets the
   * key's columns; a later one may only equate a new table's expression with an earlier table's key
   * expression, so that every table ends up with one expression per key column.
   */
  private void match(Equality e, int t) throws QueryException {
    Map<Integer, Expr> lc = column(e.left());
    Map<Integer, Expr> rc = column(e.right());
    if (lc == null && rc == null) {
      if (t > 1) {
        Expr earlier = tableOf(e.left()) < t ? e.left() : e.right();
        throw notInKey(earlier, e);
      }
      Map<Integer, Expr> c = new LinkedHashMap<>();
      c.put(tableOf(e.left()), e.left());
      c.put(tableOf(e.right()), e.right());
      key.add(c);
      return;
    }
    if (lc != null && rc != null) {
      if (lc != rc) {
        throw new QueryException(
            "ON",
            e.left().span().text()
                + " and "
                + e.right().span().text()
                + " are different columns of the join key: an n-party join matches every table"
                + " on the same key, column by column",
            e.span());
      }
      return;
    }
    Map<Integer, Expr> c = lc != null ? lc : rc;
    Expr x = lc != null ? e.right() : e.left();
    Expr known = lc != null ? e.left() : e.right();
    int table = tableOf(x);
    if (c.containsKey(table)) {
      if (t > 1 && table < t) {
        throw notInKey(x, e);
      }
      throw new QueryException(
          "ON",
          c.get(table).span().text()
              + " and "
              + x.span().text()
              + " are both equated with "
              + known.span().text()
              + ": each table has one expression for each column of the join key",
          e.span());
    }
    c.put(table, x);
  }

  /** The key column {@code x} already stands in, or null. */
  private Map<Integer, Expr> column(Expr x) {
    for (Map<Integer, Expr> c : key) {
      Expr have = c.get(tableOf(x));
      if (have != null && have.canonical().equals(x.canonical())) {
        return c;
      }
    }
    return null;
  }

  private QueryException notInKey(Expr x, Equality e) {
    int table = tableOf(x);
    return new QueryException(
        "ON",
        x.span().text()
            + " is not in the join key of "
            + tables.get(table)
            + " ("
            + keyText(table)
            + ", as the first ON sets it): an n-party join matches every table on the same key",
        e.span());
  }

  /** Table {@code table}'s key expressions as written. */
  private String keyText(int table) {
    return key.stream().map(c -> c.get(table).span().text()).collect(Collectors.joining(", "));
  }

  // ---------------------------------------------------------------- fingerprint

  /**
   * The canonical text of the query's meaning: SELECT items, the tables, each key column as the
   * tables' expressions for it (so chain and star forms of ON read the same) and the WHERE
   * conjuncts, qualified by table names rather than aliases.
   */
  private String canonical(List<Item> items, List<List<Expr>> keys, List<Conjunct> where) {
    StringBuilder sb = new StringBuilder(CANONICAL_VERSION).append("\nSELECT ");
    sb.append(items.stream().map(this::canonical).collect(Collectors.joining(", ")));
    sb.append("\nFROM ")
        .append(tables.stream().map(FlinkDialect::quote).collect(Collectors.joining(" JOIN ")))
        .append("\nON ");
    List<String> columns = new ArrayList<>();
    for (int i = 0; i < key.size(); i++) {
      int column = i;
      columns.add(
          keys.stream().map(k -> k.get(column).canonical()).collect(Collectors.joining(" = ")));
    }
    return sb.append(String.join(" AND ", columns)).append(canonicalWhere(where)).toString();
  }
}
