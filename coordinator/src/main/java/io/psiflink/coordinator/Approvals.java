package io.psiflink.coordinator;

import io.psiflink.api.Role;
import io.psiflink.coordinator.Model.Approval;
import io.psiflink.coordinator.Model.Dataset;
import io.psiflink.coordinator.Model.Decision;
import io.psiflink.coordinator.Model.Direction;
import io.psiflink.coordinator.Model.PublishedDataset;
import io.psiflink.coordinator.Model.QueryRecord;
import io.psiflink.coordinator.Model.QueryStatus;
import io.psiflink.coordinator.Model.SessionRecord;
import io.psiflink.query.ResolvedJoin;
import java.io.IOException;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The approver's side of the approval protocol: a query the peer offers is validated independently
 * against this party's registry and stored pending; this party approves (creating the session) or
 * rejects it, and tells the requester.
 */
final class Approvals {
  private static final Logger LOG = LoggerFactory.getLogger(Approvals.class);

  private final Context ctx;
  private final DatasetRegistry registry;
  private final PeerDatasets peerDatasets;
  private final PeerInput peerInput;
  private final Queries queries;
  private final Sessions sessions;

  Approvals(
      Context ctx,
      DatasetRegistry registry,
      PeerDatasets peerDatasets,
      PeerInput peerInput,
      Queries queries,
      Sessions sessions) {
    this.ctx = ctx;
    this.registry = registry;
    this.peerDatasets = peerDatasets;
    this.peerInput = peerInput;
    this.queries = queries;
    this.sessions = sessions;
  }

  /** A query sent by the peer coordinator for this party's approval. */
  Map<String, Object> receive(Requests.Offer offer) {
    CoordinatorConfig config = ctx.config();
    String id = offer.id(); // a canonical UUID (Requests.Offer)
    String requester = offer.requester();
    if (!requester.equals(ctx.peerName())) {
      throw new ApiException(403, "requester " + requester + " is not this coordinator's peer");
    }
    String protocol = offer.protocol();
    if (!config.protocols().contains(protocol)) {
      throw ApiException.badRequest(
          "protocol",
          "protocol "
              + protocol
              + " is not offered by "
              + ctx.party()
              + "; it offers "
              + config.protocols());
    }
    String endpoint = offer.requesterEndpoint();
    String peerFingerprint = offer.requesterFingerprint();
    if (!Confined.isEndpoint(endpoint)) {
      throw peerInput.refused("requesterEndpoint", endpoint, "query", id, "must be HOST:PORT");
    }
    if (!Confined.isFingerprint(peerFingerprint)) {
      throw peerInput.refused(
          "requesterFingerprint",
          peerFingerprint,
          "query",
          id,
          "must be a SHA-256 in hex (64 lower-case digits)");
    }
    long expiresAt = offer.expiresAt();
    if (expiresAt <= ctx.now()) {
      throw ApiException.badRequest("expiresAt", "the deadline has passed");
    }
    expiresAt = Math.min(expiresAt, ctx.now() + config.approvalTtl().toMillis());

    String ownName = offer.approverDataset();
    String requesterDataset = offer.requesterDataset();
    String sql = offer.sql();
    Dataset own =
        registry
            .active(ownName)
            .orElseThrow(
                () ->
                    new ApiException(
                            422,
                            "approverDataset: no active dataset " + ownName + " at " + ctx.party())
                        .with("field", "approverDataset"));
    PublishedDataset theirs = peerDatasets.fetch(requesterDataset, "requesterDataset", true);
    Role ownSide = offer.requesterSide().peer();
    // Validated against what we publish, not our full schema: the peer reads the errors, and
    // "may not be revealed" for a column it was never shown would confirm that the column exists.
    QueryValidator.Policy ownPolicy = QueryValidator.policy(registry.publish(own));
    QueryValidator.Policy theirPolicy = QueryValidator.policy(theirs);
    ResolvedJoin resolved = QueryValidator.validate(sql, "sql", ownSide, ownPolicy, theirPolicy);
    QueryValidator.checkProtocolFor(resolved, protocol); // the approver checks independently
    QueryValidator.checkModeFor(resolved, protocol, offer.mode());
    // the pre-filter: a helper registered here with the same pin, on a query it may filter
    CoordinatorConfig.Helper helper =
        offer.prefiltering().helped() ? HelperPolicy.approve(config, offer.prefiltering()) : null;
    HelperPolicy.checkQuery(offer.prefiltering(), offer.mode(), resolved.count() != null);
    HelperPolicy.checkDataset(
        offer.prefiltering(), ownName, own.revealIntersection(), "this party's");
    // what our owner would learn, in the mode the requester chose (both jobs run the session's)
    IntersectionPolicy.check(
        ownName,
        own.revealIntersection(),
        "this party's",
        ownSide,
        offer.mode(),
        resolved.count() != null);
    // The requester's coordinator expands stars; one left here would be expanded by our job
    // against whatever columns our files have when it runs, not against the approved schema.
    if (!QueryValidator.expandStars(sql, "sql", ownSide, ownPolicy, theirPolicy).equals(sql)) {
      throw new ApiException(
              422,
              "sql: the query selects * or t.*; the requester's coordinator "
                  + "must send it with explicit columns")
          .with("field", "sql");
    }
    String disclosure =
        Store.json(
            Disclosure.of(
                ownSide,
                resolved,
                offer.mode(),
                offer.labelBytes(),
                offer.prefiltering(),
                helper,
                ownName,
                own.publicSize(),
                requesterDataset,
                theirs.publicSize()));
    String fingerprint = offer.fingerprint();
    if (!QueryValidator.fingerprint(sql).equals(fingerprint)) {
      throw ApiException.badRequest("fingerprint", "does not match the query");
    }
    long now = ctx.now();
    QueryRecord q =
        new QueryRecord(
            id,
            Direction.INCOMING,
            requester,
            ctx.party(),
            ownSide,
            ownName,
            requesterDataset,
            sql,
            fingerprint,
            offer.bins(),
            offer.sigma(),
            protocol,
            offer.mode(),
            offer.labelBytes(),
            offer.prefiltering(),
            endpoint,
            peerFingerprint,
            QueryStatus.PENDING,
            null,
            now,
            expiresAt,
            null,
            null);
    ctx.db()
        .tx(
            c -> {
              if (Store.query(c, id).isPresent()) {
                throw ApiException.conflict("query " + id + " already exists");
              }
              Store.insertQuery(c, q);
              Store.setDisclosure(c, id, disclosure);
              Store.audit(
                  c,
                  now,
                  requester,
                  "query.received",
                  "query",
                  id,
                  Store.json(Offers.queryAudit(q)));
              return null;
            });
    return queries.peerView(id);
  }

