package io.psiflink.coordinator;

import io.psiflink.coordinator.Model.Direction;
import io.psiflink.coordinator.Model.GroupDecision;
import io.psiflink.coordinator.Model.GroupQueryRecord;
import io.psiflink.coordinator.Model.GroupSessionRecord;
import io.psiflink.coordinator.Model.QueryStatus;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * n-party queries as the API shows them (to this party, and to the other parties' coordinators),
 * and what P1's and the other parties' sides share: expiry and a final status.
 */
final class GroupQueries {
  private final Context ctx;

  GroupQueries(Context ctx) {
    this.ctx = ctx;
  }

  List<Map<String, Object>> list(QueryStatus status) {
    return ctx.db()
        .tx(
            c -> {
              List<Map<String, Object>> out = new ArrayList<>();
              for (GroupQueryRecord q : GroupStore.queries(c, status)) {
                out.add(view(c, q));
              }
              return out;
            });
  }

  Map<String, Object> view(String id) {
    return ctx.db().tx(c -> view(c, get(c, id)));
  }

  /**
   * What organisation {@code caller}, a party of the query, may see of it: its status, the
   * decisions (at P1 every party's, without their reasons; at another party only its own, which it
   * sends P1 anyway) and the session's public parameters; not this party's output location, nor its
   * job's state.
   */
  Map<String, Object> peerView(String id, String caller) {
    return ctx.db()
        .tx(
            c -> {
              GroupQueryRecord q = get(c, id);
              boolean p1Here = q.localIndex() == 0;
              if (q.parties().stream().noneMatch(p -> p.party().equals(caller))
                  || caller.equals(ctx.party())
                  || (!p1Here && !caller.equals(q.requester()))) {
                throw ApiException.notFound("group query " + id);
              }
              Map<String, Object> m = new LinkedHashMap<>();
              m.put("id", q.id());
              m.put("status", q.status().wire());
              // P1's reasons are its own words about who ended it; a failure's are local
              m.put("reason", q.status() == QueryStatus.FAILED ? null : q.statusReason());
              List<GroupDecision> ds = new ArrayList<>();
              for (GroupDecision d : GroupStore.decisions(c, id)) {
                if (p1Here) {
                  ds.add(
                      new GroupDecision(
                          d.party(), d.decision(), null, d.fingerprint(), d.decidedAt()));
                } else if (d.party().equals(ctx.party())) {
                  ds.add(d);
                }
              }
              m.put("decisions", ds);
              m.put(
                  "session",
                  GroupStore.sessionOfQuery(c, id).map(GroupSessionRecord::fresh).orElse(null));
              return m;
            });
  }

  private Map<String, Object> view(Connection c, GroupQueryRecord q) throws SQLException {
    @SuppressWarnings("unchecked")
    Map<String, Object> m = ctx.json().convertValue(q, LinkedHashMap.class);
    m.put("role", q.role().label());
    String disclosure = GroupStore.disclosure(c, q.id()).orElse(null);
    try {
      m.put("disclosure", disclosure == null ? null : ctx.json().readTree(disclosure));
    } catch (java.io.IOException e) {
      throw new SQLException("group query " + q.id() + " has an unreadable disclosure", e);
    }
    m.put("decisions", GroupStore.decisions(c, q.id()));
    m.put("session", GroupStore.sessionOfQuery(c, q.id()).orElse(null));
    return m;
  }

  GroupQueryRecord get(Connection c, String id) throws SQLException {
    return GroupStore.query(c, id).orElseThrow(() -> ApiException.notFound("group query " + id));
  }

  GroupQueryRecord get(String id) {
    return ctx.db().tx(c -> get(c, id));
  }

  /** Overdue pending queries expire (P1's and every party's sweeper, each by its deadline). */
  void expireOverdue(long now) {
    ctx.db()
        .tx(
            c -> {
              for (GroupQueryRecord q : GroupStore.overdue(c, now)) {
                finish(
                    c,
                    q.id(),
                    QueryStatus.EXPIRED,
                    "no decision before the deadline",
                    ctx.party(),
                    now);
              }
              return null;
            });
  }

  /**
   * A pending query ends: audited as query.&lt;status&gt; by {@code actor}; false if not pending.
   */
  boolean finish(Connection c, String id, QueryStatus status, String reason, String actor, long now)
      throws SQLException {
    if (!GroupStore.finish(c, id, status, reason, now)) {
      return false;
    }
    Store.audit(c, now, actor, "query." + status.wire(), "query", id, reason);
    return true;
  }

  /** The pending queries of {@code direction} (the sweeper polls the other side about them). */
  List<GroupQueryRecord> pending(Direction direction) {
    return ctx.db().tx(c -> GroupStore.queries(c, QueryStatus.PENDING)).stream()
        .filter(q -> q.direction() == direction)
        .toList();
  }
}
