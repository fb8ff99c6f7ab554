package io.psiflink.coordinator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psiflink.coordinator.Model.Decision;
import io.psiflink.coordinator.Model.QueryStatus;
import io.psiflink.coordinator.Tokens.Kind;
import io.psiflink.coordinator.Tokens.Principal;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API (a Jetty handler): authentication, routing, JSON in and out. Every route is listed
 * in {@link #routes()} and described in {@code openapi.yaml} (a test checks both agree).
 *
 * <ul>
 *   <li>{@code GET /openapi.yaml}: the API description, without authentication.
 *   <li>{@code /v1/...} except {@code /v1/peer/...}: for this coordinator's party.
 *   <li>{@code /v1/peer/...}: for the peer coordinator only.
 * </ul>
 *
 * A missing or unknown token is 401 (before anything else, so nothing about the API's objects leaks
 * to an unauthenticated caller); a valid token on the other principal's routes is 403; an object
 * that does not exist, or that the caller may not see, is 404.
 */
final class HttpApi extends Handler.Abstract {
  private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
  private static final int MAX_BODY = 1 << 20;

  /** A route handler: path parameters, query parameters and the parsed body in, a result out. */
  @FunctionalInterface
  interface Action {
    Object run(List<String> params, Fields query, JsonNode body) throws Exception;
  }

  /** A route handler that also needs who calls (null on unauthenticated routes). */
  @FunctionalInterface
  interface CallerAction {
    Object run(Principal who, List<String> params, Fields query, JsonNode body) throws Exception;
  }

  /** A route; {@code kind} null means no authentication. {@code status} on success. */
  record Route(String method, String path, Kind kind, int status, CallerAction action) {
    Pattern pattern() {
      return Pattern.compile(path.replaceAll("\\{[^/]+}", "([^/]+)"));
    }
  }

  /** Party changes (submit, approve, cancel, ...) running at once; see handle(). */
  static final int MAX_CHANGES = 32;

  private static final int CHANGE_WAIT_SECONDS = 60;

  private final java.util.concurrent.Semaphore changes =
      new java.util.concurrent.Semaphore(MAX_CHANGES, true);
  private final Coordinator coordinator;
  private final Tokens tokens;
  private final ObjectMapper json;
  private final byte[] openapi;
  private final List<Route> routes = new ArrayList<>();
  private final List<Pattern> patterns = new ArrayList<>();

  HttpApi(Coordinator coordinator, Tokens tokens, ObjectMapper json) throws IOException {
    this.coordinator = coordinator;
    this.tokens = tokens;
    this.json = json;
    try (InputStream in = HttpApi.class.getResourceAsStream("/openapi.yaml")) {
      if (in == null) {
        throw new IOException("openapi.yaml is missing from the classpath");
      }
      this.openapi = in.readAllBytes();
    }
    DatasetRegistry datasets = coordinator.registry();
    Queries queries = coordinator.queries();
    Offers offers = coordinator.offers();
    Approvals approvals = coordinator.approvals();
    Sessions sessions = coordinator.sessions();
    PeerInput peerInput = coordinator.peerInput();
    add("GET", "/openapi.yaml", null, 200, (p, q, b) -> openapi);

    add(
        "GET",
        "/v1/datasets",
        Kind.PARTY,
        200,
        (p, q, b) -> Map.of("datasets", datasets.list(bool(q, "includeRetired"))));
    add(
        "POST",
        "/v1/datasets",
        Kind.PARTY,
        201,
        (p, q, b) -> datasets.register(Requests.NewDataset.parse(b)));
    add("GET", "/v1/datasets/{name}", Kind.PARTY, 200, (p, q, b) -> datasets.get(p.get(0)));
    add("DELETE", "/v1/datasets/{name}", Kind.PARTY, 200, (p, q, b) -> datasets.retire(p.get(0)));

    // the helpers a query may name for its pre-filter, with the pins the peer must have too
    add(
        "GET",
        "/v1/helpers",
        Kind.PARTY,
        200,
        (p, q, b) -> Map.of("helpers", coordinator.helpers()));

    // the providers an n-party query may name, with the pins every party must have too
    add(
        "GET",
        "/v1/providers",
        Kind.PARTY,
        200,
        (p, q, b) -> Map.of("providers", coordinator.providers()));

    addGroupRoutes();

    add(
        "GET",
        "/v1/queries",
        Kind.PARTY,
        200,
        (p, q, b) -> Map.of("queries", queries.list(queryStatus(q.getValue("status")))));
    add(
        "POST",
        "/v1/queries",
        Kind.PARTY,
        201,
        (p, q, b) -> offers.submit(Requests.Submission.parse(b)));
    add("GET", "/v1/queries/{id}", Kind.PARTY, 200, (p, q, b) -> queries.view(p.get(0)));
    // who decides and who cancels is audited by their token's label
    addCaller(
        "POST",
        "/v1/queries/{id}/approve",
        Kind.PARTY,
        200,
        (w, p, q, b) ->
            approvals.decide(p.get(0), Decision.APPROVED, Requests.reason(b), w.label()));
    addCaller(
        "POST",
        "/v1/queries/{id}/reject",
        Kind.PARTY,
        200,
        (w, p, q, b) ->
            approvals.decide(p.get(0), Decision.REJECTED, Requests.reason(b), w.label()));

    add("GET", "/v1/sessions", Kind.PARTY, 200, (p, q, b) -> Map.of("sessions", sessions.views()));
    add("GET", "/v1/sessions/{id}", Kind.PARTY, 200, (p, q, b) -> sessions.view(p.get(0)));
    addCaller(
        "POST",
        "/v1/sessions/{id}/cancel",
        Kind.PARTY,
        200,
        (w, p, q, b) -> sessions.cancel(p.get(0), w.label()));
    addCaller(
        "POST",
        "/v1/sessions/{id}/resume",
        Kind.PARTY,
        200,
        (w, p, q, b) -> sessions.resume(p.get(0), w.label()));
    add("GET", "/v1/sessions/{id}/result", Kind.PARTY, 200, (p, q, b) -> sessions.result(p.get(0)));

    add(
        "GET",
        "/v1/audit",
        Kind.PARTY,
        200,
        (p, q, b) ->
            Map.of(
                "entries",
                sessions.audit(
                    longParam(q, "after", 0, 0, Long.MAX_VALUE),
                    (int) longParam(q, "limit", 1000, 1, 10000))));

    add(
        "GET",
        "/v1/peer/datasets",
        Kind.PEER,
        200,
        (p, q, b) -> Map.of("datasets", datasets.publishedAll()));
    add(
        "GET",
        "/v1/peer/datasets/{name}",
        Kind.PEER,
        200,
        (p, q, b) -> datasets.published(p.get(0)));
    add(
        "POST",
        "/v1/peer/queries",
        Kind.PEER,
        201,
        (p, q, b) ->
            approvals.receive(
                Requests.Offer.parse(
                    b,
                    (field, value, why) -> peerInput.refused(field, value, "query", null, why))));
    add("GET", "/v1/peer/queries/{id}", Kind.PEER, 200, (p, q, b) -> queries.peerView(p.get(0)));
    // the peer's ids are checked (and a refusal audited) before its body is read
    add(
        "POST",
        "/v1/peer/queries/{id}/decision",
        Kind.PEER,
        200,
        (p, q, b) -> {
          String id = peerInput.id("id", p.get(0), "query");
          return offers.peerDecision(id, Requests.PeerDecision.parse(b, json));
        });
    // party A's coordinator starts B's job when both have a free job slot (409 busy: queued)
    add(
        "POST",
        "/v1/peer/sessions/{id}/start",
        Kind.PEER,
        200,
        (p, q, b) -> sessions.peerStart(sessions.peerSessionId(peerInput, p.get(0))));
    add(
        "POST",
        "/v1/peer/sessions/{id}/resume",
        Kind.PEER,
        200,
        (p, q, b) -> sessions.peerResume(sessions.peerSessionId(peerInput, p.get(0))));
    add(
        "POST",
        "/v1/peer/sessions/{id}/abort",
        Kind.PEER,
        200,
        (p, q, b) -> {
          String id = sessions.peerSessionId(peerInput, p.get(0));
          return sessions.peerAbort(
              id,
              Requests.PeerAbort.parse(
                  b, (field, value, why) -> peerInput.refused(field, value, "session", id, why)));
        });
  }

  /**
   * The routes of n-party joins: this party's ({@code /v1/group-...}) and the other parties'
   * coordinators' ({@code /v1/peer/group-...}), where the caller is the organisation its token is
   * labelled with.
   */
  private void addGroupRoutes() {
    GroupQueries queries = coordinator.groupQueries();
    GroupOffers offers = coordinator.groupOffers();
    GroupApprovals approvals = coordinator.groupApprovals();
    GroupSessions sessions = coordinator.groupSessions();
    PeerInput peerInput = coordinator.peerInput();
    add(
        "GET",
        "/v1/group-queries",
        Kind.PARTY,
        200,
        (p, q, b) -> Map.of("queries", queries.list(queryStatus(q.getValue("status")))));
    addCaller(
        "POST",
        "/v1/group-queries",
        Kind.PARTY,
        201,
        (w, p, q, b) -> offers.submit(GroupRequests.Submission.parse(b), w.label()));
    add("GET", "/v1/group-queries/{id}", Kind.PARTY, 200, (p, q, b) -> queries.view(p.get(0)));
    addCaller(
        "POST",
        "/v1/group-queries/{id}/approve",
        Kind.PARTY,
        200,
        (w, p, q, b) ->
            approvals.decide(p.get(0), Decision.APPROVED, Requests.reason(b), w.label()));
    addCaller(
        "POST",
        "/v1/group-queries/{id}/reject",
        Kind.PARTY,
        200,
        (w, p, q, b) ->
            approvals.decide(p.get(0), Decision.REJECTED, Requests.reason(b), w.label()));
    add(
        "GET",
        "/v1/group-sessions",
        Kind.PARTY,
        200,
        (p, q, b) -> Map.of("sessions", sessions.list()));
    add("GET", "/v1/group-sessions/{id}", Kind.PARTY, 200, (p, q, b) -> sessions.get(p.get(0)));
    addCaller(
        "POST",
        "/v1/group-sessions/{id}/cancel",
        Kind.PARTY,
        200,
        (w, p, q, b) -> sessions.cancel(p.get(0), w.label()));
    add(
        "GET",
        "/v1/group-sessions/{id}/result",
        Kind.PARTY,
        200,
        (p, q, b) -> sessions.result(p.get(0)));

    addCaller(
        "POST",
        "/v1/peer/group-queries",
        Kind.PEER,
        201,
        (w, p, q, b) ->
            approvals.receive(
                w.label(),
                GroupRequests.Offer.parse(
                    b,
                    (field, value, why) ->
                        peerInput.refused(w.label(), field, value, "query", null, why))));
    addCaller(
        "GET",
        "/v1/peer/group-queries/{id}",
        Kind.PEER,
        200,
        (w, p, q, b) -> queries.peerView(peerId(w, p.get(0), "query"), w.label()));
    addCaller(
        "POST",
        "/v1/peer/group-queries/{id}/decision",
        Kind.PEER,
        200,
        (w, p, q, b) -> {
          String id = peerId(w, p.get(0), "query");
          return offers.vote(
              id,
              w.label(),
              GroupRequests.Vote.parse(
                  b,
                  (field, value, why) ->
                      peerInput.refused(w.label(), field, value, "query", id, why)));
        });
    addCaller(
        "POST",
        "/v1/peer/group-queries/{id}/outcome",
        Kind.PEER,
        200,
        (w, p, q, b) -> approvals.outcome(peerId(w, p.get(0), "query"), w.label(), b));
    addCaller(
        "POST",
        "/v1/peer/group-sessions/{id}/abort",
        Kind.PEER,
        200,
        (w, p, q, b) -> {
          String id = peerId(w, p.get(0), "session");
          return sessions.peerAbort(
              id,
              w.label(),
              Requests.PeerAbort.parse(
                      b,
                      (field, value, why) ->
                          peerInput.refused(w.label(), field, value, "session", id, why))
                  .category());
        });
  }

  /** An id another organisation sent in a path: a canonical UUID, else refused (audited). */
  private String peerId(Principal who, String id, String objectType) {
    if (!Confined.isUuid(id)) {
      throw coordinator
          .peerInput()
          .refused(who.label(), "id", id, objectType, null, "must be a UUID in canonical form");
    }
    return id;
  }

  private void add(String method, String path, Kind kind, int status, Action action) {
    addCaller(method, path, kind, status, (w, p, q, b) -> action.run(p, q, b));
  }

  private void addCaller(String method, String path, Kind kind, int status, CallerAction action) {
    Route r = new Route(method, path, kind, status, action);
    routes.add(r);
    patterns.add(r.pattern());
  }

  /** Every route, for the OpenAPI consistency test. */
  List<Route> routes() {
    return List.copyOf(routes);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    String method = request.getMethod();
    String path = Request.getPathInContext(request);
    int status;
    Object result;
    try {
      Match m = match(method, path);
      Principal who = null;
      if (m.route().kind() != null) {
        who = authenticate(request);
        if (who.kind() != m.route().kind()) {
          throw new ApiException(
              403,
              who.kind() == Kind.PEER
                  ? "the peer coordinator may only call /v1/peer/..."
                  : "/v1/peer/... is for the peer coordinator only");
        }
        // with further organisations, each calls as itself: the two-party API is the peer's,
        // an n-party join's is its parties' (each route checks who calls)
        if (who.kind() == Kind.PEER
            && m.route().path().matches("/v1/peer/(queries|sessions)(/.*)?")
            && !coordinator.twoPartyCaller(who.label())) {
          throw new ApiException(
              403,
              "the two-party peer API is for this coordinator's peer only; n-party joins use"
                  + " /v1/peer/group-...");
        }
        if (who.kind() == Kind.PEER
            && m.route().path().startsWith("/v1/peer/group-")
            && !coordinator.isOrganisation(who.label())) {
          throw new ApiException(
              403,
              "an n-party join's coordinators call with a peer token labelled with the calling"
                  + " organisation's name; this token's label names none");
        }
      }
      JsonNode body = readBody(request, method);
      // a party's changes may call the other coordinators, whose calls back need threads here:
      // at most MAX_CHANGES of them hold a thread at once, so peers' calls are never starved
      boolean change = m.route().kind() == Kind.PARTY && !method.equals("GET");
      if (change && !changes.tryAcquire(CHANGE_WAIT_SECONDS, TimeUnit.SECONDS)) {
        throw new ApiException(
            503,
            "the coordinator is busy with " + MAX_CHANGES + " changes at once; try again shortly");
      }
      try {
        result =
            m.route().action().run(who, m.params(), Request.extractQueryParameters(request), body);
      } finally {
        if (change) {
          changes.release();
        }
      }
      status = m.route().status();
    } catch (ApiException e) {
      status = e.status();
      result = e.body();
      if (status == 401) {
        response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer realm=\"psi-flink\"");
      }
    } catch (Exception e) {
      LOG.error("{} {} failed", method, path, e);
      status = 500;
      result = new ApiException(500, "internal error: " + e.getClass().getSimpleName()).body();
    }
    byte[] out;
    String type;
    if (result instanceof byte[] raw) {
      out = raw;
      type = "application/yaml";
    } else {
      try {
        out = json.writeValueAsBytes(result);
      } catch (JsonProcessingException e) {
        status = 500;
        LOG.error("{} {}: cannot encode the response", method, path, e);
        out = encodeError(new ApiException(500, "cannot encode the response").body());
      }
      type = "application/json";
    }
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.write(true, ByteBuffer.wrap(out), callback);
    return true;
  }

  /** An error body of plain strings and numbers, which always encodes. */
  private byte[] encodeError(Object body) {
    try {
      return json.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private record Match(Route route, List<String> params) {}

  private Match match(String method, String path) {
    boolean pathKnown = false;
    for (int i = 0; i < routes.size(); i++) {
      Matcher m = patterns.get(i).matcher(path == null ? "" : path);
      if (!m.matches()) {
        continue;
      }
      pathKnown = true;
      if (routes.get(i).method().equals(method)) {
        List<String> params = new ArrayList<>();
        for (int g = 1; g <= m.groupCount(); g++) {
          params.add(m.group(g));
        }
        return new Match(routes.get(i), params);
      }
    }
    if (pathKnown) {
      throw new ApiException(405, "method " + method + " is not allowed on " + path);
    }
    throw new ApiException(404, "no such endpoint: " + path + " (see /openapi.yaml)");
  }

  private Principal authenticate(Request request) {
    String h = request.getHeaders().get(HttpHeader.AUTHORIZATION);
    if (h == null) {
      throw new ApiException(401, "authentication required: Authorization: Bearer <token>");
    }
    if (!h.regionMatches(true, 0, "Bearer ", 0, 7)) {
      throw new ApiException(401, "the Authorization header must be 'Bearer <token>'");
    }
    Optional<Principal> p = tokens.authenticate(h.substring(7).strip());
    return p.orElseThrow(() -> new ApiException(401, "unknown or revoked token"));
  }

  private JsonNode readBody(Request request, String method) throws IOException {
    if (!method.equals("POST") && !method.equals("PUT")) {
      return null;
    }
    byte[] bytes;
    try (InputStream in = Content.Source.asInputStream(request)) {
      bytes = in.readNBytes(MAX_BODY + 1);
    }
    if (bytes.length > MAX_BODY) {
      throw new ApiException(413, "the request body is larger than " + MAX_BODY + " bytes");
    }
    if (bytes.length == 0) {
      return json.createObjectNode();
    }
    try {
      return json.readTree(bytes);
    } catch (JsonProcessingException e) {
      throw ApiException.badRequest("body", "not valid JSON: " + e.getOriginalMessage());
    }
  }

  private static boolean bool(Fields q, String name) {
    String v = q.getValue(name);
    if (v == null) {
      return false;
    }
    if (!v.equals("true") && !v.equals("false")) {
      throw ApiException.badRequest(name, "must be true or false");
    }
    return Boolean.parseBoolean(v);
  }

  private static long longParam(Fields q, String name, long dflt, long min, long max) {
    String v = q.getValue(name);
    if (v == null) {
      return dflt;
    }
    try {
      long n = Long.parseLong(v);
      if (n < min || n > max) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw ApiException.badRequest(name, "must be an integer in [" + min + ", " + max + "]");
    }
  }

  /** A {@code status} filter: the API's lower-case form, all when absent. */
  private static QueryStatus queryStatus(String v) {
    if (v == null) {
      return null;
    }
    QueryStatus s = Model.fromWire(QueryStatus.class, v);
    if (s == null) {
      throw ApiException.badRequest(
          "status",
          "must be one of " + Arrays.stream(QueryStatus.values()).map(QueryStatus::wire).toList());
    }
    return s;
  }
}
