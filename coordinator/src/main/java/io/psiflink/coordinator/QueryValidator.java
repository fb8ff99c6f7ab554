package io.psiflink.coordinator;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.JoinMode;
import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import io.psiflink.coordinator.Model.ColumnSpec;
import io.psiflink.coordinator.Model.Dataset;
import io.psiflink.coordinator.Model.PublishedColumn;
import io.psiflink.coordinator.Model.PublishedDataset;
import io.psiflink.nativepsi.ProtocolInfo;
import io.psiflink.nativepsi.PsiParams;
import io.psiflink.query.JoinQuery;
import io.psiflink.query.PartyView;
import io.psiflink.query.QueryException;
import io.psiflink.query.ResolvedJoin;
import io.psiflink.query.SourceSpan;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Checks a join query against this party's dataset and the peer's published dataset, with the
 * flink-jobs query parser (Calcite) and resolver, then against what each dataset's owner allowed:
 * ON columns must be key columns, SELECT columns reveal columns, WHERE columns key, reveal or
 * filter columns. Both coordinators run the same check independently; each with its own full schema
 * and the other's published one.
 *
 * <p>In the SQL, table {@code a} is party A's dataset and {@code b} party B's; the submitter says
 * which side it plays ({@code role}, default A: the party that receives the joined rows).
 */
public final class QueryValidator {
  private QueryValidator() {}

  /**
   * A {@code SELECT COUNT(DISTINCT ...)} query promises both parties that only the count is
   * revealed: its protocol must be able to run with the cardinality output (the library says which
   * can, {@link ProtocolInfo#supportsCardinality()}), or the job would refuse it only after both
   * parties approved and launched.
   *
   * @throws ApiException 400 naming {@code protocol} and the protocols that can
   */
  static void checkProtocolFor(ResolvedJoin resolved, String protocol) {
    if (resolved.count() == null || ProtocolInfo.byName(protocol).supportsCardinality()) {
      return;
    }
    String able =
        ProtocolInfo.all().stream()
            .filter(ProtocolInfo::supportsCardinality)
            .map(ProtocolInfo::name)
            .collect(Collectors.joining(" or "));
    throw ApiException.badRequest(
        "protocol",
        "protocol "
            + protocol
            + " cannot reveal only the"
            + " count that SELECT COUNT(DISTINCT ...) promises; use "
            + (able.isEmpty()
                ? "a protocol with the cardinality output (none in this library)"
                : able));
  }

  /**
   * A labeled query (not count-only: a count sends no rows of B) needs a protocol whose sender can
   * attach labels to its elements (the library says which can, {@code Output.LABELS}), or the jobs
   * would refuse it only after both parties approved and launched. A count-only query runs with the
   * cardinality output in either mode (checkProtocolFor).
   *
   * @throws ApiException 400 naming {@code protocol} and the protocols that can
   */
  static void checkModeFor(ResolvedJoin resolved, String protocol, JoinMode mode) {
    if (mode != JoinMode.LABELED
        || resolved.count() != null
        || ProtocolInfo.byName(protocol).supports(PsiParams.Output.LABELS)) {
      return;
    }
    String able =
        ProtocolInfo.all().stream()
            .filter(p -> p.supports(PsiParams.Output.LABELS))
            .map(ProtocolInfo::name)
            .collect(Collectors.joining(" or "));
    throw ApiException.badRequest(
        "protocol",
        "protocol "
            + protocol
            + " cannot run mode labeled: its sender cannot attach labels (B's rows) to its"
            + " elements; use "
            + (able.isEmpty() ? "a protocol with labels (none in this library)" : able));
  }

  /** A dataset's columns and usage policy, whether it is ours (full) or the peer's (published). */
  record Policy(
      String dataset,
      TableSchema schema,
      Set<String> key,
      Set<String> reveal,
      Set<String> filter) {}

