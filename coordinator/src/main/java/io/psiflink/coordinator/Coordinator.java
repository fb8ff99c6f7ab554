package io.psiflink.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psiflink.api.ColumnType;
import io.psiflink.connectors.JdbcTable;
import io.psiflink.coordinator.Model.Approval;
import io.psiflink.coordinator.Model.AuditEntry;
import io.psiflink.coordinator.Model.ColumnSpec;
import io.psiflink.coordinator.Model.Dataset;
import io.psiflink.coordinator.Model.PublishedColumn;
import io.psiflink.coordinator.Model.PublishedDataset;
import io.psiflink.coordinator.Model.QueryRecord;
import io.psiflink.coordinator.Model.SessionRecord;
import io.psiflink.query.ResolvedJoin;
import io.psiflink.api.Role;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's logic, independent of HTTP: the dataset registry, query submission and
 * validation, the approval protocol with the peer coordinator, sessions, expiry and the audit log.
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
 *   <li>The approver's party approves or rejects. On approval the approver creates the session
 *       (id, bins, σ, protocol, both bridge endpoints and certificate fingerprints) and tells R
 *       ({@code POST /v1/peer/queries/{id}/decision}); R stores the same session. If that call is
 *       lost, R's sweeper polls {@code GET /v1/peer/queries/{id}}.
 *   <li>A query still pending at its deadline is {@code expired} on both sides (each side's
 *       sweeper; an approval after the deadline is refused).
 * </ol>
 *
 * Nothing runs before approval; no coordinator ever sees the token PRF key or the bin seed (the two
 * jobs agree them with an authenticated X25519 exchange, SessionHandshake).
 */
public final class Coordinator {
  private static final Logger LOG = LoggerFactory.getLogger(Coordinator.class);
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");
  private static final Set<String> FORMATS = Set.of("csv", "avro", "parquet");
  /** Twice the peer call timeout: an offer older than this and unknown to the peer was lost. */
  static final Duration UNDELIVERED_AFTER = Duration.ofSeconds(60);

  private final CoordinatorConfig config;
  private final Db db;
  private final PeerClient peer;
  private final ObjectMapper json;
  private final Clock clock;
  private final String bridgeFingerprint;
  /** Null when the config has no job section: sessions are recorded, nothing is launched. */
  private final JobLauncher launcher;

  Coordinator(CoordinatorConfig config, Db db, PeerClient peer, ObjectMapper json, Clock clock) {
    this.config = config;
    this.db = db;
    this.peer = peer;
    this.json = json;
    this.clock = clock;
    // the certificate this party's jobs present (job.certificate defaults to bridge.certificate)
    this.bridgeFingerprint = Tls.fingerprint(config.job() != null
        ? config.job().certificate() : config.bridge().certificate());
    this.launcher = config.job() == null ? null
        : new JobLauncher(config, db, json, clock, this::abortAtPeer);
    recover();
  }

  String party() {
    return config.party();
  }

  private long now() {
    return clock.millis();
  }

  // ================================================================== datasets

  Dataset registerDataset(JsonNode body) {
    if (body == null || !body.isObject()) {
      throw ApiException.badRequest("body", "must be a JSON object");
    }
    String name = requireText(body, "name");
    if (!NAME.matcher(name).matches()) {
      throw ApiException.badRequest("name", "must match " + NAME.pattern());
    }
    String location = requireText(body, "location");
    String format = requireText(body, "format").toLowerCase(Locale.ROOT);
    if (!FORMATS.contains(format)) {
      throw ApiException.badRequest("format", "must be one of csv, avro, parquet");
    }
    JsonNode schemaNode = body.get("schema");
    if (schemaNode == null || schemaNode.isNull()) {
      schemaNode = discover(location, format);
    }
    if (!schemaNode.isArray() || schemaNode.isEmpty()) {
      throw ApiException.badRequest("schema", "must be a non-empty array of {name, type}");
    }
    List<ColumnSpec> schema = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (int i = 0; i < schemaNode.size(); i++) {
      JsonNode c = schemaNode.get(i);
      String f = "schema[" + i + "]";
      String cn = requireText(c, "name", f + ".name");
      String type = requireText(c, "type", f + ".type").toUpperCase(Locale.ROOT);
      try {
        ColumnType.valueOf(type);
      } catch (IllegalArgumentException e) {
        throw ApiException.badRequest(f + ".type", "unknown type " + c.get("type").asText()
            + "; types are " + List.of(ColumnType.values()));
      }
      if (!names.add(cn)) {
        throw ApiException.badRequest(f + ".name", "duplicate column " + cn);
      }
      JsonNode nullable = c.get("nullable");
      if (nullable != null && !nullable.isBoolean()) {
        throw ApiException.badRequest(f + ".nullable", "must be true or false");
      }
      schema.add(new ColumnSpec(cn, type, nullable == null || nullable.asBoolean()));
    }
    List<String> keys = columnList(body, "keyColumns", names, true);
    List<String> reveal = columnList(body, "revealColumns", names, false);
    List<String> filter = columnList(body, "filterColumns", names, false);
    String publicSize;
    try {
      publicSize = io.psiflink.query.PublicSize.parse(body.hasNonNull("publicSize")
          ? body.get("publicSize").asText() : io.psiflink.query.PublicSize.DEFAULT.text()).text();
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("publicSize", e.getMessage());
    }
    Dataset d = new Dataset(name, location, format, schema, keys, reveal, filter, "active", now(),
        null, publicSize);
    return db.tx(c -> {
      if (Store.dataset(c, name).isPresent()) {
        throw ApiException.conflict("dataset " + name + " already exists (names are never reused)")
            .with("field", "name");
      }
      Store.insertDataset(c, d);
      Store.audit(c, d.createdAt(), config.party(), "dataset.registered", "dataset", name,
          Store.json(Map.of("location", JdbcTable.redact(location), "format", format,
              "publicSize", publicSize)));
      return shown(d);
    });
  }

