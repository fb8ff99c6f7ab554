package io.psiflink.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import io.psiflink.api.TableSchema;
import io.psiflink.coordinator.CoordinatorConfig.Provider;
import io.psiflink.coordinator.Model.Dataset;
import io.psiflink.coordinator.Model.Decision;
import io.psiflink.coordinator.Model.Direction;
import io.psiflink.coordinator.Model.GroupDecision;
import io.psiflink.coordinator.Model.GroupMember;
import io.psiflink.coordinator.Model.GroupQueryRecord;
import io.psiflink.coordinator.Model.GroupSessionRecord;
import io.psiflink.coordinator.Model.PublishedDataset;
import io.psiflink.coordinator.Model.QueryStatus;
import io.psiflink.query.MultiJoinQuery;
import io.psiflink.query.PartyView;
import io.psiflink.query.QueryException;
import io.psiflink.query.ResolvedMultiJoin;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * P1's side of an n-party join's approval: the query this party submits is validated against every
 * party's published dataset, stored pending and offered to every other party's coordinator; their
 * votes arrive (or the sweeper polls them); once all approved, P1 creates the session and tells
 * every party, one rejection (or refusal, failure, the deadline) ends it for all.
 */
final class GroupOffers {
  private static final Logger LOG = LoggerFactory.getLogger(GroupOffers.class);

  private final Context ctx;
  private final DatasetRegistry registry;
  private final PeerDatasets peerDatasets;
  private final GroupQueries queries;
  private final GroupSessions sessions;

  GroupOffers(
      Context ctx,
      DatasetRegistry registry,
      PeerDatasets peerDatasets,
      GroupQueries queries,
      GroupSessions sessions) {
    this.ctx = ctx;
    this.registry = registry;
    this.peerDatasets = peerDatasets;
    this.queries = queries;
    this.sessions = sessions;
  }

