package io.psiflink.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import io.psiflink.coordinator.Model.ColumnSpec;
import io.psiflink.coordinator.Model.Dataset;
import io.psiflink.coordinator.Model.PublishedColumn;
import io.psiflink.coordinator.Model.PublishedDataset;
import io.psiflink.query.JoinQuery;
import io.psiflink.query.PartyView;
import io.psiflink.query.QueryException;
import io.psiflink.query.ResolvedJoin;
import io.psiflink.api.Role;
import io.psiflink.query.SourceSpan;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks a join query against this party's dataset and the peer's published dataset, with the
 * flink-jobs query parser (Calcite) and resolver, then against what each dataset's owner allowed:
 * ON columns must be key columns, SELECT columns reveal columns, WHERE columns key, reveal or filter
 * columns. Both coordinators run the same check independently; each with its own full schema and
 * the other's published one.
 *
 * <p>In the SQL, table {@code a} is party A's dataset and {@code b} party B's; the submitter says
 * which side it plays ({@code role}, default A: the party that receives the joined rows).
 */
public final class QueryValidator {
  private QueryValidator() {}

  /** A dataset's columns and usage policy, whether it is ours (full) or the peer's (published). */
  record Policy(String dataset, TableSchema schema, Set<String> key, Set<String> reveal,
      Set<String> filter) {}

  static Policy policy(Dataset d) {
    List<Column> cols = new ArrayList<>();
    for (ColumnSpec c : d.schema()) {
      cols.add(new Column(c.name(), ColumnType.valueOf(c.type()),
          c.nullable() == null || c.nullable()));
    }
    return new Policy(d.name(), new TableSchema(cols), Set.copyOf(d.keyColumns()),
        Set.copyOf(d.revealColumns()), Set.copyOf(d.filterColumns()));
  }

  static Policy policy(PublishedDataset d) {
    List<Column> cols = new ArrayList<>();
    Set<String> key = new HashSet<>();
    Set<String> reveal = new HashSet<>();
    Set<String> filter = new HashSet<>();
    for (PublishedColumn c : d.columns()) {
      cols.add(new Column(c.name(), ColumnType.valueOf(c.type()), c.nullable()));
      if (c.key()) {
        key.add(c.name());
      }
      if (c.reveal()) {
        reveal.add(c.name());
      }
      if (c.filter()) {
        filter.add(c.name());
      }
    }
    return new Policy(d.name(), new TableSchema(cols), key, reveal, filter);
  }

  /**
   * Parses, resolves and checks a query.
   *
   * @param field the request field the SQL came from, for error messages ({@code sql} or {@code query})
   * @throws ApiException 422 naming the clause and the offending text
   */
  static ResolvedJoin validate(String sql, String field, Role localSide, Policy local, Policy peer) {
    Policy pa = Role.A.equals(localSide) ? local : peer;
    Policy pb = Role.A.equals(localSide) ? peer : local;
    try {
      JoinQuery q = JoinQuery.parse(sql);
      ResolvedJoin r = q.resolve(pa.schema(), pb.schema());
      check(q, Role.A, r.a(), pa);
      check(q, Role.B, r.b(), pb);
      return r;
    } catch (QueryException e) {
      throw ApiException.invalidQuery(field, e).with("sql", sql);
    }
  }

  /**
   * The query with its stars replaced by the columns of the registered (local) and published (peer)
   * schemas ({@link JoinQuery#expandStars}); unchanged without a star.
   */
  static String expandStars(String sql, String field, Role localSide, Policy local, Policy peer) {
    Policy pa = Role.A.equals(localSide) ? local : peer;
    Policy pb = Role.A.equals(localSide) ? peer : local;
    try {
      return JoinQuery.parse(sql).expandStars(pa.schema(), pb.schema());
    } catch (QueryException e) {
      throw ApiException.invalidQuery(field, e).with("sql", sql);
    }
  }

  private static void check(JoinQuery q, Role side, PartyView v, Policy p) throws QueryException {
    for (String col : v.keyColumns()) {
      if (!p.key().contains(col)) {
        throw refused(q, side, col, "ON", "a join key", p, sorted(p.key()));
      }
    }
    for (String col : v.revealedColumns()) {
      if (!p.reveal().contains(col)) {
        throw refused(q, side, col, "SELECT", "revealed", p, sorted(p.reveal()));
      }
    }
    Set<String> filterable = new HashSet<>(p.filter());
    filterable.addAll(p.key());
    filterable.addAll(p.reveal());
    for (String col : v.filterColumns()) {
      if (!filterable.contains(col)) {
        throw refused(q, side, col, "WHERE", "used in WHERE", p, sorted(filterable));
      }
    }
  }

  private static QueryException refused(JoinQuery q, Role side, String col, String clause,
      String use, Policy p, List<String> allowed) {
    List<SourceSpan> at = q.references(side, col, clause);
    return new QueryException(clause, "column " + side.table() + "." + col + " of dataset "
        + p.dataset() + " may not be " + use + " (its owner allows " + allowed + ")",
        at.isEmpty() ? null : at.get(0));
  }

  private static List<String> sorted(Set<String> s) {
    return s.stream().sorted().toList();
  }

  // ------------------------------------------------------------------ the JSON form