  /**
   * A dataset as the API returns it: its location with any password hidden (the stored one keeps
   * it, for the job).
   */
  private static Dataset shown(Dataset d) {
    return new Dataset(d.name(), JdbcTable.redact(d.location()), d.format(), d.schema(),
        d.keyColumns(), d.revealColumns(), d.filterColumns(), d.status(), d.createdAt(),
        d.retiredAt(), d.publicSize());
  }

  /**
   * The schema of the files at {@code location} (flink-jobs' SchemaDiscovery: a CSV header with
   * inferred types, or an Avro writer schema), when a dataset is registered without one.
   */
  private JsonNode discover(String location, String format) {
    if (format.equals("parquet")) {
      throw ApiException.badRequest("schema", "is required for parquet datasets (discovery reads"
          + " csv and avro files)");
    }
    io.psiflink.api.TableSchema found;
    try {
      String actual = io.psiflink.connectors.TableFiles.of(location).format().name()
          .toLowerCase(Locale.ROOT);
      if (!actual.equals(format)) {
        throw ApiException.badRequest("format", "is " + format + " but the files at "
            + JdbcTable.redact(location) + " are " + actual);
      }
      found = io.psiflink.connectors.SchemaDiscovery.discover(location);
    } catch (io.psiflink.connectors.TableException | IllegalArgumentException
        | java.io.UncheckedIOException e) {
      throw ApiException.badRequest("location", "no schema given, and none can be discovered: "
          + JdbcTable.redact(e.getMessage()));
    }
    List<ColumnSpec> cols = new ArrayList<>();
    for (io.psiflink.api.Column c : found.columns()) {
      cols.add(new ColumnSpec(c.name(), c.type().name(), c.nullable()));
    }
    return json.valueToTree(cols);
  }

  private static List<String> columnList(JsonNode body, String field, Set<String> names,
      boolean required) {
    JsonNode n = body.get(field);
    if (n == null || n.isNull()) {
      if (required) {
        throw ApiException.badRequest(field, "must list at least one column");
      }
      return List.of();
    }
    if (!n.isArray() || (required && n.isEmpty())) {
      throw ApiException.badRequest(field, required ? "must list at least one column"
          : "must be an array of column names");
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n.size(); i++) {
      String col = n.get(i).asText();
      if (!n.get(i).isTextual() || !names.contains(col)) {
        throw ApiException.badRequest(field + "[" + i + "]", "unknown column " + n.get(i)
            + "; the schema has " + names.stream().sorted().toList());
      }
      if (!out.contains(col)) {
        out.add(col);
      }
    }
    return List.copyOf(out);
  }

  List<Dataset> datasets(boolean includeRetired) {
    return db.tx(c -> Store.datasets(c, includeRetired)).stream().map(Coordinator::shown)
        .toList();
  }

  Dataset dataset(String name) {
    return db.tx(c -> Store.dataset(c, name)).map(Coordinator::shown)
        .orElseThrow(() -> ApiException.notFound("dataset " + name));
  }

  Dataset retireDataset(String name) {
    return db.tx(c -> {
      Dataset d = Store.dataset(c, name).orElseThrow(() -> ApiException.notFound(
          "dataset " + name));
      if (!Store.retireDataset(c, name, now())) {
        throw ApiException.conflict("dataset " + name + " is already retired");
      }
      Store.audit(c, now(), config.party(), "dataset.retired", "dataset", name, null);
      return shown(Store.dataset(c, name).orElse(d));
    });
  }

  /** What the peer may know of an active dataset: name and usable columns with their types. */
  PublishedDataset published(String name) {
    Dataset d = db.tx(c -> Store.dataset(c, name)).filter(x -> x.status().equals("active"))
        .orElseThrow(() -> ApiException.notFound("dataset " + name));
    return publish(d);
  }

  List<PublishedDataset> publishedAll() {
    return datasets(false).stream().map(this::publish).toList();
  }

  private PublishedDataset publish(Dataset d) {
    List<PublishedColumn> cols = new ArrayList<>();
    for (ColumnSpec c : d.schema()) {
      boolean k = d.keyColumns().contains(c.name());
      boolean r = d.revealColumns().contains(c.name());
      boolean f = d.filterColumns().contains(c.name());
      if (k || r || f) {
        cols.add(new PublishedColumn(c.name(), c.type(), c.nullable() == null || c.nullable(),
            k, r, f));
      }
    }
    return new PublishedDataset(config.party(), d.name(), cols, d.publicSize());
  }

  // ================================================================== queries: the requester

