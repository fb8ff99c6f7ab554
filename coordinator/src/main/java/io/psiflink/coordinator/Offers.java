package io.psiflink.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import io.psiflink.api.JoinMode;
import io.psiflink.api.Prefilter;
import io.psiflink.api.Role;
import io.psiflink.coordinator.Model.Approval;
import io.psiflink.coordinator.Model.Dataset;
import io.psiflink.coordinator.Model.Decision;
import io.psiflink.coordinator.Model.Direction;
import io.psiflink.coordinator.Model.Prefiltering;
import io.psiflink.coordinator.Model.PublishedDataset;
import io.psiflink.coordinator.Model.QueryRecord;
import io.psiflink.coordinator.Model.QueryStatus;
import io.psiflink.coordinator.Model.SessionRecord;
import io.psiflink.query.ResolvedJoin;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requester's side of the approval protocol: a query this party submits is validated here,
 * stored pending and offered to the peer; the peer's decision (its callback, or the sweeper's poll)
 * approves it with the peer's session, rejects or expires it.
 */
final class Offers {
  private static final Logger LOG = LoggerFactory.getLogger(Offers.class);

  /** Twice the peer call timeout: an offer older than this and unknown to the peer was lost. */
  static final Duration UNDELIVERED_AFTER = Duration.ofSeconds(60);

  private final Context ctx;
  private final DatasetRegistry registry;
  private final PeerDatasets peerDatasets;
  private final PeerInput peerInput;
  private final Queries queries;
  private final Sessions sessions;

