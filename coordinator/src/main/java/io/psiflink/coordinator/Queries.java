package io.psiflink.coordinator;

import io.psiflink.api.Role;
import io.psiflink.coordinator.Model.Approval;
import io.psiflink.coordinator.Model.Decision;
import io.psiflink.coordinator.Model.QueryRecord;
import io.psiflink.coordinator.Model.QueryStatus;
import io.psiflink.coordinator.Model.SessionRecord;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The queries of both directions as the API shows them (to this party, and to the peer), and the
 * transitions both sides of the approval protocol share: expiry and a final status of its own.
 */
final class Queries {
  private final Context ctx;
  private final PeerInput peerInput;

  Queries(Context ctx, PeerInput peerInput) {
    this.ctx = ctx;
    this.peerInput = peerInput;
  }

  List<Map<String, Object>> list(QueryStatus status) {
    return ctx.db()
        .tx(
            c -> {
              List<Map<String, Object>> out = new ArrayList<>();
              for (QueryRecord q : Store.queries(c, status)) {
                out.add(view(c, q));
              }
              return out;
            });
  }

  Map<String, Object> view(String id) {
    return ctx.db()
        .tx(
            c ->
                view(
                    c, Store.query(c, id).orElseThrow(() -> ApiException.notFound("query " + id))));
  }

  /**
   * What the peer may see of a query (only queries between the two parties exist here): the query,
   * the decision and the session's public parameters; not this party's output location, nor its
   * job's state, error or result.
   */
  Map<String, Object> peerView(String id) {
    peerInput.id("id", id, "query");
    return ctx.db()
        .tx(
            c -> {
              QueryRecord q =
                  Store.query(c, id).orElseThrow(() -> ApiException.notFound("query " + id));
              Map<String, Object> m = record(q);
              m.put("output", null);
              if (q.status() == QueryStatus.FAILED) {
                m.put("statusReason", null); // a local explanation
              }
              m.put("approval", Store.approval(c, q.id()).orElse(null));
              m.put(
                  "session",
                  Store.sessionOfQuery(c, q.id()).map(SessionRecord::fresh).orElse(null));
              return m;
            });
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> record(QueryRecord q) {
    return ctx.json().convertValue(q, LinkedHashMap.class);
  }

  private Map<String, Object> view(Connection c, QueryRecord q) throws SQLException {
    Map<String, Object> m = record(q);
    // what each party learns: the approval shows it before anyone decides
    String disclosure = Store.disclosure(c, q.id()).orElse(null);
    try {
      m.put("disclosure", disclosure == null ? null : ctx.json().readTree(disclosure));
    } catch (java.io.IOException e) {
      throw new SQLException("query " + q.id() + " has an unreadable disclosure", e);
    }
    m.put("approval", Store.approval(c, q.id()).orElse(null));
    m.put("session", Store.sessionOfQuery(c, q.id()).orElse(null));
    return m;
  }

  /** A pending query whose deadline passed: expired, with its approval record and audit entry. */
  void expire(Connection c, QueryRecord q, long now) throws SQLException {
    if (Store.decide(c, q.id(), QueryStatus.EXPIRED, "no decision before the deadline", now)) {
      Store.insertApproval(
          c,
          new Approval(
              q.id(), Decision.EXPIRED, ctx.party(), "no decision before the deadline", now));
      Store.audit(c, now, ctx.party(), "query.expired", "query", q.id(), null);
    }
  }

  /** Overdue pending queries expire (each side's sweeper). */
  void expireOverdue(long now) {
    ctx.db()
        .tx(
            c -> {
              for (QueryRecord q : Store.overdue(c, now)) {
                expire(c, q, now);
              }
              return null;
            });
  }

  /** A pending query ends here without a decision (refused, failed): audited as {@code action}. */
  void finish(String id, QueryStatus status, String reason, String action) {
    ctx.db()
        .tx(
            c -> {
              long now = ctx.now();
              if (Store.decide(c, id, status, reason, now)) {
                Store.audit(c, now, ctx.party(), action, "query", id, reason);
              }
              return null;
            });
  }

  /** The pending queries this party submitted (the sweeper asks the peer about them). */
  List<QueryRecord> pendingOutgoing() {
    return ctx.db().tx(c -> Store.queries(c, QueryStatus.PENDING)).stream()
        .filter(q -> q.direction() == Model.Direction.OUTGOING)
        .toList();
  }

  /** The audit detail of a new session: its query and public parameters. */
  static Map<String, Object> sessionAudit(SessionRecord s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("queryId", s.queryId());
    m.put("bins", s.bins());
    m.put("sigma", s.sigma());
    m.put("protocol", s.protocol());
    m.put("mode", s.mode().text());
    if (s.labelBytes() != null) {
      m.put("labelBytes", s.labelBytes());
    }
    Offers.prefilterAudit(m, s.prefiltering());
    for (Role r : new Role[] {Role.A, Role.B}) {
      m.put(r.table(), s.party(r) + "@" + s.endpoint(r));
    }
    return m;
  }
}