  /** A query submitted by this party: validated here, then sent to the peer for approval. */
  Map<String, Object> submit(JsonNode body) {
    if (body == null || !body.isObject()) {
      throw ApiException.badRequest("body", "must be a JSON object");
    }
    String localName = requireText(body, "localDataset");
    String peerName = requireText(body, "peerDataset");
    Role side = side(body.get("role"));
    int bins = intField(body, "bins", config.defaults().bins(), 0, 1 << 24);
    int sigma = intField(body, "sigma", config.defaults().sigma(), 40, 128);
    String protocol = body.hasNonNull("protocol") ? body.get("protocol").asText()
        : config.defaults().protocol();
    if (!config.protocols().contains(protocol)) {
      throw ApiException.badRequest("protocol", "must be one of " + config.protocols());
    }
    boolean hasSql = body.hasNonNull("sql");
    boolean hasJson = body.hasNonNull("query");
    if (hasSql == hasJson) {
      throw ApiException.badRequest("sql", "give the query either as SQL text (sql) or in JSON"
          + " form (query), not " + (hasSql ? "both" : "neither"));
    }
    if (hasSql && (!body.get("sql").isTextual() || body.get("sql").asText().isBlank())) {
      throw ApiException.badRequest("sql", "must be non-empty SQL text");
    }
    Model.Output output = output(body.get("output"));

    Dataset local = db.tx(c -> Store.dataset(c, localName))
        .filter(d -> d.status().equals("active"))
        .orElseThrow(() -> new ApiException(422, "localDataset: no active dataset " + localName
            + " is registered here").with("field", "localDataset"));
    PublishedDataset peerView = fetchPublished(peerName, "peerDataset", false);
    QueryValidator.Policy localPolicy = QueryValidator.policy(local);
    QueryValidator.Policy peerPolicy = QueryValidator.policy(peerView);

    String given;
    String field = hasSql ? "sql" : "query";
    if (hasSql) {
      given = body.get("sql").asText();
      QueryValidator.validate(given, "sql", side, localPolicy, peerPolicy);
    } else {
      given = QueryValidator.render(body.get("query"));
      QueryValidator.validate(given, "query", side, localPolicy, peerPolicy);
      QueryValidator.checkWhereSides(body.get("query"), side, localPolicy, peerPolicy);
    }
    // Stars become the registered (ours) and published (the peer's) columns here: the jobs get
    // explicit columns and never expand a star against what the files have by then. Both
    // coordinators and both jobs fingerprint this text.
    String sql = QueryValidator.expandStars(given, field, side, localPolicy, peerPolicy);
    ResolvedJoin resolved = QueryValidator.validate(sql, field, side, localPolicy, peerPolicy);
    String disclosure = Store.json(Disclosure.of(side, resolved, localName, local.publicSize(),
        peerName, peerView.publicSize()));
    String fingerprint = fingerprint(sql);

    long now = now();
    QueryRecord q = new QueryRecord(UUID.randomUUID().toString(), "outgoing", config.party(),
        config.peer().name(), side.label(), localName, peerName, sql, fingerprint, bins, sigma,
        protocol, config.bridge().endpoint(), bridgeFingerprint, "pending", null, now,
        now + config.approvalTtl().toMillis(), null, output);
    db.tx(c -> {
      Store.insertQuery(c, q);
      Store.setDisclosure(c, q.id(), disclosure);
      Store.audit(c, now, config.party(), "query.submitted", "query", q.id(),
          Store.json(Map.of("sql", sql, "fingerprint", fingerprint, "localDataset", localName,
              "peerDataset", peerName, "role", side.label())));
      return null;
    });

    Map<String, Object> offer = new LinkedHashMap<>();
    offer.put("id", q.id());
    offer.put("requester", config.party());
    offer.put("requesterSide", side.label());
    offer.put("requesterDataset", localName);
    offer.put("approverDataset", peerName);
    offer.put("sql", sql);
    offer.put("fingerprint", fingerprint);
    offer.put("bins", bins);
    offer.put("sigma", sigma);
    offer.put("protocol", protocol);
    offer.put("requesterEndpoint", config.bridge().endpoint());
    offer.put("requesterFingerprint", bridgeFingerprint);
    offer.put("expiresAt", q.expiresAt());
    try {
      peer.post("/v1/peer/queries", offer);
    } catch (PeerClient.PeerError e) {
      String reason = e.getMessage();
      finish(q.id(), "refused", reason, "query.refused_by_peer");
      throw new ApiException(e.status == 422 || e.status == 400 ? 422 : 502,
          "the peer coordinator refused the query: " + peerMessage(e)).with("field", "peer")
          .with("peer", e.body).with("id", q.id());
    } catch (IOException e) {
      // The offer may have arrived even though its answer did not (a timeout): ask the peer
      // before calling the query failed, or the peer would hold it pending while it is failed here.
      try {
        peer.get("/v1/peer/queries/" + PeerClient.segment(q.id()));
        db.tx(c -> {
          Store.audit(c, now(), config.party(), "query.delivered_late", "query", q.id(),
              e.getMessage());
          return null;
        });
        return queryView(q.id());
      } catch (PeerClient.PeerError e2) {
        finish(q.id(), "failed", "peer unreachable: " + e.getMessage(), "query.undelivered");
        throw new ApiException(502, "cannot reach the peer coordinator: " + e.getMessage())
            .with("field", "peer").with("id", q.id());
      } catch (IOException e2) {
        db.tx(c -> {
          Store.audit(c, now(), config.party(), "query.delivery_uncertain", "query", q.id(),
              e.getMessage());
          return null;
        });
        throw new ApiException(502, "cannot reach the peer coordinator: " + e.getMessage()
            + "; the query stays pending until the peer confirms it (or has no record of it:"
            + " then it fails)").with("field", "peer").with("id", q.id());
      }
    }
    return queryView(q.id());
  }

  private static String peerMessage(PeerClient.PeerError e) {
    return e.body != null && e.body.has("error") ? e.body.get("error").asText()
        : "status " + e.status;
  }

  private void finish(String id, String status, String reason, String action) {
    db.tx(c -> {
      if (Store.decide(c, id, status, reason, now())) {
        Store.audit(c, now(), config.party(), action, "query", id, reason);
      }
      return null;
    });
  }