  Offers(
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

  /** A query submitted by this party: validated here, then sent to the peer for approval. */
  Map<String, Object> submit(Requests.Submission r) {
    CoordinatorConfig config = ctx.config();
    Role side = r.role();
    int bins = r.bins() != null ? r.bins() : config.defaults().bins();
    int sigma = r.sigma() != null ? r.sigma() : config.defaults().sigma();
    String protocol = r.protocol() != null ? r.protocol() : config.defaults().protocol();
    if (!config.protocols().contains(protocol)) {
      throw ApiException.badRequest("protocol", "must be one of " + config.protocols());
    }
    String localName = r.localDataset();
    String peerName = r.peerDataset();
    Dataset local =
        registry
            .active(localName)
            .orElseThrow(
                () ->
                    new ApiException(
                            422,
                            "localDataset: no active dataset " + localName + " is registered here")
                        .with("field", "localDataset"));
    PublishedDataset peerView = peerDatasets.fetch(peerName, "peerDataset", false);
    QueryValidator.Policy localPolicy = QueryValidator.policy(local);
    QueryValidator.Policy peerPolicy = QueryValidator.policy(peerView);

    String given;
    String field = r.sql() != null ? "sql" : "query";
    if (r.sql() != null) {
      given = r.sql();
      QueryValidator.validate(given, "sql", side, localPolicy, peerPolicy);
    } else {
      given = QueryValidator.render(r.query());
      QueryValidator.validate(given, "query", side, localPolicy, peerPolicy);
      QueryValidator.checkWhereSides(r.query(), side, localPolicy, peerPolicy);
    }
    // Stars become the registered (ours) and published (the peer's) columns here: the jobs get
    // explicit columns and never expand a star against what the files have by then. Both
    // coordinators and both jobs fingerprint this text.
    String sql = QueryValidator.expandStars(given, field, side, localPolicy, peerPolicy);
    ResolvedJoin resolved = QueryValidator.validate(sql, field, side, localPolicy, peerPolicy);
    QueryValidator.checkProtocolFor(resolved, protocol); // before the peer sees the offer
    JoinMode mode = r.mode();
    Integer labelBytes = r.labelBytes();
    QueryValidator.checkModeFor(resolved, protocol, mode);
    boolean countOnly = resolved.count() != null;
    // the helper's pin comes from our registry; the peer's coordinator checks it against its own
    Prefiltering prefiltering = Prefiltering.NONE;
    CoordinatorConfig.Helper helper = null;
    if (r.prefilter().namesHelper()) {
      helper = HelperPolicy.registered(config, r.helper());
      prefiltering =
          new Prefiltering(
              r.prefilter(),
              helper.name(),
              helper.certSha256(),
              r.filterBits(),
              r.filterHashes(),
              r.expectedOverlapPpm());
    }
    // before the intersection policy: its refusals would not say that the pre-filter is why
    HelperPolicy.checkQuery(prefiltering, mode, countOnly);
    HelperPolicy.checkDataset(prefiltering, localName, local.revealIntersection(), "this party's");
    HelperPolicy.checkDataset(
        prefiltering, peerName, peerView.revealIntersection(), "the peer " + ctx.peerName() + "'s");
    // ours, and the peer's as it publishes it (its coordinator checks again on the offer)
    IntersectionPolicy.check(
        localName, local.revealIntersection(), "this party's", side, mode, countOnly);
    IntersectionPolicy.check(
        peerName,
        peerView.revealIntersection(),
        "the peer " + ctx.peerName() + "'s",
        side.peer(),
        mode,
        countOnly);
    String disclosure =
        Store.json(
            Disclosure.of(
                side,
                resolved,
                mode,
                labelBytes,
                prefiltering,
                helper,
                localName,
                local.publicSize(),
                peerName,
                peerView.publicSize()));
    String fingerprint = QueryValidator.fingerprint(sql);

    long now = ctx.now();
    QueryRecord q =
        new QueryRecord(
            UUID.randomUUID().toString(),
            Direction.OUTGOING,
            ctx.party(),
            ctx.peerName(),
            side,
            localName,
            peerName,
            sql,
            fingerprint,
            bins,
            sigma,
            protocol,
            mode,
            labelBytes,
            prefiltering,
            config.bridge().endpoint(),
            ctx.bridgeFingerprint(),
            QueryStatus.PENDING,
            null,
            now,
            now + config.approvalTtl().toMillis(),
            null,
            r.output());
    ctx.db()
        .tx(
            c -> {
              Store.insertQuery(c, q);
              Store.setDisclosure(c, q.id(), disclosure);
              Store.audit(
                  c,
                  now,
                  ctx.party(),
                  "query.submitted",
                  "query",
                  q.id(),
                  Store.json(queryAudit(q)));
              return null;
            });

    Requests.Offer offer =
        new Requests.Offer(
            q.id(),
            ctx.party(),
            side,
            localName,
            peerName,
            sql,
            fingerprint,
            bins,
            sigma,
            protocol,
            mode,
            labelBytes,
            prefiltering,
            config.bridge().endpoint(),
            ctx.bridgeFingerprint(),
            q.expiresAt());
    try {
      ctx.peer().post("/v1/peer/queries", offer);
    } catch (PeerClient.PeerError e) {
      String reason = e.getMessage();
      queries.finish(q.id(), QueryStatus.REFUSED, reason, "query.refused_by_peer");
      throw new ApiException(
              e.status == 422 || e.status == 400 ? 422 : 502,
              "the peer coordinator refused the query: " + PeerDatasets.message(e))
          .with("field", "peer")
          .with("peer", e.body)
          .with("id", q.id());
    } catch (IOException e) {
      // The offer may have arrived even though its answer did not (a timeout): ask the peer
      // before calling the query failed, or the peer would hold it pending while it is failed here.
      try {
        ctx.peer().get("/v1/peer/queries/" + PeerClient.segment(q.id()));
        ctx.audit(ctx.now(), ctx.party(), "query.delivered_late", "query", q.id(), e.getMessage());
        return queries.view(q.id());
      } catch (PeerClient.PeerError e2) {
        queries.finish(
            q.id(), QueryStatus.FAILED, "peer unreachable: " + e.getMessage(), "query.undelivered");
        throw new ApiException(502, "cannot reach the peer coordinator: " + e.getMessage())
            .with("field", "peer")
            .with("id", q.id());
      } catch (IOException e2) {
        ctx.audit(
            ctx.now(), ctx.party(), "query.delivery_uncertain", "query", q.id(), e.getMessage());
        throw new ApiException(
                502,
                "cannot reach the peer coordinator: "
                    + e.getMessage()
                    + "; the query stays pending until the peer confirms it (or has no record of it:"
                    + " then it fails)")
            .with("field", "peer")
            .with("id", q.id());
      }
    }
    return queries.view(q.id());
  }

  /** The peer (the approver) tells this coordinator its decision on an outgoing query. */
  Map<String, Object> peerDecision(String id, Requests.PeerDecision d) {
    if (d.session() != null && !id.equals(d.session().queryId())) {
      throw ApiException.badRequest("session", "an approval carries the session of the query");
    }
    apply(id, d.decision(), d.reason(), d.session());
    return queries.peerView(id);
  }

  /**
   * Asks the peer about an outgoing query still pending here, in case its decision callback was
   * lost; fails it if the peer never received it.
   */
  void poll(QueryRecord q, long now) {
    try {
      JsonNode r = ctx.peer().get("/v1/peer/queries/" + PeerClient.segment(q.id()));
      Decision decision = Model.fromWire(Decision.class, r.path("status").asText());
      if (decision == Decision.APPROVED || decision == Decision.REJECTED) {
        SessionRecord s =
            r.hasNonNull("session")
                ? ctx.json().treeToValue(r.get("session"), SessionRecord.class)
                : null;
        apply(q.id(), decision, r.path("statusReason").asText(null), s);
      }
    } catch (PeerClient.PeerError e) {
      // Not at the peer long after it was sent (beyond the offer's own timeout): the offer
      // never arrived.
      if (e.status == 404 && q.createdAt() < now - UNDELIVERED_AFTER.toMillis()) {
        queries.finish(
            q.id(),
            QueryStatus.FAILED,
            "the peer has no record of the query: it was never delivered",
            "query.undelivered");
      }
      LOG.debug("poll of {} at the peer: {}", q.id(), e.getMessage());
    } catch (IOException | ApiException e) {
      LOG.debug("poll of {} at the peer: {}", q.id(), e.getMessage());
    }
  }

  private void apply(String id, Decision decision, String reason, SessionRecord session) {
    if (session != null) {
      peerInput.checkSession(id, session);
    }
    long now = ctx.now();
    boolean late =
        ctx.db()
            .tx(
                c -> {
                  QueryRecord q =
                      Store.query(c, id).orElseThrow(() -> ApiException.notFound("query " + id));
                  if (q.direction() != Direction.OUTGOING) {
                    throw ApiException.notFound("query " + id);
                  }
                  if (q.status() == decision.status()) {
                    return false; // the callback and the poll may both deliver it
                  }
                  if (q.status() != QueryStatus.PENDING) {
                    throw ApiException.conflict("query " + id + " is already " + q.status().wire());
                  }
                  if (decision == Decision.EXPIRED) {
                    queries.expire(c, q, now);
                    return false;
                  }
                  if (q.expiresAt() <= now) {
                    queries.expire(c, q, now); // committed; the caller hears 409
                    return true;
                  }
                  Store.decide(c, id, decision.status(), reason, now);
                  Store.insertApproval(c, new Approval(id, decision, q.approver(), reason, now));
                  Store.audit(
                      c, now, q.approver(), "query." + decision.wire(), "query", id, reason);
                  if (session != null) {
                    checkSession(q, session);
                    Store.insertSession(c, session.fresh());
                    Store.audit(
                        c,
                        now,
                        q.approver(),
                        "session.created",
                        "session",
                        session.id(),
                        Store.json(Queries.sessionAudit(session)));
                  }
                  return false;
                });
    if (late) {
      throw ApiException.conflict("query " + id + " expired here before the decision arrived");
    }
    if (session != null) {
      sessions.launch(session.id());
    }
  }

  /** The session the approver created must match the query this side submitted. */
  private void checkSession(QueryRecord q, SessionRecord s) {
    Role ours = q.localSide();
    String ourParty = s.party(ours);
    String ourEndpoint = s.endpoint(ours);
    String ourFp = s.fingerprint(ours);
    if (!ctx.party().equals(ourParty)
        || !q.requesterEndpoint().equals(ourEndpoint)
        || !q.requesterFingerprint().equals(ourFp)
        || s.bins() != q.bins()
        || s.sigma() != q.sigma()
        || !q.protocol().equals(s.protocol())
        // both jobs launch with the session's mode: it is the one this party submitted
        || s.mode() != q.mode()
        || !Objects.equals(s.labelBytes(), q.labelBytes())
        // and the pre-filter: the same helper, pin and filter parameters
        || !q.prefiltering().equals(s.prefiltering())) {
      throw ApiException.badRequest("session", "does not match the submitted query");
    }
  }

  /**
   * The audit detail of a query submitted or received: its SQL, fingerprint, datasets, this party's
   * role and the mode (with the label size in labeled mode).
   */
  static Map<String, Object> queryAudit(QueryRecord q) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("sql", q.sql());
    m.put("fingerprint", q.fingerprint());
    m.put("localDataset", q.localDataset());
    m.put("peerDataset", q.peerDataset());
    m.put("role", q.localSide().label());
    m.put("mode", q.mode().text());
    if (q.labelBytes() != null) {
      m.put("labelBytes", q.labelBytes());
    }
    prefilterAudit(m, q.prefiltering());
    return m;
  }

  /** The pre-filter in an audit detail: only when a helper filters (helper, pin, bits, hashes). */
  static void prefilterAudit(Map<String, Object> m, Prefiltering p) {
    if (p.helped()) {
      m.put("prefilter", p.prefilter().text());
      m.put("helper", p.helper());
      m.put("helperCertSha256", p.helperCertSha256());
      m.put("filterBits", p.filterBits());
      m.put("filterHashes", p.filterHashes());
      if (p.prefilter() == Prefilter.AUTO) {
        m.put("expectedOverlapPpm", p.expectedOverlapPpm());
      }
    }
  }
}
