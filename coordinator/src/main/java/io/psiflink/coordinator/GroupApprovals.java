package io.psiflink.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import io.psiflink.coordinator.CoordinatorConfig.Provider;
import io.psiflink.coordinator.Model.Dataset;
import io.psiflink.coordinator.Model.Decision;
import io.psiflink.coordinator.Model.Direction;
import io.psiflink.coordinator.Model.GroupDecision;
import io.psiflink.coordinator.Model.GroupMember;
import io.psiflink.coordinator.Model.GroupQueryRecord;
import io.psiflink.coordinator.Model.GroupSessionRecord;
import io.psiflink.coordinator.Model.QueryStatus;
import io.psiflink.query.MultiJoinQuery;
import io.psiflink.query.PartyView;
import io.psiflink.query.QueryException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The side of an n-party join's approval at every party but P1: the offer is validated
 * independently against this party's registry and stored pending; this party's owner approves or
 * rejects it, and the vote goes to P1's coordinator; P1's outcome (the session once all approved)
 * arrives, or the sweeper asks P1 for it.
 */
final class GroupApprovals {
  private static final Logger LOG = LoggerFactory.getLogger(GroupApprovals.class);

  private final Context ctx;
  private final DatasetRegistry registry;
  private final PeerInput peerInput;
  private final GroupQueries queries;
  private final GroupSessions sessions;

  GroupApprovals(
      Context ctx,
      DatasetRegistry registry,
      PeerInput peerInput,
      GroupQueries queries,
      GroupSessions sessions) {
    this.ctx = ctx;
    this.registry = registry;
    this.peerInput = peerInput;
    this.queries = queries;
    this.sessions = sessions;
  }

  /** An n-party query P1's coordinator ({@code from}) offers for this party's approval. */
  Map<String, Object> receive(String from, GroupRequests.Offer offer) {
    CoordinatorConfig config = ctx.config();
    String id = offer.id();
    if (!offer.requester().equals(from)) {
      throw refused(
          from, "requester", offer.requester(), id, "must be the organisation that calls");
    }
    int index = -1;
    for (int i = 0; i < offer.parties().size(); i++) {
      if (offer.parties().get(i).party().equals(ctx.party())) {
        index = i;
      }
    }
    if (index < 1) {
      throw refused(from, "parties", null, id, ctx.party() + " is not among the query's parties");
    }
    long expiresAt = offer.expiresAt();
    if (expiresAt <= ctx.now()) {
      throw ApiException.badRequest("expiresAt", "the deadline has passed");
    }
    expiresAt = Math.min(expiresAt, ctx.now() + config.approvalTtl().toMillis());
    MultiJoinQuery q = GroupPolicy.parse(offer.sql(), offer.parties().size());
    if (!q.fingerprint().equals(offer.fingerprint())) {
      throw ApiException.badRequest("fingerprint", "does not match the query");
    }
    String ownName = offer.parties().get(index).dataset();
    Dataset own =
        registry
            .active(ownName)
            .orElseThrow(
                () ->
                    new ApiException(
                            422, "parties: no active dataset " + ownName + " at " + ctx.party())
                        .with("field", "parties"));
    // against what we publish: the requester reads the errors (as for two parties)
    QueryValidator.Policy policy = QueryValidator.policy(registry.publish(own));
    PartyView view;
    try {
      view = q.view(index, policy.schema());
    } catch (QueryException e) {
      throw ApiException.invalidQuery("sql", e).with("sql", offer.sql());
    }
    GroupPolicy.check(q, index, view, policy);
    GroupPolicy.checkIntersection(ownName, own.revealIntersection(), "this party's");
    Provider provider = GroupPolicy.approve(config, offer.provider(), offer.providerCertSha256());
    int n = offer.parties().size();
    List<PartyView> views = new ArrayList<>(Collections.nCopies(n, (PartyView) null));
    views.set(index, view);
    List<String> sizes = new ArrayList<>(Collections.nCopies(n, (String) null));
    sizes.set(index, GroupPolicy.publicSize(own.publicSize()));
    String disclosure =
        Store.json(GroupPolicy.disclosure(q, offer.parties(), index, views, sizes, provider));
    long now = ctx.now();
    GroupQueryRecord g =
        new GroupQueryRecord(
            id,
            Direction.INCOMING,
            from,
            index,
            offer.sql(),
            offer.fingerprint(),
            offer.bins(),
            offer.sigma(),
            offer.provider(),
            offer.providerCertSha256(),
            offer.parties(),
            offer.requesterEndpoint(),
            QueryStatus.PENDING,
            null,
            now,
            expiresAt,
            null,
            null);
    ctx.db()
        .tx(
            c -> {
              if (GroupStore.query(c, id).isPresent()) {
                throw ApiException.conflict("group query " + id + " already exists");
              }
              GroupStore.insertQuery(c, g, disclosure);
              Store.audit(
                  c, now, from, "query.received", "query", id, Store.json(GroupOffers.audit(g)));
              return null;
            });
    return queries.peerView(id, from);
  }