  /**
   * The peer's published dataset. {@code forPeer}: the caller is the peer (an offer it sent),
   * which hears that the fetch failed but not how (our view of its hosts and errors stays here,
   * in the log).
   */
  private PublishedDataset fetchPublished(String name, String field, boolean forPeer) {
    try {
      JsonNode n = peer.get("/v1/peer/datasets/" + PeerClient.segment(name));
      return json.treeToValue(n, PublishedDataset.class);
    } catch (PeerClient.PeerError e) {
      if (e.status == 404) {
        throw new ApiException(422, field + ": the peer " + config.peer().name()
            + " has no published dataset " + name).with("field", field);
      }
      if (forPeer) {
        throw cannotFetchForPeer(name, field, e);
      }
      throw new ApiException(502, "the peer coordinator answered " + e.status + " for dataset "
          + name + ": " + peerMessage(e)).with("field", field);
    } catch (IOException e) {
      if (forPeer) {
        throw cannotFetchForPeer(name, field, e);
      }
      throw new ApiException(502, "cannot reach the peer coordinator: " + e.getMessage())
          .with("field", field);
    }
  }

  /** The answer to the peer whose dataset we could not fetch: no hosts, statuses or errors. */
  private static ApiException cannotFetchForPeer(String name, String field, Exception e) {
    LOG.warn("fetching the peer's dataset {}: {}", name, e.getMessage());
    return new ApiException(502, "cannot fetch the requester's dataset " + name)
        .with("field", field);
  }

  // ================================================================== queries: the approver

  /** A query sent by the peer coordinator for this party's approval. */
  Map<String, Object> receive(JsonNode offer) {
    if (offer == null || !offer.isObject()) {
      throw ApiException.badRequest("body", "must be a JSON object");
    }
    String id = peerId("id", requireText(offer, "id"), "query");
    String requester = requireText(offer, "requester");
    if (!requester.equals(config.peer().name())) {
      throw new ApiException(403, "requester " + requester + " is not this coordinator's peer");
    }
    Role requesterSide = side(offer.get("requesterSide"));
    String requesterDataset = requireText(offer, "requesterDataset");
    String ownName = requireText(offer, "approverDataset");
    String sql = requireText(offer, "sql");
    String fingerprint = requireText(offer, "fingerprint");
    int bins = intField(offer, "bins", 0, 0, 1 << 24);
    int sigma = intField(offer, "sigma", 40, 40, 128);
    String protocol = requireText(offer, "protocol");
    if (!config.protocols().contains(protocol)) {
      throw ApiException.badRequest("protocol", "protocol " + protocol + " is not offered by "
          + config.party() + "; it offers " + config.protocols());
    }
    String endpoint = requireText(offer, "requesterEndpoint");
    String peerFingerprint = requireText(offer, "requesterFingerprint");
    if (!Confined.isEndpoint(endpoint)) {
      throw peerRefused("requesterEndpoint", endpoint, "query", id, "must be HOST:PORT");
    }
    if (!Confined.isFingerprint(peerFingerprint)) {
      throw peerRefused("requesterFingerprint", peerFingerprint, "query", id,
          "must be a SHA-256 in hex (64 lower-case digits)");
    }
    long expiresAt = offer.path("expiresAt").asLong(0);
    if (expiresAt <= now()) {
      throw ApiException.badRequest("expiresAt", "the deadline has passed");
    }
    expiresAt = Math.min(expiresAt, now() + config.approvalTtl().toMillis());

    Dataset own = db.tx(c -> Store.dataset(c, ownName)).filter(d -> d.status().equals("active"))
        .orElseThrow(() -> new ApiException(422, "approverDataset: no active dataset " + ownName
            + " at " + config.party()).with("field", "approverDataset"));
    PublishedDataset theirs = fetchPublished(requesterDataset, "requesterDataset", true);
    Role ownSide = requesterSide.peer();
    // Validated against what we publish, not our full schema: the peer reads the errors, and
    // "may not be revealed" for a column it was never shown would confirm that the column exists.
    QueryValidator.Policy ownPolicy = QueryValidator.policy(publish(own));
    QueryValidator.Policy theirPolicy = QueryValidator.policy(theirs);
    ResolvedJoin resolved = QueryValidator.validate(sql, "sql", ownSide, ownPolicy, theirPolicy);
    // The requester's coordinator expands stars; one left here would be expanded by our job
    // against whatever columns our files have when it runs, not against the approved schema.
    if (!QueryValidator.expandStars(sql, "sql", ownSide, ownPolicy, theirPolicy).equals(sql)) {
      throw new ApiException(422, "sql: the query selects * or t.*; the requester's coordinator "
          + "must send it with explicit columns").with("field", "sql");
    }
    String disclosure = Store.json(Disclosure.of(ownSide, resolved, ownName, own.publicSize(),
        requesterDataset, theirs.publicSize()));
    if (!fingerprint(sql).equals(fingerprint)) {
      throw ApiException.badRequest("fingerprint", "does not match the query");
    }
    long now = now();
    QueryRecord q = new QueryRecord(id, "incoming", requester, config.party(), ownSide.label(),
        ownName, requesterDataset, sql, fingerprint, bins, sigma, protocol, endpoint,
        peerFingerprint, "pending", null, now, expiresAt, null, null);
    db.tx(c -> {
      if (Store.query(c, id).isPresent()) {
        throw ApiException.conflict("query " + id + " already exists");
      }
      Store.insertQuery(c, q);
      Store.setDisclosure(c, id, disclosure);
      Store.audit(c, now, requester, "query.received", "query", id,
          Store.json(Map.of("sql", sql, "fingerprint", fingerprint, "localDataset", ownName,
              "peerDataset", requesterDataset)));
      return null;
    });
    return peerQueryView(id);
  }