  /**
   * An n-party query submitted by this party (P1): validated, stored, offered to every party.
   *
   * @param principal the label of the token that submitted (audited: P1's consent)
   */
  Map<String, Object> submit(GroupRequests.Submission r, String principal) {
    CoordinatorConfig config = ctx.config();
    List<GroupRequests.Party> parties = r.parties();
    int n = parties.size();
    if (!parties.get(0).party().equals(ctx.party())) {
      throw ApiException.badRequest(
          "parties[0].party",
          "must be this party, "
              + ctx.party()
              + ": the first party submits the query and writes the result");
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < n; i++) {
      String org = parties.get(i).party();
      if (!seen.add(org)) {
        throw ApiException.badRequest("parties[" + i + "].party", org + " is named twice");
      }
      if (i > 0 && config.organisation(org).isEmpty()) {
        throw ApiException.badRequest(
            "parties[" + i + "].party",
            org
                + " is not an organisation of "
                + ctx.party()
                + "; it knows "
                + config.organisations().stream().map(CoordinatorConfig.Peer::name).toList()
                + " (config peer and peers)");
      }
    }
    MultiJoinQuery q = GroupPolicy.parse(r.sql(), n);
    String ownName = parties.get(0).dataset();
    Dataset local =
        registry
            .active(ownName)
            .orElseThrow(
                () ->
                    new ApiException(
                            422,
                            "parties[0].dataset: no active dataset "
                                + ownName
                                + " is registered here")
                        .with("field", "parties[0].dataset"));
    List<QueryValidator.Policy> policies = new ArrayList<>();
    List<String> publicSizes = new ArrayList<>();
    policies.add(QueryValidator.policy(local));
    publicSizes.add(GroupPolicy.publicSize(local.publicSize()));
    GroupPolicy.checkIntersection(ownName, local.revealIntersection(), "this party's");
    for (int i = 1; i < n; i++) {
      GroupRequests.Party p = parties.get(i);
      PublishedDataset d =
          peerDatasets.fetch(p.party(), p.dataset(), "parties[" + i + "].dataset", false);
      policies.add(QueryValidator.policy(d));
      publicSizes.add(GroupPolicy.publicSize(d.publicSize()));
      GroupPolicy.checkIntersection(d.name(), d.revealIntersection(), p.party() + "'s");
    }
    ResolvedMultiJoin resolved;
    try {
      List<TableSchema> schemas = policies.stream().map(QueryValidator.Policy::schema).toList();
      resolved = q.resolve(schemas);
    } catch (QueryException e) {
      throw ApiException.invalidQuery("sql", e).with("sql", r.sql());
    }
    List<PartyView> views = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      views.add(resolved.view(i));
      GroupPolicy.check(q, i, views.get(i), policies.get(i));
    }
    Provider provider = GroupPolicy.registered(config, r.provider());
    List<GroupMember> members = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      members.add(
          new GroupMember(
              parties.get(i).party(),
              parties.get(i).dataset(),
              i == 0 ? ctx.bridgeFingerprint() : null));
    }
    long now = ctx.now();
    GroupQueryRecord g =
        new GroupQueryRecord(
            UUID.randomUUID().toString(),
            Direction.OUTGOING,
            ctx.party(),
            0,
            r.sql(),
            q.fingerprint(),
            r.bins() != null ? r.bins() : config.defaults().bins(),
            r.sigma() != null ? r.sigma() : config.defaults().sigma(),
            provider.name(),
            provider.certSha256(),
            members,
            config.bridge().endpoint(),
            QueryStatus.PENDING,
            null,
            now,
            now + config.approvalTtl().toMillis(),
            null,
            r.output());
    String disclosure =
        Store.json(GroupPolicy.disclosure(q, members, 0, views, publicSizes, provider));
    ctx.db()
        .tx(
            c -> {
              GroupStore.insertQuery(c, g, disclosure);
              // P1's consent is its submission
              GroupStore.insertDecision(
                  c,
                  g.id(),
                  new GroupDecision(
                      ctx.party(), Decision.APPROVED, "submitted", ctx.bridgeFingerprint(), now));
              Map<String, Object> d = audit(g);
              d.put("principal", principal);
              Store.audit(c, now, ctx.party(), "query.submitted", "query", g.id(), Store.json(d));
              return null;
            });
    GroupRequests.Offer offer =
        new GroupRequests.Offer(
            g.id(),
            ctx.party(),
            g.sql(),
            g.fingerprint(),
            members,
            g.bins(),
            g.sigma(),
            g.provider(),
            g.providerCertSha256(),
            g.requesterEndpoint(),
            g.expiresAt());
    for (int i = 1; i < n; i++) {
      String org = members.get(i).party();
      try {
        ctx.organisation(org).post("/v1/peer/group-queries", offer);
      } catch (PeerClient.PeerError e) {
        // the refusing party holds no query: the others hear the outcome
        end(
            g.id(),
            QueryStatus.REFUSED,
            org + " refused the query: " + PeerDatasets.message(e),
            org);
        throw new ApiException(
                e.status / 100 == 4 ? 422 : 502,
                org + "'s coordinator refused the query: " + PeerDatasets.message(e))
            .with("field", "parties[" + i + "]")
            .with("peer", e.body)
            .with("id", g.id());
      } catch (IOException e) {
        end(
            g.id(),
            QueryStatus.FAILED,
            "cannot reach " + org + "'s coordinator: " + e.getMessage(),
            null);
        throw new ApiException(502, "cannot reach " + org + "'s coordinator: " + e.getMessage())
            .with("field", "parties[" + i + "]")
            .with("id", g.id());
      }
    }
    return queries.view(g.id());
  }

  /**
   * Party {@code from}'s vote on query {@code id}. Answers with what {@code from} may see: once all
   * approved, the session.
   */
  Map<String, Object> vote(String id, String from, GroupRequests.Vote v) {
    long now = ctx.now();
    boolean concluded =
        ctx.db()
            .tx(
                c -> {
                  GroupQueryRecord q = queries.get(c, id);
                  if (q.direction() != Direction.OUTGOING
                      || q.parties().stream().skip(1).noneMatch(p -> p.party().equals(from))) {
                    throw ApiException.notFound("group query " + id);
                  }
                  if (q.status() != QueryStatus.PENDING) {
                    return false; // it ended already; the answer says how
                  }
                  if (q.expiresAt() <= now) {
                    queries.finish(
                        c,
                        id,
                        QueryStatus.EXPIRED,
                        "no decision before the deadline",
                        ctx.party(),
                        now);
                    return true;
                  }
                  if (!GroupStore.insertDecision(
                      c,
                      id,
                      new GroupDecision(from, v.decision(), v.reason(), v.fingerprint(), now))) {
                    return false; // the vote and the poll may both deliver it
                  }
                  Map<String, Object> d = new LinkedHashMap<>();
                  d.put("party", from);
                  d.put("reason", v.reason());
                  Store.audit(
                      c, now, from, "query." + v.decision().wire(), "query", id, Store.json(d));
                  if (v.decision() == Decision.REJECTED) {
                    // audited above, as the vote
                    return GroupStore.finish(
                        c, id, QueryStatus.REJECTED, from + " rejected the query", now);
                  }
                  List<GroupDecision> ds = GroupStore.decisions(c, id);
                  if (ds.size() < q.parties().size()) {
                    return false;
                  }
                  List<GroupMember> pinned = new ArrayList<>();
                  for (GroupMember m : q.parties()) {
                    pinned.add(
                        m.withFingerprint(
                            ds.stream()
                                .filter(x -> x.party().equals(m.party()))
                                .findFirst()
                                .orElseThrow()
                                .fingerprint()));
                  }
                  GroupSessionRecord s =
                      new GroupSessionRecord(
                          UUID.randomUUID().toString(), id, q.requesterEndpoint(), pinned, now);
                  // audited as session.created, with every decision
                  GroupStore.finish(c, id, QueryStatus.APPROVED, "every party approved", now);
                  GroupStore.insertSession(c, s);
                  Store.audit(
                      c,
                      now,
                      ctx.party(),
                      "session.created",
                      "session",
                      s.id(),
                      GroupSessions.audit(q, s, ds));
                  return true;
                });
    if (concluded) {
      tellOutcome(id, null);
      ctx.db().tx(c -> GroupStore.sessionOfQuery(c, id)).ifPresent(s -> sessions.launch(s.id()));
    }
    return queries.peerView(id, from);
  }

  /**
   * Asks each party that has not voted on a query pending here, in case its vote was lost; fails
   * the query if a party never received the offer.
   */
  void poll(GroupQueryRecord q) {
    Set<String> voted = new HashSet<>();
    ctx.db().tx(c -> GroupStore.decisions(c, q.id())).forEach(d -> voted.add(d.party()));
    for (GroupMember m : q.parties().subList(1, q.parties().size())) {
      if (voted.contains(m.party())) {
        continue;
      }
      try {
        JsonNode r =
            ctx.organisation(m.party()).get("/v1/peer/group-queries/" + PeerClient.segment(q.id()));
        for (JsonNode d : r.path("decisions")) {
          if (d.path("party").asText().equals(m.party())) {
            vote(
                q.id(),
                m.party(),
                GroupRequests.Vote.parse(
                    d,
                    (field, value, why) ->
                        ApiException.badRequest(field, m.party() + "'s decision: " + why)));
          }
        }
      } catch (PeerClient.PeerError e) {
        if (e.status == 404 && q.createdAt() < ctx.now() - Offers.UNDELIVERED_AFTER.toMillis()) {
          end(
              q.id(),
              QueryStatus.FAILED,
              m.party() + " has no record of the query: it was never delivered",
              m.party());
          return;
        }
        LOG.debug("poll of {} at {}: {}", q.id(), m.party(), e.getMessage());
      } catch (IOException | ApiException e) {
        LOG.debug("poll of {} at {}: {}", q.id(), m.party(), e.getMessage());
      }
    }
  }

  /** Ends a pending query here and tells every other party but {@code except} (null: all). */
  private void end(String id, QueryStatus status, String reason, String except) {
    long now = ctx.now();
    if (ctx.db().tx(c -> queries.finish(c, id, status, reason, ctx.party(), now))) {
      tellOutcome(id, except);
    }
  }

  /**
   * Tells every other party how a query ended (what {@link GroupQueries#peerView} shows); a party
   * that does not hear it asks (its sweeper polls).
   */
  private void tellOutcome(String id, String except) {
    GroupQueryRecord q = queries.get(id);
    for (GroupMember m : q.parties().subList(1, q.parties().size())) {
      if (m.party().equals(except)) {
        continue;
      }
      try {
        ctx.organisation(m.party())
            .post(
                "/v1/peer/group-queries/" + PeerClient.segment(id) + "/outcome",
                queries.peerView(id, m.party()));
      } catch (IOException | PeerClient.PeerError e) {
        LOG.warn("cannot tell {} how group query {} ended: {}", m.party(), id, e.getMessage());
        ctx.audit(ctx.now(), ctx.party(), "peer.notify_failed", "query", id, m.party());
      }
    }
  }

  /** The audit detail of an n-party query: its SQL, fingerprint, parties, datasets, provider. */
  static Map<String, Object> audit(GroupQueryRecord q) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("sql", q.sql());
    m.put("fingerprint", q.fingerprint());
    m.put("parties", q.parties().stream().map(p -> p.party() + ":" + p.dataset()).toList());
    m.put("role", q.role().label());
    m.put("provider", q.provider());
    m.put("providerCertSha256", q.providerCertSha256());
    return m;
  }
}