  /**
   * This party approves or rejects an n-party query it was offered; P1's coordinator hears the vote
   * (and answers with the outcome, once there is one).
   *
   * @param principal the label of the token that decided (audited here only)
   */
  Map<String, Object> decide(String id, Decision decision, String reason, String principal) {
    long now = ctx.now();
    String fingerprint = decision == Decision.APPROVED ? ctx.bridgeFingerprint() : null;
    GroupQueryRecord q =
        ctx.db()
            .tx(
                c -> {
                  GroupQueryRecord g = queries.get(c, id);
                  if (g.direction() != Direction.INCOMING) {
                    throw ApiException.conflict(
                        "group query "
                            + id
                            + " was submitted by this party; the other parties decide on it");
                  }
                  if (g.status() != QueryStatus.PENDING
                      || GroupStore.decisions(c, id).stream()
                          .anyMatch(d -> d.party().equals(ctx.party()))) {
                    throw ApiException.conflict(
                        "group query "
                            + id
                            + " is "
                            + g.status().wire()
                            + (g.status() == QueryStatus.PENDING
                                ? " and this party decided on it already"
                                : ", not pending"));
                  }
                  if (g.expiresAt() <= now) {
                    queries.finish(
                        c,
                        id,
                        QueryStatus.EXPIRED,
                        "no decision before the deadline",
                        ctx.party(),
                        now);
                    return g;
                  }
                  if (decision == Decision.APPROVED) {
                    // the registry may have changed since the offer
                    GroupPolicy.approve(ctx.config(), g.provider(), g.providerCertSha256());
                  }
                  GroupStore.insertDecision(
                      c, id, new GroupDecision(ctx.party(), decision, reason, fingerprint, now));
                  Store.audit(
                      c,
                      now,
                      ctx.party(),
                      "query." + decision.wire(),
                      "query",
                      id,
                      Sessions.principalDetail(principal, reason));
                  if (decision == Decision.REJECTED) {
                    GroupStore.finish(c, id, QueryStatus.REJECTED, "rejected by this party", now);
                  }
                  return g;
                });
    if (queries.get(id).status() == QueryStatus.EXPIRED) {
      throw ApiException.conflict("group query " + id + " expired before the decision");
    }
    java.util.LinkedHashMap<String, Object> vote = new java.util.LinkedHashMap<>();
    vote.put("decision", decision.wire());
    vote.put("reason", reason);
    vote.put("fingerprint", fingerprint);
    try {
      JsonNode answer =
          ctx.organisation(q.requester())
              .post("/v1/peer/group-queries/" + PeerClient.segment(id) + "/decision", vote);
      apply(q.requester(), id, answer);
    } catch (IOException | PeerClient.PeerError e) {
      // P1's sweeper polls GET /v1/peer/group-queries/{id}; recorded, not fatal
      LOG.warn("cannot tell {} about the decision on {}: {}", q.requester(), id, e.getMessage());
      ctx.audit(ctx.now(), ctx.party(), "peer.notify_failed", "query", id, e.getMessage());
    }
    return queries.view(id);
  }