  /**
   * This party approves (or rejects) an incoming query.
   *
   * @param principal the label of the token that decided (audited here; the peer hears only the
   *     party's decision)
   */
  Map<String, Object> decideIncoming(String id, boolean approve, String reason,
      String principal) {
    long now = now();
    SessionRecord session = db.tx(c -> {
      QueryRecord q = Store.query(c, id).orElseThrow(() -> ApiException.notFound("query " + id));
      if (!q.direction().equals("incoming")) {
        throw ApiException.conflict("query " + id + " was submitted by this party; "
            + config.peer().name() + " decides on it");
      }
      if (!q.status().equals("pending")) {
        throw ApiException.conflict("query " + id + " is " + q.status() + ", not pending");
      }
      if (q.expiresAt() <= now) {
        expire(c, q, now);
        return null;
      }
      String decision = approve ? "approved" : "rejected";
      Store.decide(c, id, decision, reason, now);
      Store.insertApproval(c, new Approval(id, decision, config.party(), reason, now));
      Store.audit(c, now, config.party(), "query." + decision, "query", id,
          principalDetail(principal, reason));
      if (!approve) {
        return null;
      }
      SessionRecord s = newSession(q, now);
      Store.insertSession(c, s);
      Store.audit(c, now, config.party(), "session.created", "session", s.id(),
          Store.json(sessionAudit(s)));
      return s;
    });
    QueryRecord q = db.tx(c -> Store.query(c, id)).orElseThrow();
    if (q.status().equals("expired")) {
      throw ApiException.conflict("query " + id + " expired before the decision");
    }
    Map<String, Object> decision = new LinkedHashMap<>();
    decision.put("decision", q.status());
    decision.put("reason", reason);
    decision.put("decidedAt", now);
    decision.put("session", session);
    try {
      peer.post("/v1/peer/queries/" + PeerClient.segment(id) + "/decision", decision);
    } catch (IOException | PeerClient.PeerError e) {
      // the requester's sweeper polls GET /v1/peer/queries/{id}; recorded, not fatal
      LOG.warn("cannot tell {} about the decision on {}: {}", config.peer().name(), id,
          e.getMessage());
      db.tx(c -> {
        Store.audit(c, now(), config.party(), "peer.notify_failed", "query", id, e.getMessage());
        return null;
      });
    }
    if (session != null) {
      launch(session.id());
    }
    return queryView(id);
  }

  private SessionRecord newSession(QueryRecord q, long now) {
    // the approver is the query's local side here; the requester the other
    boolean approverIsA = q.localSide().equals("A");
    String aParty = approverIsA ? config.party() : q.requester();
    String bParty = approverIsA ? q.requester() : config.party();
    String aEnd = approverIsA ? config.bridge().endpoint() : q.requesterEndpoint();
    String aFp = approverIsA ? bridgeFingerprint : q.requesterFingerprint();
    String bEnd = approverIsA ? q.requesterEndpoint() : config.bridge().endpoint();
    String bFp = approverIsA ? q.requesterFingerprint() : bridgeFingerprint;
    return new SessionRecord(UUID.randomUUID().toString(), q.id(), aParty, bParty, q.bins(),
        q.sigma(), q.protocol(), aEnd, aFp, bEnd, bFp, now);
  }

  private static Map<String, Object> sessionAudit(SessionRecord s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("queryId", s.queryId());
    m.put("bins", s.bins());
    m.put("sigma", s.sigma());
    m.put("protocol", s.protocol());
    m.put("a", s.partyA() + "@" + s.aEndpoint());
    m.put("b", s.partyB() + "@" + s.bEndpoint());
    return m;
  }

  /** The peer (the approver) tells this coordinator its decision on an outgoing query. */
  Map<String, Object> peerDecision(String id, JsonNode body) {
    peerId("id", id, "query");
    if (body == null || !body.isObject()) {
      throw ApiException.badRequest("body", "must be a JSON object");
    }
    String decision = requireText(body, "decision");
    if (!decision.equals("approved") && !decision.equals("rejected")
        && !decision.equals("expired")) {
      throw ApiException.badRequest("decision", "must be approved, rejected or expired");
    }
    String reason = body.hasNonNull("reason") ? body.get("reason").asText() : null;
    SessionRecord session = null;
    if (decision.equals("approved")) {
      try {
        session = json.treeToValue(body.get("session"), SessionRecord.class);
      } catch (IOException | IllegalArgumentException e) {
        throw ApiException.badRequest("session", "unreadable: " + e.getMessage());
      }
      if (session == null || session.id() == null || !id.equals(session.queryId())) {
        throw ApiException.badRequest("session", "an approval carries the session of the query");
      }
    }
    applyDecision(id, decision, reason, session);
    return peerQueryView(id);
  }

