package io.psiflink.coordinator;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;
import java.util.List;

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

  Coordinator(CoordinatorConfig config, Db db, PeerClient peer, ObjectMapper json, Clock clock) {
    // the certificate this party's jobs present (job.certificate defaults to bridge.certificate)
    this.ctx =
        new Context(
            config,
            db,
            peer,
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
    this.sweeper = new Sweeper(ctx, queries, offers, sessions);
    sessions.recover();
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