  /** P1's coordinator ({@code from}) tells how query {@code id} ended. */
  Map<String, Object> outcome(String id, String from, JsonNode body) {
    GroupQueryRecord q = queries.get(id);
    if (q.direction() != Direction.INCOMING || !q.requester().equals(from)) {
      throw ApiException.notFound("group query " + id);
    }
    apply(from, id, body);
    return queries.peerView(id, from);
  }

  /** Asks P1 how a query still pending here ended (its outcome call may have been lost). */
  void poll(GroupQueryRecord q) {
    try {
      apply(
          q.requester(),
          q.id(),
          ctx.organisation(q.requester())
              .get("/v1/peer/group-queries/" + PeerClient.segment(q.id())));
    } catch (IOException | PeerClient.PeerError | ApiException e) {
      LOG.debug("poll of {} at {}: {}", q.id(), q.requester(), e.getMessage());
    }
  }

  /** Applies P1's view of query {@code id} here, if it has ended; nothing while it is pending. */
  private void apply(String from, String id, JsonNode body) {
    if (body == null || "pending".equals(body.path("status").asText())) {
      return;
    }
    GroupRequests.Outcome o =
        GroupRequests.Outcome.parse(
            body,
            ctx.json(),
            (field, value, why) -> peerInput.refused(from, field, value, "query", id, why));
    GroupQueryRecord q = queries.get(id);
    if (o.status() == QueryStatus.APPROVED) {
      checkSession(from, q, o.session());
    }
    long now = ctx.now();
    boolean launch =
        ctx.db()
            .tx(
                c -> {
                  GroupQueryRecord g = queries.get(c, id);
                  if (g.status() != QueryStatus.PENDING) {
                    return false; // the outcome and the poll may both deliver it
                  }
                  if (o.status() != QueryStatus.APPROVED) {
                    queries.finish(c, id, o.status(), o.reason(), from, now);
                    return false;
                  }
                  boolean approvedHere =
                      GroupStore.decisions(c, id).stream()
                          .anyMatch(
                              d ->
                                  d.party().equals(ctx.party())
                                      && d.decision() == Decision.APPROVED);
                  if (!approvedHere) {
                    throw ApiException.conflict(
                        "group query " + id + " was not approved by " + ctx.party());
                  }
                  // every party's decision, as P1 recorded it, goes into this party's log too
                  for (GroupDecision d : o.decisions()) {
                    if (!d.party().equals(ctx.party())) {
                      Store.audit(
                          c,
                          now,
                          d.party(),
                          "query." + d.decision().wire(),
                          "query",
                          id,
                          Store.json(Map.of("reportedBy", from)));
                    }
                  }
                  GroupStore.finish(c, id, QueryStatus.APPROVED, "every party approved", now);
                  GroupSessionRecord s = o.session().fresh();
                  GroupStore.insertSession(c, s);
                  Store.audit(
                      c,
                      now,
                      from,
                      "session.created",
                      "session",
                      s.id(),
                      GroupSessions.audit(g, s, o.decisions()));
                  return true;
                });
    if (launch) {
      sessions.launch(o.session().id());
    }
  }

  /** The session P1 created must be this query's, with this party's own pin. */
  private void checkSession(String from, GroupQueryRecord q, GroupSessionRecord s) {
    peerInput.id("session.id", s.id(), "session");
    List<GroupMember> ps = s.parties();
    boolean ok =
        q.id().equals(s.queryId())
            && q.requesterEndpoint().equals(s.endpoint())
            && ps.size() == q.parties().size();
    for (int i = 0; ok && i < ps.size(); i++) {
      GroupMember m = ps.get(i);
      GroupMember expected = q.parties().get(i);
      ok =
          m.party().equals(expected.party())
              && m.dataset().equals(expected.dataset())
              && Confined.isFingerprint(m.fingerprint())
              && (i != 0 || m.fingerprint().equals(expected.fingerprint()))
              && (i != q.localIndex() || m.fingerprint().equals(ctx.bridgeFingerprint()));
    }
    if (!ok) {
      throw peerInput.refused(
          from, "session", s.id(), "query", q.id(), "does not match the query this party approved");
    }
  }

  private ApiException refused(String from, String field, String value, String id, String why) {
    return peerInput.refused(from, field, value, "query", id, why);
  }
}