  private void applyDecision(String id, String decision, String reason, SessionRecord session) {
    if (session != null) {
      checkPeerSession(id, session);
    }
    long now = now();
    boolean late = db.tx(c -> {
      QueryRecord q = Store.query(c, id).orElseThrow(() -> ApiException.notFound("query " + id));
      if (!q.direction().equals("outgoing")) {
        throw ApiException.notFound("query " + id);
      }
      if (q.status().equals(decision)) {
        return false; // the callback and the poll may both deliver it
      }
      if (!q.status().equals("pending")) {
        throw ApiException.conflict("query " + id + " is already " + q.status());
      }
      if (decision.equals("expired")) {
        expire(c, q, now);
        return false;
      }
      if (q.expiresAt() <= now) {
        expire(c, q, now); // committed; the caller hears 409
        return true;
      }
      Store.decide(c, id, decision, reason, now);
      Store.insertApproval(c, new Approval(id, decision, q.approver(), reason, now));
      Store.audit(c, now, q.approver(), "query." + decision, "query", id, reason);
      if (session != null) {
        checkSession(q, session);
        Store.insertSession(c, session.fresh());
        Store.audit(c, now, q.approver(), "session.created", "session", session.id(),
            Store.json(sessionAudit(session)));
      }
      return false;
    });
    if (late) {
      throw ApiException.conflict("query " + id + " expired here before the decision arrived");
    }
    if (session != null) {
      launch(session.id());
    }
  }

  /**
   * The ids and public parameters of a session the peer created are well-formed before anything
   * stores or uses them (the session id names our work directory and default output).
   */
  private void checkPeerSession(String queryId, SessionRecord s) {
    peerId("session.id", s.id(), "session");
    peerId("session.queryId", s.queryId(), "session");
    for (String[] f : new String[][] {{"session.aEndpoint", s.aEndpoint()},
        {"session.bEndpoint", s.bEndpoint()}}) {
      if (!Confined.isEndpoint(f[1])) {
        throw peerRefused(f[0], f[1], "query", queryId, "must be HOST:PORT");
      }
    }
    for (String[] f : new String[][] {{"session.aFingerprint", s.aFingerprint()},
        {"session.bFingerprint", s.bFingerprint()}}) {
      if (!Confined.isFingerprint(f[1])) {
        throw peerRefused(f[0], f[1], "query", queryId,
            "must be a SHA-256 in hex (64 lower-case digits)");
      }
    }
  }

  /**
   * An id the peer supplied, checked as a canonical UUID: it names rows here and, for sessions,
   * directories. A refusal is logged and audited, and answered with 400 naming the field.
   */
  private String peerId(String field, String value, String objectType) {
    if (!Confined.isUuid(value)) {
      throw peerRefused(field, value, objectType, null, "must be a UUID in canonical form");
    }
    return value;
  }

  private ApiException peerRefused(String field, String value, String objectType, String objectId,
      String why) {
    // shortened, control characters escaped: the value is the peer's, it goes into our log
    String shown = value == null ? "null" : (value.length() > 80 ? value.substring(0, 80) + "..."
        : value).replaceAll("\\p{Cntrl}", "?");
    LOG.warn("refused from the peer {}: {} {} ({})", config.peer().name(), field, why, shown);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("field", field);
    d.put("value", shown);
    d.put("why", why);
    db.tx(c -> {
      // the object is the refused id itself when the id is what was refused
      Store.audit(c, now(), config.peer().name(), "peer.refused", objectType,
          objectId != null ? objectId : shown, Store.json(d));
      return null;
    });
    return ApiException.badRequest(field, why);
  }

  /** The session the approver created must match the query this side submitted. */
  private void checkSession(QueryRecord q, SessionRecord s) {
    boolean weAreA = q.localSide().equals("A");
    String ourParty = weAreA ? s.partyA() : s.partyB();
    String ourEndpoint = weAreA ? s.aEndpoint() : s.bEndpoint();
    String ourFp = weAreA ? s.aFingerprint() : s.bFingerprint();
    if (!config.party().equals(ourParty) || !q.requesterEndpoint().equals(ourEndpoint)
        || !q.requesterFingerprint().equals(ourFp) || s.bins() != q.bins()
        || s.sigma() != q.sigma() || !q.protocol().equals(s.protocol())) {
      throw ApiException.badRequest("session", "does not match the submitted query");
    }
  }

  private void expire(java.sql.Connection c, QueryRecord q, long now) throws java.sql.SQLException {
    if (Store.decide(c, q.id(), "expired", "no decision before the deadline", now)) {
      Store.insertApproval(c, new Approval(q.id(), "expired", config.party(),
          "no decision before the deadline", now));
      Store.audit(c, now, config.party(), "query.expired", "query", q.id(), null);
    }
  }

  /**
   * Expires overdue pending queries, and asks the peer about outgoing queries still pending here
   * (in case its decision callback was lost).
   */
  void sweep() {
    long now = now();
    db.tx(c -> {
      for (QueryRecord q : Store.overdue(c, now)) {
        expire(c, q, now);
      }
      return null;
    });
    for (QueryRecord q : db.tx(c -> Store.queries(c, "pending"))) {
      if (!q.direction().equals("outgoing")) {
        continue;
      }
      try {
        JsonNode r = peer.get("/v1/peer/queries/" + PeerClient.segment(q.id()));
        String status = r.path("status").asText();
        if (status.equals("approved") || status.equals("rejected")) {
          SessionRecord s = r.hasNonNull("session")
              ? json.treeToValue(r.get("session"), SessionRecord.class) : null;
          applyDecision(q.id(), status, r.path("statusReason").asText(null), s);
        }
      } catch (PeerClient.PeerError e) {
        // Not at the peer long after it was sent (beyond the offer's own timeout): the offer
        // never arrived.
        if (e.status == 404 && q.createdAt() < now - UNDELIVERED_AFTER.toMillis()) {
          finish(q.id(), "failed", "the peer has no record of the query: it was never"
              + " delivered", "query.undelivered");
        }
        LOG.debug("poll of {} at the peer: {}", q.id(), e.getMessage());
      } catch (IOException | ApiException e) {
        LOG.debug("poll of {} at the peer: {}", q.id(), e.getMessage());
      }
    }
    if (launcher != null) {
      for (SessionRecord s : db.tx(c -> Store.sessionsWithStatus(c, "created"))) {
        launch(s.id());
      }
    }
  }

