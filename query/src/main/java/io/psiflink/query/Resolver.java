package io.psiflink.query;

import io.psiflink.api.Column;
import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import io.psiflink.query.ParsedQuery.Conjunct;
import io.psiflink.query.ParsedQuery.Equality;
import io.psiflink.query.ParsedQuery.Item;
import io.psiflink.query.ParsedQuery.Ref;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Resolves a parsed query against the schemas of all its tables ({@link JoinQuery#resolve}, {@link
 * MultiJoinQuery#resolve}) or against one party's own schema only ({@link JoinQuery#view}, {@link
 * MultiJoinQuery#view}); in the latter case the other schemas are null and unqualified names
 * missing from the known schema are taken to be another table's (the other table's, of two).
 */
final class Resolver {
  private final ParsedQuery q;
  private final List<Role> parties;
  private final List<TableSchema> schemas; // in party order; null where unknown

  private final List<KeyPair> on = new ArrayList<>();
  private final List<OutputColumn> output = new ArrayList<>();
  private final Map<Role, List<String>> keys = new HashMap<>();
  private final Map<Role, Set<String>> revealed = new HashMap<>();
  private final Map<Role, List<String>> predicates = new HashMap<>();
  private final Map<Role, Set<String>> filtered = new HashMap<>();
  private final Map<Role, List<JoinKey>> joinKeys = new HashMap<>();
  private final List<ParsedQuery.Expr[]> pairs = new ArrayList<>();
  private final Set<String> strictKeyColumnsB = new HashSet<>();
  private final List<String> notes = new ArrayList<>();
  private JoinKind kind;

  private Resolver(ParsedQuery q, List<TableSchema> schemas) {
    this.q = q;
    this.parties = q.parties();
    this.schemas = new ArrayList<>(schemas);
    for (Role s : parties) {
      keys.put(s, new ArrayList<>());
      revealed.put(s, new LinkedHashSet<>());
      predicates.put(s, new ArrayList<>());
      filtered.put(s, new LinkedHashSet<>());
      joinKeys.put(s, new ArrayList<>());
    }
  }

  static ResolvedJoin resolve(JoinQuery query, ParsedQuery q, TableSchema a, TableSchema b)
      throws QueryException {
    Resolver r = new Resolver(q, Arrays.asList(a, b));
    r.run();
    return new ResolvedJoin(
        query,
        r.kind,
        r.on,
        r.output,
        q.count() == null ? null : q.count().name(),
        r.view(Role.A),
        r.view(Role.B));
  }

  static ResolvedMultiJoin resolve(MultiJoinQuery query, ParsedQuery q, List<TableSchema> schemas)
      throws QueryException {
    Resolver r = new Resolver(q, schemas);
    r.run();
    return new ResolvedMultiJoin(query, r.output, r.parties.stream().map(r::view).toList());
  }

  static PartyView view(ParsedQuery q, Role side, TableSchema own) throws QueryException {
    TableSchema[] schemas = new TableSchema[q.tables().size()];
    schemas[side.index()] = own;
    Resolver r = new Resolver(q, Arrays.asList(schemas));
    r.run();
    return r.view(side);
  }

  private boolean full() {
    return !schemas.contains(null);
  }

  private TableSchema schema(Role side) {
    return side == null ? null : schemas.get(side.index());
  }

  private boolean has(Role side, String column) {
    TableSchema s = schema(side);
    return s != null && s.indexOf(column).isPresent();
  }

  private String name(Role side) {
    String qualifier = q.qualifier(side);
    String table = q.table(side);
    return qualifier.equals(table) ? table : table + " (" + qualifier + ")";
  }

  /** The tables of {@code sides} in party order; null, a table a view does not know, last. */
  private List<String> tables(Collection<Role> sides) {
    return sides.stream()
        .sorted(Comparator.nullsLast(Comparator.comparingInt(Role::index)))
        .map(s -> s == null ? "another table" : q.table(s))
        .toList();
  }

  private Role sideOf(Ref ref, String clause) throws QueryException {
    if (ref.qualifier() != null) {
      Role s = ref.qualifier();
      if (schema(s) != null && !has(s, ref.column())) {
        throw new QueryException(
            clause,
            "table "
                + name(s)
                + " has no column "
                + ref.column()
                + "; its columns are "
                + schema(s).names(),
            ref.span());
      }
      return s;
    }
    List<Role> holders = parties.stream().filter(s -> has(s, ref.column())).toList();
    if (full()) {
      if (holders.size() > 1) {
        throw new QueryException(
            clause,
            "column "
                + ref.column()
                + " is ambiguous: "
                + SqlReader.both(tables(holders))
                + " have it; write "
                + SqlReader.or(
                    holders.stream().map(s -> q.qualifier(s) + "." + ref.column()).toList()),
            ref.span());
      }
      if (holders.isEmpty()) {
        throw new QueryException(
            clause,
            "no column "
                + ref.column()
                + " in "
                + SqlReader.or(q.tables())
                + "; "
                + String.join(
                    ", ",
                    parties.stream()
                        .map(s -> q.table(s) + " has columns " + schema(s).names())
                        .toList()),
            ref.span());
      }
      return holders.get(0);
    }
    Role own = parties.stream().filter(s -> schema(s) != null).findFirst().orElseThrow();
    if (has(own, ref.column())) {
      return own;
    }
    return parties.size() == 2 ? own.peer() : null; // null: another table's, not known which
  }

  private void run() throws QueryException {
    kind = q.kind();
    if (q.keys().isEmpty()) {
      readOn();
    } else {
      readKeys();
    }
    readWhere();
    readSelect();
  }

  /** The clause that holds the key equalities: ON, or the subquery's WHERE. */
  private String onClause() {
    return q.kind() == JoinKind.SEMI || q.kind() == JoinKind.ANTI ? "WHERE" : "ON";
  }

  /** The one table an expression's references belong to. */
  private Role sideOf(ParsedQuery.Expr x, String clause) throws QueryException {
    Set<Role> sides = new HashSet<>();
    for (Ref r : x.refs()) {
      sides.add(sideOf(r, clause));
    }
    if (sides.size() > 1) {
      throw SqlReader.mixedKey(clause, x.span(), tables(sides));
    }
    return sides.iterator().next();
  }

  private Role sideOf(Conjunct c, String clause, boolean inWhere) throws QueryException {
    Set<Role> sides = new HashSet<>();
    for (Ref r : c.refs()) {
      sides.add(sideOf(r, clause));
    }
    if (sides.size() > 1) {
      throw inWhere
          ? SqlReader.mixesTables(c.span(), tables(sides))
          : new QueryException(
              clause,
              "this condition uses columns of "
                  + SqlReader.both(tables(sides))
                  + "; besides the key equalities each AND-ed condition may use the columns of"
                  + " only one table",
              c.span());
    }
    return sides.iterator().next();
  }

  private void readOn() throws QueryException {
    String clause = onClause();
    Equality oneTable = null; // the first equality that turned out to compare one table's columns
    Role oneTableSide = null;
    for (Equality e : q.on()) {
      Role l = sideOf(e.left(), clause);
      Role r = sideOf(e.right(), clause);
      if (l == r) {
        if (e.asCondition() == null) {
          throw new QueryException(
              clause,
              "IN must compare expressions of a (left) with expressions of b (in the subquery)",
              e.span());
        }
        onCondition(l, e.asCondition());
        if (oneTable == null) {
          oneTable = e;
          oneTableSide = l;
        }
        continue;
      }
      ParsedQuery.Expr xa = Role.A.equals(l) ? e.left() : e.right();
      ParsedQuery.Expr xb = Role.A.equals(l) ? e.right() : e.left();
      checkTypes(clause, e, Role.A, xa, Role.B, xb);
      JoinKey ka = addKey(Role.A, xa);
      JoinKey kb = addKey(Role.B, xb);
      on.add(new KeyPair(ka.name(), kb.name()));
      pairs.add(new ParsedQuery.Expr[] {xa, xb});
      for (Ref ref : xb.strictRefs()) {
        strictKeyColumnsB.add(ref.column());
      }
    }
    if (pairs.isEmpty() && oneTable != null && schema(oneTableSide) == null) {
      Role own = oneTableSide.peer();
      throw new QueryException(
          clause,
          "neither side of this equality is a column of "
              + own.table()
              + "; its columns are "
              + schema(own).names(),
          oneTable.span());
    }
    if (pairs.isEmpty() && oneTable != null) {
      throw new QueryException(
          clause,
          "both columns are in table "
              + oneTableSide.table()
              + ": the join needs at least one equality between an expression of a and one of b;"
              + " qualify the columns, e.g. "
              + q.qualifierA()
              + ".k = "
              + q.qualifierB()
              + ".k",
          oneTable.span());
    }
    if (pairs.isEmpty()) {
      throw new QueryException(
          clause,
          "the join needs at least one equality between an expression of a and one of b, e.g."
              + " a.k = b.k",
          q.onSpan());
    }
    for (Conjunct c : q.onConditions()) {
      onCondition(sideOf(c, clause, false), c);
    }
    if (q.notIn()) {
      checkNotIn();
    }
  }

  /**
   * The keys of an n-party join, checked by the parser to join every table on the same key: each
   * equality's tables must exist with those columns, and their key types must compare.
   */
  private void readKeys() throws QueryException {
    for (Equality e : q.on()) {
      Role l = sideOf(e.left(), "ON");
      Role r = sideOf(e.right(), "ON");
      boolean leftFirst = l.index() < r.index();
      checkTypes(
          "ON",
          e,
          leftFirst ? l : r,
          leftFirst ? e.left() : e.right(),
          leftFirst ? r : l,
          leftFirst ? e.right() : e.left());
    }
    for (Role s : parties) {
      for (ParsedQuery.Expr x : q.keys().get(s.index())) {
        addKey(s, x);
      }
    }
  }

  /** Where both schemas are known, that the key columns {@code x} and {@code y} compare. */
  private void checkTypes(
      String clause, Equality e, Role sx, ParsedQuery.Expr x, Role sy, ParsedQuery.Expr y)
      throws QueryException {
    TableSchema tx = schema(sx);
    TableSchema ty = schema(sy);
    if (tx == null || ty == null || x.column() == null || y.column() == null) {
      return;
    }
    Column cx = tx.column(tx.indexOf(x.column().column()).orElseThrow());
    Column cy = ty.column(ty.indexOf(y.column().column()).orElseThrow());
    if (cx.type().keyClass() != cy.type().keyClass()) {
      throw new QueryException(
          clause,
          q.table(sx)
              + "."
              + cx.name()
              + " ("
              + cx.type().sqlName()
              + ") = "
              + q.table(sy)
              + "."
              + cy.name()
              + " ("
              + cy.type().sqlName()
              + "): types do not compare",
          e.span());
    }
  }

  /** Adds {@code x} to {@code side}'s join keys. */
  private JoinKey addKey(Role side, ParsedQuery.Expr x) {
    JoinKey k;
    if (x.column() != null) {
      k = JoinKey.column(x.column().column());
    } else {
      List<String> columns =
          new ArrayList<>(new LinkedHashSet<>(x.refs().stream().map(Ref::column).toList()));
      k = new JoinKey(x.flinkSql(), x.flinkSql(), columns, false);
    }
    joinKeys.get(side).add(k);
    for (Ref ref : x.refs()) {
      keys.get(side).add(ref.column());
    }
    return k;
  }

  /** A condition of ON (or of the subquery's WHERE) on one table: that table's filter. */
  private void onCondition(Role side, Conjunct c) throws QueryException {
    if (Role.A.equals(side) && q.kind() == JoinKind.LEFT) {
      throw new QueryException(
          "ON",
          "a condition on a's columns in the ON of a LEFT JOIN does not filter a's rows (SQL keeps"
              + " a's other rows, with NULL for b's columns), which is not supported; to filter"
              + " a's rows, put it in WHERE",
          c.span());
    }
    if (Role.A.equals(side) && q.kind() == JoinKind.ANTI) {
      throw new QueryException(
          "WHERE",
          "a condition on a's columns inside NOT EXISTS/NOT IN keeps a's rows that fail it"
              + " (they have no match), which is not supported; to filter a's rows, put it in the"
              + " outer WHERE",
          c.span());
    }
    filter(side, c);
  }

  private void filter(Role side, Conjunct c) {
    predicates.get(side).add(c.flinkSql());
    for (Ref r : c.refs()) {
      filtered.get(side).add(r.column());
    }
  }

  /**
   * NOT IN means the anti-join only when neither key can be NULL: one NULL in b's keys makes NOT IN
   * false for every row, and a NULL key of a makes it NULL (the row is left out).
   */
  private void checkNotIn() throws QueryException {
    for (ParsedQuery.Expr[] p : pairs) {
      for (int i = 0; i < 2; i++) {
        Role side = i == 0 ? Role.A : Role.B;
        ParsedQuery.Expr x = p[i];
        if (x.column() == null) {
          throw notIn(side.table() + "'s key " + x.span().text() + " is an expression");
        }
        String col = x.column().column();
        List<Conjunct> where = Role.A.equals(side) ? q.where() : q.onConditions();
        boolean tested = false;
        for (Conjunct c : where) {
          if (c.isNotNullOf() != null
              && c.isNotNullOf().column().equals(col)
              && sideOf(c.isNotNullOf(), "WHERE") == side) {
            tested = true;
          }
        }
        TableSchema schema = schema(side);
        boolean notNull =
            schema != null && !schema.column(schema.indexOf(col).orElseThrow()).nullable();
        if (!tested && !notNull && schema != null) {
          throw notIn(
              side.table()
                  + "."
                  + col
                  + " may be NULL (its schema allows NULL and "
                  + (Role.A.equals(side) ? "WHERE" : "the subquery's WHERE")
                  + " has no "
                  + x.span().text()
                  + " IS NOT NULL)");
        }
      }
    }
  }

  private QueryException notIn(String why) {
    return new QueryException(
        "WHERE",
        "NOT IN is supported only where it means the anti-join: a NULL among b's keys makes NOT IN"
            + " return no row at all, and a's rows with a NULL key are left out; here "
            + why
            + "; write NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k), or add b.k IS NOT NULL in the"
            + " subquery and a.k IS NOT NULL in WHERE",
        q.onSpan());
  }

  private void readWhere() throws QueryException {
    List<Conjunct> antiTests = new ArrayList<>();
    List<Conjunct> rejecting = new ArrayList<>();
    for (Conjunct c : q.where()) {
      Role side = sideOf(c, "WHERE", true);
      if (side == null) {
        continue; // another table's, in a view of one of n parties
      }
      if (Role.A.equals(side)) {
        filter(side, c);
        continue;
      }
      switch (q.kind()) {
        case INNER -> filter(side, c);
        case SEMI, ANTI ->
            throw new QueryException(
                "WHERE",
                "b's columns are not visible outside the subquery; test them inside it",
                c.span());
        case LEFT -> {
          if (c.isNullOf() != null && strictKeyColumnsB.contains(c.isNullOf().column())) {
            antiTests.add(c);
          } else if (c.rejectsNull()) {
            rejecting.add(c);
          } else {
            throw new QueryException(
                "WHERE",
                "after a LEFT JOIN this condition on b's columns would keep some of a's rows"
                    + " without a match (b's columns NULL) and filter the matched ones, which is"
                    + " not supported: put b's conditions in ON, use a condition that NULL fails"
                    + " (then the query is an inner join), or b.k IS NULL on a key column of b"
                    + " (then it is an anti-join)",
                c.span());
          }
        }
      }
    }
    if (!antiTests.isEmpty()) {
      if (!rejecting.isEmpty()) {
        throw new QueryException(
            "WHERE",
            "with "
                + antiTests.get(0).span().text()
                + " b's columns are NULL in every row, so this condition is never true",
            rejecting.get(0).span());
      }
      kind = JoinKind.ANTI;
      notes.add(
          "LEFT JOIN with WHERE "
              + antiTests.get(0).span().text()
              + " (a key column of b) runs as an anti-join: a's rows without a match");
    } else if (!rejecting.isEmpty()) {
      kind = JoinKind.INNER;
      for (Conjunct c : rejecting) {
        filter(Role.B, c);
      }
      notes.add(
          "LEFT JOIN with WHERE "
              + rejecting.get(0).span().text()
              + " runs as an inner join: that condition is never true for a's rows without a"
              + " match (b's columns NULL)");
    }
  }

  private record Out(Role side, String column, String alias, SourceSpan span) {}

  /** COUNT(DISTINCT ...) must name exactly the join key columns of one table. */
  private void readCount() throws QueryException {
    for (Role s : parties) {
      for (JoinKey k : joinKeys.get(s)) {
        if (!k.plain()) {
          throw new QueryException(
              "SELECT",
              "COUNT(DISTINCT ...) needs join keys that are columns, not expressions such as "
                  + k.name(),
              q.count().span());
        }
      }
    }
    Set<Role> sides = new HashSet<>();
    Set<String> columns = new HashSet<>();
    for (Ref r : q.count().keys()) {
      sides.add(sideOf(r, "SELECT"));
      columns.add(r.column());
    }
    Role side = sides.iterator().next();
    if (sides.size() > 1
        || (schema(side) != null && !columns.equals(new HashSet<>(keys.get(side))))) {
      throw new QueryException(
          "SELECT",
          "COUNT(DISTINCT ...) must list the join key columns of "
              + "one table, here "
              + keys.get(Role.A)
              + " of a or "
              + keys.get(Role.B)
              + " of b: "
              + "the count is of the keys both tables hold",
          q.count().span());
    }
  }

  private void readSelect() throws QueryException {
    if (q.count() != null) {
      readCount();
      return;
    }
    List<Out> outs = new ArrayList<>();
    boolean subquery = q.kind() == JoinKind.SEMI || q.kind() == JoinKind.ANTI;
    for (Item item : q.select()) {
      boolean ofB =
          item.star()
              ? (item.starSide() == null ? !subquery : Role.B.equals(item.starSide()))
              : sideOf(item.ref(), "SELECT") == Role.B;
      if (ofB && subquery) {
        throw new QueryException(
            "SELECT",
            "b's columns are not in the result of a "
                + q.kind().text()
                + ": the subquery only tests whether a row of a has a match",
            item.span());
      }
      if (ofB && kind == JoinKind.ANTI) {
        throw new QueryException(
            "SELECT",
            "b's columns are NULL in every row of this anti-join (WHERE b.k IS NULL); select a's"
                + " columns only (a.* rather than *)",
            item.span());
      }
      if (item.star()) {
        List<Role> sides =
            item.starSide() != null
                ? List.of(item.starSide())
                : subquery ? List.of(Role.A) : parties;
        for (Role s : sides) {
          if (schema(s) != null) {
            for (String col : schema(s).names()) {
              outs.add(new Out(s, col, null, item.span()));
            }
          }
        }
      } else {
        Role s = sideOf(item.ref(), "SELECT");
        if (schema(s) != null) {
          outs.add(new Out(s, item.ref().column(), item.alias(), item.span()));
        }
      }
    }
    for (Out o : outs) {
      revealed.get(o.side()).add(o.column());
    }
    if (!full()) {
      return;
    }
    if (outs.isEmpty()) {
      throw new QueryException("SELECT", "the query selects no column");
    }
    Set<String> bases = new HashSet<>();
    Set<String> names = new HashSet<>();
    for (Out o : outs) {
      String base = o.alias() != null ? o.alias() : o.column();
      String name = base;
      if (!bases.add(base)) {
        if (o.alias() != null) {
          throw new QueryException(
              "SELECT", "output name " + base + " is used twice; choose another AS name", o.span());
        }
        name = q.table(o.side()) + "_" + base;
      }
      if (!names.add(name)) {
        throw new QueryException(
            "SELECT",
            "output name "
                + name
                + " is used twice (after"
                + " prefixing repeated names with their table); rename a column with AS",
            o.span());
      }
      output.add(new OutputColumn(o.side(), o.column(), name));
    }
  }

  private PartyView view(Role side) {
    TableSchema own = schema(side);
    Set<String> needed = new HashSet<>(keys.get(side));
    needed.addAll(revealed.get(side));
    List<String> neededInOrder = own.names().stream().filter(needed::contains).toList();
    List<String> preds = predicates.get(side);
    String where =
        preds.size() == 1
            ? preds.get(0)
            : String.join(" AND ", preds.stream().map(p -> "(" + p + ")").toList());
    return new PartyView(
        side,
        keys.get(side),
        List.copyOf(revealed.get(side)),
        where,
        List.copyOf(filtered.get(side)),
        neededInOrder,
        kind,
        joinKeys.get(side),
        notes);
  }
}
