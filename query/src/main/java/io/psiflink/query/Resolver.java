package io.psiflink.query;

import io.psiflink.api.Column;
import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import io.psiflink.query.ParsedQuery.Conjunct;
import io.psiflink.query.ParsedQuery.Equality;
import io.psiflink.query.ParsedQuery.Item;
import io.psiflink.query.ParsedQuery.Ref;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Resolves a parsed query against the schemas of both tables ({@link JoinQuery#resolve}) or against
 * one party's own schema only ({@link JoinQuery#view}); in the latter case the other schema is null
 * and unqualified names missing from the known schema are taken to be the other table's.
 */
final class Resolver {
  private final ParsedQuery q;
  private final TableSchema schemaA;
  private final TableSchema schemaB;

  private final List<KeyPair> on = new ArrayList<>();
  private final List<OutputColumn> output = new ArrayList<>();
  private final Map<Role, List<String>> keys = new HashMap<>();
  private final Map<Role, Set<String>> revealed = new HashMap<>();
  private final Map<Role, List<String>> predicates = new HashMap<>();
  private final Map<Role, Set<String>> filtered = new HashMap<>();

  private Resolver(ParsedQuery q, TableSchema schemaA, TableSchema schemaB) {
    this.q = q;
    this.schemaA = schemaA;
    this.schemaB = schemaB;
    for (Role s : JoinQuery.PARTIES) {
      keys.put(s, new ArrayList<>());
      revealed.put(s, new LinkedHashSet<>());
      predicates.put(s, new ArrayList<>());
      filtered.put(s, new LinkedHashSet<>());
    }
  }

  static ResolvedJoin resolve(JoinQuery query, ParsedQuery q, TableSchema a, TableSchema b)
      throws QueryException {
    Resolver r = new Resolver(q, a, b);
    r.run();
    return new ResolvedJoin(
        query,
        r.on,
        r.output,
        q.count() == null ? null : q.count().name(),
        r.view(Role.A),
        r.view(Role.B));
  }

  static PartyView view(ParsedQuery q, Role side, TableSchema own) throws QueryException {
    Resolver r =
        new Resolver(q, Role.A.equals(side) ? own : null, Role.B.equals(side) ? own : null);
    r.run();
    return r.view(side);
  }

  private boolean full() {
    return schemaA != null && schemaB != null;
  }

  private TableSchema schema(Role side) {
    return Role.A.equals(side) ? schemaA : schemaB;
  }

  private boolean has(Role side, String column) {
    TableSchema s = schema(side);
    return s != null && s.indexOf(column).isPresent();
  }

  private String name(Role side) {
    String qualifier = q.qualifier(side);
    return qualifier.equals(side.table()) ? side.table() : side.table() + " (" + qualifier + ")";
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
    boolean inA = has(Role.A, ref.column());
    boolean inB = has(Role.B, ref.column());
    if (full()) {
      if (inA && inB) {
        throw new QueryException(
            clause,
            "column "
                + ref.column()
                + " is ambiguous: both a and b"
                + " have it; write "
                + q.qualifierA()
                + "."
                + ref.column()
                + " or "
                + q.qualifierB()
                + "."
                + ref.column(),
            ref.span());
      }
      if (!inA && !inB) {
        throw new QueryException(
            clause,
            "no column "
                + ref.column()
                + " in a or b; a has columns "
                + schemaA.names()
                + ", b has columns "
                + schemaB.names(),
            ref.span());
      }
      return inA ? Role.A : Role.B;
    }
    Role own = schemaA != null ? Role.A : Role.B;
    return has(own, ref.column()) ? own : own.peer();
  }

  private void run() throws QueryException {
    readOn();
    readWhere();
    readSelect();
  }

  private void readOn() throws QueryException {
    for (Equality e : q.on()) {
      Role l = sideOf(e.left(), "ON");
      Role r = sideOf(e.right(), "ON");
      if (l == r) {
        String problem;
        if (schema(l) == null) {
          Role own = l.peer();
          problem =
              "neither side of this equality is a column of "
                  + own.table()
                  + "; its columns are "
                  + schema(own).names();
        } else if (e.left().qualifier() == null || e.right().qualifier() == null) {
          problem =
              "both columns are in table "
                  + l.table()
                  + ": qualify them, e.g. "
                  + q.qualifierA()
                  + ".k = "
                  + q.qualifierB()
                  + ".k";
        } else {
          problem =
              "this equality compares two columns of table "
                  + l.table()
                  + "; each equality must compare a column of a with a column of b";
        }
        throw new QueryException("ON", problem, e.span());
      }
      Ref ra = Role.A.equals(l) ? e.left() : e.right();
      Ref rb = Role.A.equals(l) ? e.right() : e.left();
      if (full()) {
        Column ca = schemaA.column(schemaA.indexOf(ra.column()).orElseThrow());
        Column cb = schemaB.column(schemaB.indexOf(rb.column()).orElseThrow());
        if (ca.type().keyClass() != cb.type().keyClass()) {
          throw new QueryException(
              "ON",
              "a."
                  + ra.column()
                  + " ("
                  + ca.type().sqlName()
                  + ") = b."
                  + rb.column()
                  + " ("
                  + cb.type().sqlName()
                  + "): types do not compare",
              e.span());
        }
      }
      on.add(new KeyPair(ra.column(), rb.column()));
      keys.get(Role.A).add(ra.column());
      keys.get(Role.B).add(rb.column());
    }
  }

  private void readWhere() throws QueryException {
    for (Conjunct c : q.where()) {
      Set<Role> sides = new HashSet<>();
      Set<String> columns = new LinkedHashSet<>();
      for (Ref r : c.refs()) {
        sides.add(sideOf(r, "WHERE"));
        columns.add(r.column());
      }
      if (sides.size() > 1) {
        throw QueryParser.mixesTables(c.span());
      }
      Role side = sides.iterator().next();
      predicates.get(side).add(c.flinkSql());
      filtered.get(side).addAll(columns);
    }
  }

  private record Out(Role side, String column, String alias, SourceSpan span) {}

  /** COUNT(DISTINCT ...) must name exactly the join key columns of one table. */
  private void readCount() throws QueryException {
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
    for (Item item : q.select()) {
      if (item.star()) {
        for (Role s : item.starSide() == null ? JoinQuery.PARTIES : List.of(item.starSide())) {
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
        name = o.side().table() + "_" + base;
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
        neededInOrder);
  }
}