  static Policy policy(Dataset d) {
    List<Column> cols = new ArrayList<>();
    for (ColumnSpec c : d.schema()) {
      cols.add(
          new Column(c.name(), ColumnType.valueOf(c.type()), c.nullable() == null || c.nullable()));
    }
    return new Policy(
        d.name(),
        new TableSchema(cols),
        Set.copyOf(d.keyColumns()),
        Set.copyOf(d.revealColumns()),
        Set.copyOf(d.filterColumns()));
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
   * @param field the request field the SQL came from, for error messages ({@code sql} or {@code
   *     query})
   * @throws ApiException 422 naming the clause and the offending text
   */
  static ResolvedJoin validate(
      String sql, String field, Role localSide, Policy local, Policy peer) {
    Policy pa = localSide.equals(Role.A) ? local : peer;
    Policy pb = localSide.equals(Role.A) ? peer : local;
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
    Policy pa = localSide.equals(Role.A) ? local : peer;
    Policy pb = localSide.equals(Role.A) ? peer : local;
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

  private static QueryException refused(
      JoinQuery q,
      Role side,
      String col,
      String clause,
      String use,
      Policy p,
      List<String> allowed) {
    List<SourceSpan> at = q.references(side, col, clause);
    return new QueryException(
        clause,
        "column "
            + side.table()
            + "."
            + col
            + " of dataset "
            + p.dataset()
            + " may not be "
            + use
            + " (its owner allows "
            + allowed
            + ")",
        at.isEmpty() ? null : at.get(0));
  }

  private static List<String> sorted(Set<String> s) {
    return s.stream().sorted().toList();
  }

  // ------------------------------------------------------------------ the JSON form

  /**
   * Renders the JSON form of a query ({@link Requests.QueryForm}) as SQL of the subset. Each WHERE
   * entry is a condition on its own table's columns (written unqualified or qualified); after
   * rendering, the SQL goes through the same parser and checks as SQL text, and each entry is
   * checked to use only its table's columns ({@link #checkWhereSides}).
   */
  static String render(Requests.QueryForm q) {
    StringBuilder sql = new StringBuilder("SELECT ");
    for (int i = 0; i < q.select().size(); i++) {
      Requests.QueryForm.Selected item = q.select().get(i);
      sql.append(i == 0 ? "" : ", ")
          .append(item.table().table())
          .append('.')
          .append(quote(item.column()));
      if (item.as() != null) {
        sql.append(" AS ").append(quote(item.as()));
      }
    }
    sql.append(" FROM a JOIN b ON ");
    for (int i = 0; i < q.on().size(); i++) {
      sql.append(i == 0 ? "" : " AND ")
          .append("a.")
          .append(quote(q.on().get(i).a()))
          .append(" = b.")
          .append(quote(q.on().get(i).b()));
    }
    List<String> conds = new ArrayList<>();
    for (Role r : List.of(Role.A, Role.B)) {
      for (String c : q.where(r)) {
        conds.add("(" + c + ")");
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
  static void checkWhereSides(Requests.QueryForm q, Role localSide, Policy local, Policy peer) {
    Policy pa = localSide.equals(Role.A) ? local : peer;
    Policy pb = localSide.equals(Role.A) ? peer : local;
    Requests.QueryForm.KeyPair first = q.on().get(0);
    String on = "a." + quote(first.a()) + " = b." + quote(first.b());
    for (Role s : List.of(Role.A, Role.B)) {
      List<String> list = q.where(s);
      Role other = s.peer();
      for (int i = 0; i < list.size(); i++) {
        String probe = "SELECT * FROM a JOIN b ON " + on + " WHERE (" + list.get(i) + ")";
        String field = "query.where." + s.table() + "[" + i + "]";
        try {
          ResolvedJoin r = JoinQuery.parse(probe).resolve(pa.schema(), pb.schema());
          if (!r.view(other).filterColumns().isEmpty()) {
            throw ApiException.badRequest(
                field,
                "the condition '"
                    + list.get(i)
                    + "' uses columns of table "
                    + other.table()
                    + " "
                    + r.view(other).filterColumns()
                    + "; list it under where."
                    + other.table());
          }
        } catch (QueryException e) {
          throw ApiException.invalidQuery(field, e).with("sql", probe);
        }
      }
    }
  }

  /** The fingerprint both coordinators and both jobs compute of a query's text. */
  static String fingerprint(String sql) {
    try {
      return JoinQuery.parse(sql).fingerprint();
    } catch (QueryException e) {
      throw ApiException.invalidQuery("sql", e);
    }
  }

  /** A backtick-quoted identifier (Flink SQL / Lex.JAVA), backticks inside doubled. */
  static String quote(String id) {
    return "`" + id.replace("`", "``") + "`";
  }
}