  /**
   * Renders the JSON form of a query as SQL of the subset:
   *
   * <pre>
   * {"select": [{"table": "a", "column": "spend", "as": "total"}, ...],
   *  "on":     [{"a": "card", "b": "card"}, ...],
   *  "where":  {"a": ["spend > 23"], "b": ["country = 'DE'"]}}
   * </pre>
   *
   * Each WHERE entry is a condition on its own table's columns (written unqualified or qualified);
   * after rendering, the SQL goes through the same parser and checks as SQL text, and each entry is
   * checked to use only its table's columns.
   */
  static String render(JsonNode q) {
    if (q == null || !q.isObject()) {
      throw ApiException.badRequest("query", "must be an object with select, on and where");
    }
    StringBuilder sql = new StringBuilder("SELECT ");
    JsonNode select = q.path("select");
    if (!select.isArray() || select.isEmpty()) {
      throw ApiException.badRequest("query.select", "must be a non-empty array");
    }
    for (int i = 0; i < select.size(); i++) {
      JsonNode item = select.get(i);
      String f = "query.select[" + i + "]";
      String table = text(item, "table", f);
      if (!table.equals("a") && !table.equals("b")) {
        throw ApiException.badRequest(f + ".table", "must be a or b, not " + table);
      }
      sql.append(i == 0 ? "" : ", ").append(table).append('.')
          .append(quote(text(item, "column", f)));
      if (item.hasNonNull("as")) {
        sql.append(" AS ").append(quote(text(item, "as", f)));
      }
    }
    sql.append(" FROM a JOIN b ON ");
    JsonNode on = q.path("on");
    if (!on.isArray() || on.isEmpty()) {
      throw ApiException.badRequest("query.on", "must be a non-empty array of {a, b} pairs");
    }
    for (int i = 0; i < on.size(); i++) {
      String f = "query.on[" + i + "]";
      sql.append(i == 0 ? "" : " AND ").append("a.").append(quote(text(on.get(i), "a", f)))
          .append(" = b.").append(quote(text(on.get(i), "b", f)));
    }
    List<String> conds = new ArrayList<>();
    JsonNode where = q.path("where");
    if (!where.isMissingNode() && !where.isNull()) {
      if (!where.isObject()) {
        throw ApiException.badRequest("query.where", "must be an object {a: [...], b: [...]}");
      }
      where.fieldNames().forEachRemaining(name -> {
        if (!name.equals("a") && !name.equals("b")) {
          throw ApiException.badRequest("query.where." + name, "tables are a and b");
        }
      });
      for (String t : List.of("a", "b")) {
        JsonNode list = where.path(t);
        if (list.isMissingNode()) {
          continue;
        }
        if (!list.isArray()) {
          throw ApiException.badRequest("query.where." + t, "must be an array of conditions");
        }
        for (int i = 0; i < list.size(); i++) {
          if (!list.get(i).isTextual() || list.get(i).asText().isBlank()) {
            throw ApiException.badRequest("query.where." + t + "[" + i + "]",
                "must be a non-empty SQL condition");
          }
          conds.add("(" + list.get(i).asText() + ")");
        }
      }
    }
    if (!conds.isEmpty()) {
      sql.append(" WHERE ").append(String.join(" AND ", conds));
    }
    return sql.toString();
  }

  /**
   * Checks that each WHERE entry of the JSON form uses only its own table's columns (a condition
   * listed under {@code a} that names only b's columns would otherwise be silently moved to b).
   */
  static void checkWhereSides(JsonNode q, Role localSide, Policy local, Policy peer) {
    JsonNode where = q.path("where");
    Policy pa = Role.A.equals(localSide) ? local : peer;
    Policy pb = Role.A.equals(localSide) ? peer : local;
    JsonNode first = q.path("on").get(0);
    String on = "a." + quote(first.path("a").asText()) + " = b." + quote(first.path("b").asText());
    for (Role s : JoinQuery.PARTIES) {
      JsonNode list = where.path(s.table());
      for (int i = 0; list.isArray() && i < list.size(); i++) {
        String probe = "SELECT * FROM a JOIN b ON " + on + " WHERE (" + list.get(i).asText() + ")";
        String field = "query.where." + s.table() + "[" + i + "]";
        try {
          ResolvedJoin r = JoinQuery.parse(probe).resolve(pa.schema(), pb.schema());
          if (!r.view(s.peer()).filterColumns().isEmpty()) {
            throw ApiException.badRequest(field, "the condition '" + list.get(i).asText()
                + "' uses columns of table " + s.peer().table() + " "
                + r.view(s.peer()).filterColumns() + "; list it under where." + s.peer().table());
          }
        } catch (QueryException e) {
          throw ApiException.invalidQuery(field, e).with("sql", probe);
        }
      }
    }
  }

  private static String text(JsonNode node, String name, String field) {
    JsonNode v = node == null ? null : node.get(name);
    if (v == null || !v.isTextual() || v.asText().isEmpty()) {
      throw ApiException.badRequest(field + "." + name, "must be a non-empty string");
    }
    return v.asText();
  }

  /** A backtick-quoted identifier (Flink SQL / Lex.JAVA), backticks inside doubled. */
  static String quote(String id) {
    return "`" + id.replace("`", "``") + "`";
  }
}