  // ================================================================== jobs

  /**
   * Sessions whose job ran when this coordinator stopped have lost their job (a child JVM, or the
   * flink client it followed): they are failed, and the peer's job fails through the bridge.
   */
  private void recover() {
    long now = now();
    db.tx(c -> {
      for (SessionRecord s : Store.sessionsWithStatus(c, "running")) {
        String error = "the coordinator of " + config.party() + " restarted while the job ran";
        if (Store.endSession(c, s.id(), "failed", error, null, null, null, now)) {
          Store.audit(c, now, config.party(), "job.failed", "session", s.id(), error);
        }
      }
      return null;
    });
  }

  /** Launches this party's job of a session (no-op without a job config, or if launched). */
  private void launch(String sessionId) {
    if (launcher == null) {
      return;
    }
    try {
      SessionRecord s = session(sessionId);
      if (!s.status().equals("created")) {
        return;
      }
      QueryRecord q = db.tx(c -> Store.query(c, s.queryId())).orElseThrow();
      Dataset local = db.tx(c -> Store.dataset(c, q.localDataset())).orElse(null);
      if (local == null || !local.status().equals("active")) {
        endSession(sessionId, "failed", "dataset " + q.localDataset() + " is no longer active at "
            + config.party(), "job.failed");
        abortAtPeer(sessionId, AbortCategory.DATASET_UNAVAILABLE);
        return;
      }
      launcher.launch(s, q, local);
    } catch (RuntimeException e) {
      LOG.error("cannot launch the job of session {}", sessionId, e);
    }
  }

  private boolean endSession(String id, String status, String error, String action) {
    return endSession(id, status, error, action, error);
  }

  /** As above, with {@code detail} as the audit entry's details instead of the error. */
  private boolean endSession(String id, String status, String error, String action,
      String detail) {
    long now = now();
    return db.tx(c -> {
      if (!Store.endSession(c, id, status, error, null, null, null, now)) {
        return false;
      }
      Store.audit(c, now, config.party(), action, "session", id, detail);
      return true;
    });
  }

  /**
   * This party cancels a session: its job stops, the peer is told (its job stops too).
   *
   * @param principal the label of the token that cancelled (audited)
   */
  SessionRecord cancel(String id, String principal) {
    SessionRecord s = session(id);
    if (!endSession(id, "cancelled", null, "job.cancelled", principalDetail(principal, null))) {
      throw ApiException.conflict("session " + id + " has already ended: "
          + session(id).status());
    }
    if (launcher != null) {
      launcher.stop(id);
    }
    abortAtPeer(s.id(), AbortCategory.CANCELLED);
    return session(id);
  }

  /** The peer tells this coordinator that its side of a session ended early. */
  SessionRecord peerAbort(String id, JsonNode body) {
    peerId("id", id, "session");
    session(id); // 404 if unknown
    // only a category from the fixed set crosses between the organisations (no free text)
    JsonNode cat = body == null ? null : body.get("category");
    AbortCategory category = cat != null && cat.isTextual() ? AbortCategory.parse(cat.asText())
        : null;
    if (category == null) {
      throw peerRefused("category", cat == null ? null : cat.toString(), "session", id,
          "must be one of " + java.util.Arrays.stream(AbortCategory.values())
              .map(AbortCategory::wire).toList());
    }
    java.util.Iterator<String> fields = body.fieldNames();
    while (fields.hasNext()) {
      String f = fields.next();
      if (!f.equals("category")) {
        throw peerRefused(f, null, "session", id, "an abort carries only its category");
      }
    }
    String error = "the peer " + config.peer().name() + " ended the session: "
        + category.wire();
    if (endSession(id, "failed", error, "session.aborted_by_peer") && launcher != null) {
      launcher.stop(id);
    }
    return session(id);
  }

  /**
   * The audit detail of a party's decision: the principal (its token's label) and the reason; a
   * plain reason (or null) when no principal is known (a call from inside this process).
   */
  private static String principalDetail(String principal, String reason) {
    if (principal == null) {
      return reason;
    }
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("principal", principal);
    if (reason != null) {
      d.put("reason", reason);
    }
    return Store.json(d);
  }

  private void abortAtPeer(String id, AbortCategory category) {
    try {
      peer.post("/v1/peer/sessions/" + PeerClient.segment(id) + "/abort",
          Map.of("category", category.wire()));
    } catch (IOException | PeerClient.PeerError e) {
      // the peer's job still fails through the bridge, within its timeouts
      LOG.warn("cannot tell {} that session {} ended: {}", config.peer().name(), id,
          e.getMessage());
      db.tx(c -> {
        Store.audit(c, now(), config.party(), "peer.notify_failed", "session", id,
            e.getMessage());
        return null;
      });
    }
  }