  /**
   * This party approves (or rejects) an incoming query.
   *
   * @param principal the label of the token that decided (audited here; the peer hears only the
   *     party's decision)
   */
  Map<String, Object> decide(String id, Decision decision, String reason, String principal) {
    if (decision == Decision.EXPIRED) {
      throw new IllegalArgumentException("a party approves or rejects; queries expire alone");
    }
    long now = ctx.now();
    SessionRecord session =
        ctx.db()
            .tx(
                c -> {
                  QueryRecord q =
                      Store.query(c, id).orElseThrow(() -> ApiException.notFound("query " + id));
                  if (q.direction() != Direction.INCOMING) {
                    throw ApiException.conflict(
                        "query "
                            + id
                            + " was submitted by this party; "
                            + ctx.peerName()
                            + " decides on it");
                  }
                  if (q.status() != QueryStatus.PENDING) {
                    throw ApiException.conflict(
                        "query " + id + " is " + q.status().wire() + ", not pending");
                  }
                  if (q.expiresAt() <= now) {
                    queries.expire(c, q, now);
                    return null;
                  }
                  if (decision == Decision.APPROVED && q.prefiltering().helped()) {
                    // the registry may have changed since the offer: a session its jobs could
                    // not launch is not approved
                    HelperPolicy.approve(ctx.config(), q.prefiltering());
                  }
                  Store.decide(c, id, decision.status(), reason, now);
                  Store.insertApproval(c, new Approval(id, decision, ctx.party(), reason, now));
                  Store.audit(
                      c,
                      now,
                      ctx.party(),
                      "query." + decision.wire(),
                      "query",
                      id,
                      Sessions.principalDetail(principal, reason));
                  if (decision != Decision.APPROVED) {
                    return null;
                  }
                  SessionRecord s = newSession(q, now);
                  Store.insertSession(c, s);
                  Store.audit(
                      c,
                      now,
                      ctx.party(),
                      "session.created",
                      "session",
                      s.id(),
                      Store.json(Queries.sessionAudit(s)));
                  return s;
                });
    QueryRecord q = ctx.db().tx(c -> Store.query(c, id)).orElseThrow();
    if (q.status() == QueryStatus.EXPIRED) {
      throw ApiException.conflict("query " + id + " expired before the decision");
    }
    Requests.PeerDecision told =
        new Requests.PeerDecision(Decision.valueOf(q.status().name()), reason, now, session);
    try {
      ctx.peer().post("/v1/peer/queries/" + PeerClient.segment(id) + "/decision", told);
    } catch (IOException | PeerClient.PeerError e) {
      // the requester's sweeper polls GET /v1/peer/queries/{id}; recorded, not fatal
      LOG.warn("cannot tell {} about the decision on {}: {}", ctx.peerName(), id, e.getMessage());
      ctx.audit(ctx.now(), ctx.party(), "peer.notify_failed", "query", id, e.getMessage());
    }
    if (session != null) {
      sessions.launch(session.id());
    }
    return queries.view(id);
  }

  private SessionRecord newSession(QueryRecord q, long now) {
    // the approver is the query's local side here; the requester the other
    Role approver = q.localSide();
    String endpoint = ctx.config().bridge().endpoint();
    Function<Role, String> party = r -> r.equals(approver) ? ctx.party() : q.requester();
    Function<Role, String> end = r -> r.equals(approver) ? endpoint : q.requesterEndpoint();
    Function<Role, String> fp =
        r -> r.equals(approver) ? ctx.bridgeFingerprint() : q.requesterFingerprint();
    return new SessionRecord(
        UUID.randomUUID().toString(),
        q.id(),
        party.apply(Role.A),
        party.apply(Role.B),
        q.bins(),
        q.sigma(),
        q.protocol(),
        q.mode(),
        q.labelBytes(),
        q.prefiltering(),
        end.apply(Role.A),
        fp.apply(Role.A),
        end.apply(Role.B),
        fp.apply(Role.B),
        now);
  }
}
