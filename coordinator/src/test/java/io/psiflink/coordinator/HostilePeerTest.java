package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.psiflink.bridge.ThrowawayPki;
import io.psiflink.coordinator.Client.Reply;
import io.psiflink.coordinator.Tokens.Kind;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Alice's real coordinator (with a job section, so that sessions name directories) against a
 * hostile peer: a real HTTPS server holding bob's certificate that answers with ids of its choosing
 * ({@code ../../x}, {@code /tmp/x}, {@code hdfs://elsewhere/x}, ...), in decision callbacks, poll
 * answers, offers and URL paths. Alice refuses each with a 400 naming the field, audits it, and
 * nothing is written outside her work and output directories; what she sends the peer when a job
 * fails is a category, never her error text.
 */
class HostilePeerTest {
  static final List<String> HOSTILE =
      List.of(
          "../../x",
          "/tmp/psi-hostile-" + UUID.randomUUID(),
          "hdfs://elsewhere/x",
          "..",
          ".",
          "a/../../x",
          "x/y",
          "..\\x",
          "",
          UUID.randomUUID().toString().toUpperCase(java.util.Locale.ROOT),
          "%2e%2e",
          UUID.randomUUID() + "/../x");

  @TempDir Path dir;
  Path home;
  ThrowawayPki pki;
  HttpsServer hostile;
  CoordinatorServer alice;
  Client api;
  Client peerAtAlice;

  /** What the hostile peer answers to polls of a query (GET /v1/peer/queries/{id}). */
  volatile ObjectNode pollAnswer;

  final List<String> offers = new CopyOnWriteArrayList<>();
  final List<String> aborts = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    pki = ThrowawayPki.create(dir.resolve("pki"), "alice", "bob");
    Path pkiDir = dir.resolve("pki");
    hostile = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    hostile.setHttpsConfigurator(
        new HttpsConfigurator(
            Tls.context(
                pkiDir.resolve("bob.pem"), pkiDir.resolve("bob.key"), pki.caCertificate())));
    hostile.createContext("/", this::peer);
    hostile.start();

    home = dir.resolve("alice");
    Files.createDirectories(home);
    String partyToken = Tokens.newToken();
    String inbound = Tokens.newToken();
    Files.write(
        home.resolve("tokens"),
        List.of(
            Tokens.line(partyToken, Kind.PARTY, "alice-analyst"),
            Tokens.line(inbound, Kind.PEER, "bob-coordinator")));
    Files.writeString(home.resolve("peer-token"), Tokens.newToken() + "\n");
    // flink-run with no Flink installed: a launch gets as far as the work directory, then fails
    CoordinatorConfig.Job job =
        new CoordinatorConfig.Job(
            JobMode.FLINK_RUN,
            null,
            1,
            home.resolve("work"),
            pkiDir.resolve("alice.pem"),
            pkiDir.resolve("alice.key"),
            pki.caCertificate(),
            dir.resolve("no-flink"),
            dir.resolve("no.jar"),
            null,
            null,
            1,
            Duration.ofSeconds(5),
            Duration.ofSeconds(5),
            null);
    CoordinatorConfig config =
        new CoordinatorConfig(
            "alice",
            new CoordinatorConfig.Listen("127.0.0.1", Parties.freePort()),
            new CoordinatorConfig.Tls(
                pkiDir.resolve("alice.pem"), pkiDir.resolve("alice.key"), pki.caCertificate()),
            new CoordinatorConfig.Database("jdbc:sqlite:" + dir.resolve("alice.db"), null, null),
            home.resolve("tokens"),
            new CoordinatorConfig.Peer(
                "bob",
                "https://localhost:" + hostile.getAddress().getPort(),
                home.resolve("peer-token")),
            new CoordinatorConfig.Bridge("alice.example:7443", pkiDir.resolve("alice.pem")),
            Duration.ofHours(1),
            Duration.ofHours(1),
            new CoordinatorConfig.Defaults(null, "kkrt", null),
            List.of("kkrt", "ecdh", "rr22"),
            job,
            new CoordinatorConfig.Output(
                home.resolve("results").toString(), io.psiflink.api.OutputFormat.AVRO),
            null);
    alice = CoordinatorServer.start(config);
    var trust =
        Tls.context(pkiDir.resolve("alice.pem"), pkiDir.resolve("alice.key"), pki.caCertificate());
    api = new Client(trust, "https://localhost:" + alice.port(), "Bearer " + partyToken);
    peerAtAlice = api.withAuthorization("Bearer " + inbound);
    Reply r = api.post("/v1/datasets", CoordinatorApiContract.purchases("purchases"));
    assertEquals(201, r.status(), r.toString());
  }

  @AfterEach
  void stop() throws Exception {
    if (alice != null) {
      alice.close();
    }
    hostile.stop(0);
  }

  /** The hostile peer coordinator's API. */
  private void peer(HttpExchange ex) throws IOException {
    String path = ex.getRequestURI().getRawPath();
    String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    Object answer;
    int status = 200;
    if (path.equals("/v1/peer/datasets/customers")) {
      answer =
          Map.of(
              "party",
              "bob",
              "name",
              "customers",
              "columns",
              List.of(
                  Map.of(
                      "name",
                      "card",
                      "type",
                      "STRING",
                      "nullable",
                      true,
                      "key",
                      true,
                      "reveal",
                      false,
                      "filter",
                      false),
                  Map.of(
                      "name",
                      "email",
                      "type",
                      "STRING",
                      "nullable",
                      true,
                      "key",
                      false,
                      "reveal",
                      true,
                      "filter",
                      false)));
    } else if (path.equals("/v1/peer/datasets/broken")) {
      status = 500;
      answer = Map.of("error", "internal");
    } else if (path.equals("/v1/peer/queries")) {
      offers.add(body);
      status = 201;
      answer = Map.of("status", "pending");
    } else if (path.startsWith("/v1/peer/queries/")) {
      answer = pollAnswer == null ? Map.of("status", "pending") : pollAnswer;
    } else if (path.startsWith("/v1/peer/sessions/") && path.endsWith("/abort")) {
      aborts.add(body);
      answer = Map.of("status", "failed");
    } else if (path.startsWith("/v1/peer/sessions/") && path.endsWith("/start")) {
      // party A's coordinator starts B's job first: this peer's starts at once
      answer = Map.of("status", "running");
    } else {
      status = 404;
      answer = Map.of("error", "no such endpoint");
    }
    byte[] out = Client.JSON.writeValueAsBytes(answer);
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(status, out.length);
    ex.getResponseBody().write(out);
    ex.close();
  }

  private String submit() {
    ObjectNode q = Client.JSON.createObjectNode();
    q.put("localDataset", "purchases");
    q.put("peerDataset", "customers");
    q.put("sql", "SELECT b.email, a.spend FROM a JOIN b ON a.card = b.card");
    Reply r = api.post("/v1/queries", q);
    assertEquals(201, r.status(), r.toString());
    return r.json().path("id").asText();
  }

  private static ObjectNode session(String id, String queryId) {
    ObjectNode s = Client.JSON.createObjectNode();
    s.put("id", id);
    s.put("queryId", queryId);
    s.put("partyA", "alice");
    s.put("partyB", "bob");
    s.put("bins", 0);
    s.put("sigma", 40);
    s.put("protocol", "kkrt");
    s.put("mode", "both");
    s.putObject("prefiltering").put("prefilter", "none");
    s.put("aEndpoint", "alice.example:7443");
    s.put("aFingerprint", "");
    s.put("bEndpoint", "bob.example:7443");
    s.put("bFingerprint", "ab".repeat(32));
    s.put("status", "created");
    s.put("createdAt", System.currentTimeMillis());
    return s;
  }

  private ObjectNode decision(ObjectNode session) {
    ObjectNode d = Client.JSON.createObjectNode();
    d.put("decision", "approved");
    d.set("session", session);
    return d;
  }

  /** Everything under dir except the PKI, the database and alice's config files. */
  private List<Path> written() throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> !p.startsWith(dir.resolve("pki")))
          .filter(p -> !p.getFileName().toString().startsWith("alice.db"))
          .filter(
              p ->
                  !p.equals(dir)
                      && !p.equals(home)
                      && !p.equals(home.resolve("tokens"))
                      && !p.equals(home.resolve("peer-token")))
          .toList();
    }
  }

  private List<String> audit(String action) {
    Reply r = api.get("/v1/audit");
    List<String> out = new ArrayList<>();
    for (JsonNode e : r.json().path("entries")) {
      if (e.path("action").asText().equals(action)) {
        out.add(e.path("detail").asText());
      }
    }
    return out;
  }

  @Test
  void hostileSessionIdsInADecisionAreRefusedAndWriteNothing() throws Exception {
    String q = submit();
    String aliceFp = Tls.fingerprint(dir.resolve("pki/alice.pem"));
    for (String id : HOSTILE) {
      ObjectNode s = session(id, q);
      s.put("aFingerprint", aliceFp);
      Reply r = peerAtAlice.post("/v1/peer/queries/" + q + "/decision", decision(s));
      assertEquals(400, r.status(), id + ": " + r);
      assertTrue(r.error().contains("session.id"), r.error());
    }
    // a query id in the session that is not the query's own is refused too
    ObjectNode s = session(UUID.randomUUID().toString(), "../" + q);
    s.put("aFingerprint", aliceFp);
    assertEquals(
        400, peerAtAlice.post("/v1/peer/queries/" + q + "/decision", decision(s)).status());
    assertEquals("pending", api.get("/v1/queries/" + q).json().path("status").asText());
    assertEquals(List.of(), written(), "nothing written for a refused session");
    assertFalse(Files.exists(Path.of(HOSTILE.get(1))));
    assertTrue(audit("peer.refused").size() >= HOSTILE.size(), audit("peer.refused").toString());
    assertTrue(api.get("/v1/sessions").json().path("sessions").isEmpty());
  }

  @Test
  void aSessionWhoseModeIsUnknownMissingOrNotTheSubmittedOneIsRefused() throws Exception {
    ObjectNode labeled = Client.JSON.createObjectNode();
    labeled.put("localDataset", "purchases");
    labeled.put("peerDataset", "customers");
    labeled.put("sql", "SELECT b.email, a.spend FROM a JOIN b ON a.card = b.card");
    labeled.put("mode", "labeled");
    labeled.put("protocol", "rr22");
    labeled.put("labelBytes", 256);
    Reply submitted = api.post("/v1/queries", labeled);
    assertEquals(201, submitted.status(), submitted.toString());
    String q = submitted.json().path("id").asText();
    // the offer bob received says labeled, with its label size
    JsonNode offer = Client.JSON.readTree(offers.get(offers.size() - 1));
    assertEquals("labeled", offer.path("mode").asText(), offer.toString());
    assertEquals(256, offer.path("labelBytes").asInt(), offer.toString());
    String aliceFp = Tls.fingerprint(dir.resolve("pki/alice.pem"));

    ObjectNode s = session(UUID.randomUUID().toString(), q);
    s.put("aFingerprint", aliceFp);
    s.put("protocol", "rr22");
    s.put("mode", "nobody");
    Reply r = peerAtAlice.post("/v1/peer/queries/" + q + "/decision", decision(s));
    assertEquals(400, r.status(), r.toString());
    assertTrue(
        r.error().contains("session") && r.error().contains("must be both or labeled"), r.error());
    s.remove("mode");
    r = peerAtAlice.post("/v1/peer/queries/" + q + "/decision", decision(s));
    assertEquals(400, r.status(), r.toString());
    assertTrue(r.error().contains("session.mode"), r.error());
    // well-formed, but not what alice submitted: her job would run another mode than she offered
    s.put("mode", "both");
    r = peerAtAlice.post("/v1/peer/queries/" + q + "/decision", decision(s));
    assertEquals(400, r.status(), r.toString());
    assertTrue(r.error().contains("does not match the submitted query"), r.error());
    s.put("mode", "labeled");
    s.put("labelBytes", 64);
    r = peerAtAlice.post("/v1/peer/queries/" + q + "/decision", decision(s));
    assertEquals(400, r.status(), r.toString());
    assertTrue(r.error().contains("does not match the submitted query"), r.error());
    // the same through the sweeper's poll: nothing is stored
    ObjectNode answer = Client.JSON.createObjectNode();
    answer.put("status", "approved");
    s.remove("mode");
    answer.set("session", s);
    pollAnswer = answer;
    alice.sweepNow();
    assertTrue(audit("peer.refused").stream().anyMatch(d -> d.contains("session.mode")));
    assertEquals("pending", api.get("/v1/queries/" + q).json().path("status").asText());
    assertTrue(api.get("/v1/sessions").json().path("sessions").isEmpty());
    // the session alice offered is accepted
    s.put("mode", "labeled");
    s.put("labelBytes", 256);
    r = peerAtAlice.post("/v1/peer/queries/" + q + "/decision", decision(s));
    assertEquals(200, r.status(), r.toString());
    JsonNode stored = api.get("/v1/sessions/" + s.get("id").asText()).json();
    assertEquals("labeled", stored.path("mode").asText(), stored.toString());
    assertEquals(256, stored.path("labelBytes").asInt(), stored.toString());
  }

  @Test
  void hostileSessionIdsInAPollAnswerAreRefusedAndWriteNothing() throws Exception {
    String q = submit();
    String aliceFp = Tls.fingerprint(dir.resolve("pki/alice.pem"));
    for (String id : HOSTILE) {
      ObjectNode s = session(id, q);
      s.put("aFingerprint", aliceFp);
      ObjectNode answer = Client.JSON.createObjectNode();
      answer.put("status", "approved");
      answer.set("session", s);
      pollAnswer = answer;
      alice.sweepNow();
      assertEquals("pending", api.get("/v1/queries/" + q).json().path("status").asText(), id);
    }
    assertEquals(List.of(), written());
    assertFalse(Files.exists(Path.of(HOSTILE.get(1))));
    assertTrue(audit("peer.refused").stream().anyMatch(d -> d.contains("session.id")));
    assertTrue(api.get("/v1/sessions").json().path("sessions").isEmpty());
  }

  @Test
  void hostileIdsInOffersAndUrlPathsAreRefused() throws Exception {
    for (String id : HOSTILE) {
      ObjectNode offer = Client.JSON.createObjectNode();
      offer.put("id", id);
      offer.put("requester", "bob");
      Reply r = peerAtAlice.post("/v1/peer/queries", offer);
      assertEquals(400, r.status(), id + ": " + r);
      assertTrue(r.error().startsWith("id"), r.error());
    }
    for (String id :
        List.of(
            "..%2F..%2Fx",
            "%2Ftmp%2Fx",
            "not-a-uuid",
            "hdfs:x",
            UUID.randomUUID().toString().toUpperCase(java.util.Locale.ROOT))) {
      for (Reply r :
          List.of(
              peerAtAlice.get("/v1/peer/queries/" + id),
              peerAtAlice.post(
                  "/v1/peer/queries/" + id + "/decision", "{\"decision\":\"rejected\"}"),
              peerAtAlice.post(
                  "/v1/peer/sessions/" + id + "/abort", "{\"category\":\"internal\"}"))) {
        assertEquals(400, r.status(), id + ": " + r);
      }
    }
    assertEquals(List.of(), written());
  }

  @Test
  void aValidSessionRunsUnderTheBaseAndAFailedJobTellsThePeerOnlyACategory() throws Exception {
    String q = submit();
    String sid = UUID.randomUUID().toString();
    ObjectNode s = session(sid, q);
    s.put("aFingerprint", Tls.fingerprint(dir.resolve("pki/alice.pem")));
    Reply r = peerAtAlice.post("/v1/peer/queries/" + q + "/decision", decision(s));
    assertEquals(200, r.status(), r.toString());
    // the answer to the peer carries the session's public parameters, nothing of alice's job
    assertTrue(r.json().path("output").isNull(), r.toString());
    assertTrue(r.json().path("session").path("error").isNull(), r.toString());
    JsonNode local = api.get("/v1/sessions/" + sid).json();
    assertEquals("failed", local.path("status").asText(), local.toString());
    String error = local.path("error").asText();
    assertTrue(error.contains("no-flink"), "the local error keeps the cause: " + error);
    assertTrue(Files.isDirectory(home.resolve("work").resolve(sid)));
    for (Path p : written()) {
      assertTrue(p.startsWith(home.resolve("work")), p + " outside the work directory");
    }
    assertEquals(1, aborts.size(), aborts.toString());
    assertEquals(
        Client.JSON.readTree("{\"category\":\"internal\"}"), Client.JSON.readTree(aborts.get(0)));
    // and what the peer can poll has no trace of the error
    Reply view = peerAtAlice.get("/v1/peer/queries/" + q);
    assertEquals(200, view.status(), view.toString());
    assertFalse(view.raw().contains("no-flink"), view.raw());
    assertFalse(view.raw().contains(dir.toString()), view.raw());
    assertNotNull(offers.get(0));
  }

  @Test
  void anOfferWhoseDatasetCannotBeFetchedIsRefusedWithoutOurDetails() throws Exception {
    ObjectNode offer =
        CoordinatorApiContract.offer(
            "bob",
            "B",
            "broken",
            "purchases",
            "SELECT b.email, a.spend FROM a JOIN b ON a.card = b.card");
    Reply r = peerAtAlice.post("/v1/peer/queries", offer);
    assertEquals(502, r.status(), r.toString());
    assertEquals("cannot fetch the requester's dataset broken", r.error());
    assertFalse(r.raw().contains(Integer.toString(hostile.getAddress().getPort())), r.raw());
  }

  @Test
  void aPeersAbortCarriesOnlyAKnownCategory() throws Exception {
    String q = submit();
    String sid = UUID.randomUUID().toString();
    ObjectNode s = session(sid, q);
    s.put("aFingerprint", Tls.fingerprint(dir.resolve("pki/alice.pem")));
    assertEquals(
        200, peerAtAlice.post("/v1/peer/queries/" + q + "/decision", decision(s)).status());
    String abort = "/v1/peer/sessions/" + sid + "/abort";
    Reply r = peerAtAlice.post(abort, "{\"category\":\"overflow in bin 3 of 10.0.0.7:22\"}");
    assertEquals(400, r.status(), r.toString());
    assertTrue(r.error().contains("category"), r.error());
    r = peerAtAlice.post(abort, "{\"reason\":\"free text\"}");
    assertEquals(400, r.status(), r.toString());
    r = peerAtAlice.post(abort, "{\"category\":\"timeout\",\"reason\":\"free text\"}");
    assertEquals(400, r.status(), r.toString());
    r = peerAtAlice.post(abort, "{\"category\":\"timeout\"}");
    assertEquals(200, r.status(), r.toString());
  }
}