  /** Where party A's joined table is, with the job's summary; 409 before success, 404 at B. */
  Map<String, Object> result(String id) {
    SessionRecord s = session(id);
    QueryRecord q = db.tx(c -> Store.query(c, s.queryId())).orElseThrow();
    if (!q.localSide().equals("A")) {
      throw ApiException.notFound("result of session " + id + ": party B receives no rows (the"
          + " joined table is written at party A, " + s.partyA() + ")");
    }
    if (!s.status().equals("succeeded")) {
      String why = switch (s.status()) {
        case "failed" -> "failed: " + s.error();
        case "cancelled" -> "was cancelled";
        default -> "is " + s.status() + "; the result exists once it succeeded";
      };
      throw ApiException.conflict("session " + id + " " + why).with("sessionStatus", s.status());
    }
    String summary = db.tx(c -> Store.sessionSummary(c, id));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("location", s.result().location());
    m.put("format", s.result().format());
    m.put("rowsOut", s.result().rowsOut());
    try {
      m.put("summary", summary == null ? null : json.readTree(summary));
    } catch (IOException e) {
      m.put("summary", null);
    }
    return m;
  }

  /** Stops the jobs this coordinator runs (on shutdown). */
  void close() {
    if (launcher != null) {
      launcher.close();
    }
  }

  private static Model.Output output(JsonNode n) {
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isObject()) {
      throw ApiException.badRequest("output", "must be an object {location, format}");
    }
    JsonNode loc = n.get("location");
    JsonNode fmt = n.get("format");
    if (loc != null && !loc.isNull() && (!loc.isTextual() || loc.asText().isBlank())) {
      throw ApiException.badRequest("output.location", "must be a non-empty path");
    }
    if (fmt != null && !fmt.isNull() && !fmt.asText().equals("avro")
        && !fmt.asText().equals("csv")) {
      throw ApiException.badRequest("output.format", "must be avro or csv");
    }
    return new Model.Output(loc == null || loc.isNull() ? null : loc.asText(),
        fmt == null || fmt.isNull() ? null : fmt.asText());
  }

  // ================================================================== reading

  List<Map<String, Object>> queries(String status) {
    return db.tx(c -> {
      List<Map<String, Object>> out = new ArrayList<>();
      for (QueryRecord q : Store.queries(c, status)) {
        out.add(view(c, q));
      }
      return out;
    });
  }

  Map<String, Object> queryView(String id) {
    return db.tx(c -> view(c, Store.query(c, id).orElseThrow(
        () -> ApiException.notFound("query " + id))));
  }

  /**
   * What the peer may see of a query (only queries between the two parties exist here): the
   * query, the decision and the session's public parameters; not this party's output location,
   * nor its job's state, error or result.
   */
  Map<String, Object> peerQueryView(String id) {
    peerId("id", id, "query");
    return db.tx(c -> {
      QueryRecord q = Store.query(c, id).orElseThrow(() -> ApiException.notFound("query " + id));
      Map<String, Object> m = json.convertValue(q, LinkedHashMap.class);
      m.put("output", null);
      if (q.status().equals("failed")) {
        m.put("statusReason", null); // a local explanation
      }
      m.put("approval", Store.approval(c, q.id()).orElse(null));
      m.put("session", Store.sessionOfQuery(c, q.id()).map(SessionRecord::fresh).orElse(null));
      return m;
    });
  }

  private Map<String, Object> view(java.sql.Connection c, QueryRecord q)
      throws java.sql.SQLException {
    Map<String, Object> m = json.convertValue(q, LinkedHashMap.class);
    // what each party learns: the approval shows it before anyone decides
    String disclosure = Store.disclosure(c, q.id()).orElse(null);
    try {
      m.put("disclosure", disclosure == null ? null : json.readTree(disclosure));
    } catch (java.io.IOException e) {
      throw new java.sql.SQLException("query " + q.id() + " has an unreadable disclosure", e);
    }
    m.put("approval", Store.approval(c, q.id()).orElse(null));
    m.put("session", Store.sessionOfQuery(c, q.id()).orElse(null));
    return m;
  }

  List<SessionRecord> sessions() {
    return db.tx(Store::sessions);
  }

  SessionRecord session(String id) {
    return db.tx(c -> Store.session(c, id)).orElseThrow(() -> ApiException.notFound(
        "session " + id));
  }

  List<AuditEntry> audit(long after, int limit) {
    return db.tx(c -> Store.audit(c, after, limit));
  }

  // ================================================================== helpers

  private static String fingerprint(String sql) {
    try {
      return io.psiflink.query.JoinQuery.parse(sql).fingerprint();
    } catch (io.psiflink.query.QueryException e) {
      throw ApiException.invalidQuery("sql", e);
    }
  }

  private static Role side(JsonNode role) {
    if (role == null || role.isNull()) {
      return Role.A;
    }
    return switch (role.asText()) {
      case "A", "a" -> Role.A;
      case "B", "b" -> Role.B;
      default -> throw ApiException.badRequest("role", "must be A (table a, receives the joined"
          + " rows) or B (table b)");
    };
  }

  private static int intField(JsonNode body, String field, int dflt, int min, int max) {
    JsonNode n = body.get(field);
    if (n == null || n.isNull()) {
      return dflt;
    }
    if (!n.isInt() || n.asInt() < min || n.asInt() > max) {
      throw ApiException.badRequest(field, "must be an integer in [" + min + ", " + max + "]");
    }
    return n.asInt();
  }

  static String requireText(JsonNode body, String name) {
    return requireText(body, name, name);
  }

  static String requireText(JsonNode body, String name, String field) {
    JsonNode v = body == null ? null : body.get(name);
    if (v == null || !v.isTextual() || v.asText().isBlank()) {
      throw ApiException.badRequest(field, "is required (a non-empty string)");
    }
    return v.asText();
  }

  Duration ttl() {
    return config.approvalTtl();
  }
}
