package io.psiflink.coordinator;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * The coordinator's logic, independent of HTTP, wired from its parts: the dataset registry, query
 * submission and validation, the approval protocol with the peer coordinator, sessions, expiry and
 * the audit log.
 *
 * <h2>Approval protocol</h2>
 *
 * <ol>
 *   <li>The requester (party R, at its coordinator) submits a query. R's coordinator fetches the
 *       peer's published dataset, validates, stores the query {@code pending} ({@code outgoing}),
 *       and sends it to the approver's coordinator ({@code POST /v1/peer/queries}).
 *   <li>The approver's coordinator fetches R's published dataset, validates independently against
 *       its own registry, checks the fingerprint, and stores it {@code pending} ({@code incoming}).
 *       If it refuses, R records the query {@code refused} with the peer's reason.
 *   <li>The approver's party approves or rejects. On approval the approver creates the session (id,
 *       bins, σ, protocol, both bridge endpoints and certificate fingerprints) and tells R ({@code
 *       POST /v1/peer/queries/{id}/decision}); R stores the same session. If that call is lost, R's
 *       sweeper polls {@code GET /v1/peer/queries/{id}}.
 *   <li>A query still pending at its deadline is {@code expired} on both sides (each side's
 *       sweeper; an approval after the deadline is refused).
 * </ol>
 *
 * Nothing runs before approval; no coordinator ever sees the token PRF key or the bin seed (the two
 * jobs agree them with an authenticated X25519 exchange, SessionHandshake).
 *
 * <h2>Parts</h2>
 *
 * <h2>n-party joins</h2>
 *
 * The same protocol with P1 (the submitter, who writes the result) in the requester's place and
 * every other party an approver: P1 offers the query to each ({@code POST /v1/peer/group-queries}),
 * each validates it independently and its owner votes ({@code POST
 * /v1/peer/group-queries/{id}/decision} at P1); once every party approved, P1 creates the session
 * (every party's job certificate pin, the provider's) and tells each party ({@code .../outcome}),
 * which launches its job; one rejection ends it for all. Polls in both directions cover a lost
 * call. Parts: {@link GroupOffers} (P1), {@link GroupApprovals} (the others), {@link GroupQueries},
 * {@link GroupSessions}, {@link GroupPolicy} (validation, disclosure).
 *
 * <h2>Parts</h2>
 *
 * {@link DatasetRegistry} (this party's datasets and what the peer sees of them), {@link Offers}
 * (the requester's side), {@link Approvals} (the approver's side), {@link Queries} (both sides'
 * views and shared transitions), {@link Sessions} (jobs, cancel, abort, result), {@link Sweeper}
 * (expiry, polls, launches), {@link PeerInput} (checks of what the peer sends). Requests arrive as
 * the typed records of {@link Requests}, parsed by {@link HttpApi}.
 */
public final class Coordinator {
  private final Context ctx;
  private final DatasetRegistry registry;
  private final PeerInput peerInput;
  private final Queries queries;
  private final Sessions sessions;
  private final Offers offers;
  private final Approvals approvals;
  private final Sweeper sweeper;
  private final GroupQueries groupQueries;
  private final GroupSessions groupSessions;
  private final GroupOffers groupOffers;
  private final GroupApprovals groupApprovals;

  Coordinator(
      CoordinatorConfig config,
      Db db,
      Map<String, PeerClient> organisations,
      ObjectMapper json,
      Clock clock) {
    // the certificate this party's jobs present (job.certificate defaults to bridge.certificate)
    this.ctx =
        new Context(
            config,
            db,
            organisations.get(config.peer().name()),
            Map.copyOf(organisations),
            json,
            clock,
            Tls.fingerprint(
                config.job() != null ? config.job().certificate() : config.bridge().certificate()));
    this.registry = new DatasetRegistry(ctx);
    this.peerInput = new PeerInput(ctx);
    this.queries = new Queries(ctx, peerInput);
    this.sessions = new Sessions(ctx, registry);
    PeerDatasets peerDatasets = new PeerDatasets(ctx);
    this.offers = new Offers(ctx, registry, peerDatasets, peerInput, queries, sessions);
    this.approvals = new Approvals(ctx, registry, peerDatasets, peerInput, queries, sessions);
    this.groupQueries = new GroupQueries(ctx);
    this.groupSessions = new GroupSessions(ctx, registry, sessions.launcher());
    this.groupOffers = new GroupOffers(ctx, registry, peerDatasets, groupQueries, groupSessions);
    this.groupApprovals = new GroupApprovals(ctx, registry, peerInput, groupQueries, groupSessions);
    this.sweeper =
        new Sweeper(
            ctx,
            queries,
            offers,
            sessions,
            groupQueries,
            groupOffers,
            groupApprovals,
            groupSessions);
    sessions.recover();
    groupSessions.recover();
  }

  DatasetRegistry registry() {
    return registry;
  }

  PeerInput peerInput() {
    return peerInput;
  }

  /** The helpers registered here ({@code GET /v1/helpers}): name, pin and description. */
  List<CoordinatorConfig.Helper> helpers() {
    return ctx.config().helpers();
  }

  /** The providers registered here ({@code GET /v1/providers}): name, pin and description. */
  List<CoordinatorConfig.Provider> providers() {
    return ctx.config().providers();
  }

  /**
   * Whether organisation {@code label} (a peer token's label) may call the two-party peer API: any
   * peer token when this coordinator has one peer; with further peers, only the peer's.
   */
  boolean twoPartyCaller(String label) {
    return ctx.config().peers().isEmpty() || ctx.config().peer().name().equals(label);
  }

  /** Whether {@code label} names an organisation of this coordinator (peer or peers). */
  boolean isOrganisation(String label) {
    return ctx.config().organisation(label).isPresent();
  }

  GroupQueries groupQueries() {
    return groupQueries;
  }

  GroupOffers groupOffers() {
    return groupOffers;
  }

  GroupApprovals groupApprovals() {
    return groupApprovals;
  }

  GroupSessions groupSessions() {
    return groupSessions;
  }

  Queries queries() {
    return queries;
  }

  Offers offers() {
    return offers;
  }

  Approvals approvals() {
    return approvals;
  }

  Sessions sessions() {
    return sessions;
  }

  /** One sweep: expiry, polls of outgoing queries at the peer, launches. */
  void sweep() {
    sweeper.sweep();
  }

  /** Stops the jobs this coordinator runs (on shutdown). */
  void close() {
    sessions.close();
  }
}
