package io.psiflink.coordinator;

import static io.psiflink.coordinator.CoordinatorApiContract.column;
import static io.psiflink.coordinator.CoordinatorApiContract.dataset;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psiflink.coordinator.Client.Reply;
import io.psiflink.query.MultiJoinQuery;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The approval of n-party joins among three real coordinators (alice, bob, carol) over HTTPS, each
 * with its own database: every party's owner decides, one rejection ends it for all, the session
 * carries every party's pin, every decision is in every log; refusals name their cause, and an
 * organisation cannot speak for another. No jobs run here (GroupJoinLaunchTest in it-tests runs
 * them).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GroupApprovalTest {
  static final String SQL =
      "SELECT p.name, c.amount, o.insurer FROM patients p JOIN claims c ON p.id = c.id"
          + " JOIN policies o ON p.id = o.id WHERE c.kind = 'fire'";

  GroupParties parties;
  Client alice;
  Client bob;
  Client carol;

  @BeforeAll
  void start() throws Exception {
    Path dir = Files.createTempDirectory("psi-group-approval-");
    // carol registers the provider with another certificate than the others: queries naming
    // "olivia-other" are not used; the test of a pin mismatch uses a fourth coordinator below
    parties = new GroupParties(dir, List.of("alice", "bob", "carol"), null, null);
    alice = parties.api("alice");
    bob = parties.api("bob");
    carol = parties.api("carol");
    register(alice, "patients", "name", "age", "never-name");
    register(bob, "claims", "amount", "kind", "never-claims");
    register(carol, "policies", "insurer", "risk", "never-policies");
  }

  @AfterAll
  void stop() throws Exception {
    parties.close();
  }

  /** A dataset with key id, one revealable column, one filter column and a secret. */
  static void register(Client c, String name, String reveal, String filter, String neverName) {
    List<Map<String, Object>> schema =
        List.of(
            column("id", "STRING"),
            column(reveal, reveal.equals("amount") ? "DOUBLE" : "STRING"),
            column(filter, filter.equals("age") ? "INT" : "STRING"),
            column("secret", "STRING"));
    ObjectNode d =
        dataset(
            name, "/data/" + name, "csv", schema, List.of("id"), List.of(reveal), List.of(filter));
    assertEquals(201, c.post("/v1/datasets", d).status());
    ObjectNode never =
        dataset(
            neverName,
            "/data/" + name,
            "csv",
            schema,
            List.of("id"),
            List.of(reveal),
            List.of(filter));
    never.put("revealIntersection", "never");
    assertEquals(201, c.post("/v1/datasets", never).status());
  }

  static ObjectNode submission(String sql, String... partyDataset) {
    ObjectNode b = Client.JSON.createObjectNode();
    b.put("sql", sql);
    ArrayNode ps = b.putArray("parties");
    for (int i = 0; i < partyDataset.length; i += 2) {
      ps.addObject().put("party", partyDataset[i]).put("dataset", partyDataset[i + 1]);
    }
    b.put("provider", GroupParties.PROVIDER);
    return b;
  }

  private String submit() {
    Reply r =
        alice.post(
            "/v1/group-queries",
            submission(SQL, "alice", "patients", "bob", "claims", "carol", "policies"));
    assertEquals(201, r.status(), r.toString());
    return r.json().path("id").asText();
  }

  private static List<JsonNode> audit(Client c, String objectId) {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode e : c.get("/v1/audit").json().path("entries")) {
      if (e.path("objectId").asText().equals(objectId)) {
        out.add(e);
      }
    }
    return out;
  }

  private static List<String> actorsOf(Client c, String objectId, String action) {
    return audit(c, objectId).stream()
        .filter(e -> e.path("action").asText().equals(action))
        .map(e -> e.path("actor").asText())
        .sorted()
        .toList();
  }

  @Test
  void everyPartyApprovesThenEachHoldsTheSessionWithEveryPartysPin() throws Exception {
    String id = submit();
    JsonNode atAlice = alice.get("/v1/group-queries/" + id).json();
    assertEquals("pending", atAlice.path("status").asText());
    assertEquals("P1", atAlice.path("role").asText());
    assertEquals(MultiJoinQuery.parse(SQL).fingerprint(), atAlice.path("fingerprint").asText());
    // the approval shows what each party gives and learns, and the provider
    JsonNode disclosure = atAlice.path("disclosure");
    assertEquals("[\"name\"]", disclosure.path("parties").get(0).path("revealed").toString());
    assertEquals("[\"amount\"]", disclosure.path("parties").get(1).path("revealed").toString());
    assertTrue(
        disclosure.path("parties").get(1).path("where").asText().contains("kind` = 'fire'"),
        disclosure.toString());
    assertEquals(GroupParties.PROVIDER, disclosure.path("provider").path("name").asText());
    assertTrue(disclosure.path("learns").toString().contains("no key, no token, no row"));

    for (Client c : List.of(bob, carol)) {
      JsonNode q = c.get("/v1/group-queries/" + id).json();
      assertEquals("pending", q.path("status").asText(), q.toString());
      assertEquals("incoming", q.path("direction").asText());
      // each sees its own part of the query, from its own registry
      assertEquals(
          c == bob ? "P2" : "P3", q.path("disclosure").path("thisParty").asText(), q.toString());
    }
    Reply b = bob.post("/v1/group-queries/" + id + "/approve", "{\"reason\": \"ok by bob\"}");
    assertEquals(200, b.status(), b.toString());
    assertEquals("pending", b.json().path("status").asText(), "carol has not decided");
    assertEquals("pending", alice.get("/v1/group-queries/" + id).json().path("status").asText());
    Reply again = bob.post("/v1/group-queries/" + id + "/approve", "{}");
    assertEquals(409, again.status(), again.toString());

    Reply c = carol.post("/v1/group-queries/" + id + "/approve", "{}");
    assertEquals(200, c.status(), c.toString());
    // carol's vote completed it: P1 answered with the session
    assertEquals("approved", c.json().path("status").asText(), c.toString());

    JsonNode session = alice.get("/v1/group-queries/" + id).json().path("session");
    String sid = session.path("id").asText();
    assertEquals("created", session.path("status").asText(), "no job section: nothing launched");
    List<String> pins = new ArrayList<>();
    for (JsonNode p : session.path("parties")) {
      pins.add(p.path("fingerprint").asText());
    }
    for (String n : parties.names) {
      assertTrue(
          pins.contains(Tls.fingerprint(parties.dir.resolve("pki/" + n + ".pem"))),
          pins.toString());
    }
    for (Client x : List.of(bob, carol)) {
      JsonNode q = x.get("/v1/group-queries/" + id).json();
      assertEquals("approved", q.path("status").asText(), q.toString());
      assertEquals(sid, q.path("session").path("id").asText());
      assertEquals(session.path("parties"), q.path("session").path("parties"));
      assertEquals(sid, x.get("/v1/group-sessions/" + sid).json().path("id").asText());
    }
    // every party's decision is in every party's log
    assertEquals(List.of("bob", "carol"), actorsOf(alice, id, "query.approved"));
    // (P1's consent is its submission; the others record it as P1 reported it)
    assertEquals(List.of("alice", "bob", "carol"), actorsOf(bob, id, "query.approved"));
    assertEquals(List.of("alice", "bob", "carol"), actorsOf(carol, id, "query.approved"));
    assertEquals(List.of("alice"), actorsOf(alice, id, "query.submitted"));
    for (Client x : List.of(alice, bob, carol)) {
      JsonNode created =
          audit(x, sid).stream()
              .filter(e -> e.path("action").asText().equals("session.created"))
              .findFirst()
              .orElseThrow();
      JsonNode detail = Client.JSON.readTree(created.path("detail").asText());
      assertEquals(3, detail.path("decisions").size(), detail.toString());
      assertEquals(GroupParties.PROVIDER, detail.path("provider").asText());
    }
    // the result exists at P1 only, once its job succeeded
    assertEquals(409, alice.get("/v1/group-sessions/" + sid + "/result").status());
    Reply atBob = bob.get("/v1/group-sessions/" + sid + "/result");
    assertEquals(404, atBob.status(), atBob.toString());
    assertTrue(atBob.error().contains("only P1 (alice)"), atBob.error());
    // a cancel at bob ends its side and reaches P1, which tells carol
    Reply cancel = bob.post("/v1/group-sessions/" + sid + "/cancel", "{}");
    assertEquals("cancelled", cancel.json().path("status").asText(), cancel.toString());
    assertEquals("failed", alice.get("/v1/group-sessions/" + sid).json().path("status").asText());
    JsonNode atCarol = carol.get("/v1/group-sessions/" + sid).json();
    assertEquals("failed", atCarol.path("status").asText(), atCarol.toString());
    assertTrue(atCarol.path("error").asText().contains("alice ended the session: cancelled"));
  }

  @Test
  void oneRejectionEndsItForEveryParty() {
    String id = submit();
    assertEquals(200, bob.post("/v1/group-queries/" + id + "/approve", "{}").status());
    Reply r = carol.post("/v1/group-queries/" + id + "/reject", "{\"reason\": \"not this year\"}");
    assertEquals(200, r.status(), r.toString());
    assertEquals("rejected", r.json().path("status").asText());
    JsonNode atAlice = alice.get("/v1/group-queries/" + id).json();
    assertEquals("rejected", atAlice.path("status").asText());
    assertEquals("carol rejected the query", atAlice.path("statusReason").asText());
    assertTrue(atAlice.path("session").isNull());
    JsonNode atBob = bob.get("/v1/group-queries/" + id).json();
    assertEquals("rejected", atBob.path("status").asText(), atBob.toString());
    // bob hears who ended it, not carol's words
    assertFalse(atBob.toString().contains("not this year"), atBob.toString());
    assertEquals(List.of("carol"), actorsOf(alice, id, "query.rejected"));
    assertEquals(409, bob.post("/v1/group-queries/" + id + "/approve", "{}").status());
  }

  @Test
  void aVoteLostWhileP1WasDownArrivesByItsPoll() throws Exception {
    String id = submit();
    assertEquals(200, bob.post("/v1/group-queries/" + id + "/approve", "{}").status());
    parties.stop("alice");
    try {
      Reply c = carol.post("/v1/group-queries/" + id + "/approve", "{}");
      assertEquals(200, c.status(), c.toString());
      assertEquals("pending", c.json().path("status").asText());
    } finally {
      parties.start("alice");
    }
    alice = parties.api("alice");
    assertEquals("pending", alice.get("/v1/group-queries/" + id).json().path("status").asText());
    parties.sweep(); // alice asks carol, creates the session, tells bob and carol
    JsonNode atAlice = alice.get("/v1/group-queries/" + id).json();
    assertEquals("approved", atAlice.path("status").asText(), atAlice.toString());
    parties.sweep();
    for (Client x : List.of(bob, carol)) {
      assertEquals(
          atAlice.path("session").path("id"),
          x.get("/v1/group-queries/" + id).json().path("session").path("id"));
    }
  }

  @Test
  void refusalsNameTheirCause() {
    // the first party must be the submitter; every other an organisation of it
    Reply r =
        alice.post(
            "/v1/group-queries",
            submission(SQL, "bob", "claims", "alice", "patients", "carol", "policies"));
    assertEquals(400, r.status(), r.toString());
    assertTrue(r.error().contains("must be this party, alice"), r.error());
    r =
        alice.post(
            "/v1/group-queries",
            submission(SQL, "alice", "patients", "bob", "claims", "mallory", "policies"));
    assertEquals(400, r.status(), r.toString());
    assertTrue(r.error().contains("mallory is not an organisation of alice"), r.error());
    // as many parties as tables
    r = alice.post("/v1/group-queries", submission(SQL, "alice", "patients", "bob", "claims"));
    assertEquals(400, r.status(), r.toString());
    // no star: each owner approves exactly the columns its job sends
    r =
        alice.post(
            "/v1/group-queries",
            submission(
                SQL.replace("p.name, c.amount, o.insurer", "p.name, c.*, o.insurer"),
                "alice",
                "patients",
                "bob",
                "claims",
                "carol",
                "policies"));
    assertEquals(422, r.status(), r.toString());
    assertTrue(r.error().contains("no * or t.*"), r.error());
    // a column its owner does not let be revealed, named with its table and dataset
    r =
        alice.post(
            "/v1/group-queries",
            submission(
                SQL.replace("p.name", "p.secret"),
                "alice",
                "patients",
                "bob",
                "claims",
                "carol",
                "policies"));
    assertEquals(422, r.status(), r.toString());
    assertTrue(
        r.error().contains("column p.secret of dataset patients may not be revealed"), r.error());
    // carol's unpublished column does not exist for alice
    r =
        alice.post(
            "/v1/group-queries",
            submission(
                SQL.replace("o.insurer", "o.secret"),
                "alice",
                "patients",
                "bob",
                "claims",
                "carol",
                "policies"));
    assertEquals(422, r.status(), r.toString());
    assertTrue(r.error().contains("has no column secret"), r.error());
    // a dataset whose owner must never learn an intersection, at P1 and at another party
    r =
        alice.post(
            "/v1/group-queries",
            submission(SQL, "alice", "never-name", "bob", "claims", "carol", "policies"));
    assertEquals(422, r.status(), r.toString());
    assertTrue(r.error().contains("revealIntersection: never"), r.error());
    r =
        alice.post(
            "/v1/group-queries",
            submission(SQL, "alice", "patients", "bob", "claims", "carol", "never-policies"));
    assertEquals(422, r.status(), r.toString());
    assertTrue(r.error().contains("never-policies (carol's)"), r.error());
    // an unregistered provider
    ObjectNode s = submission(SQL, "alice", "patients", "bob", "claims", "carol", "policies");
    s.put("provider", "mallory");
    r = alice.post("/v1/group-queries", s);
    assertEquals(400, r.status(), r.toString());
    assertTrue(r.error().contains("provider mallory is not registered at alice"), r.error());
  }

  @Test
  void aProviderAnotherPartyPinsDifferentlyIsRefusedThereAndTheQueryWithIt() throws Exception {
    Path dir = Files.createTempDirectory("psi-group-pin-");
    try (GroupParties other =
        new GroupParties(
            dir,
            List.of("dora", "erin", "fay"),
            null,
            n -> n.equals("fay") ? "cd".repeat(32) : null)) {
      register(other.api("dora"), "patients", "name", "age", "n1");
      register(other.api("erin"), "claims", "amount", "kind", "n2");
      register(other.api("fay"), "policies", "insurer", "risk", "n3");
      Reply r =
          other
              .api("dora")
              .post(
                  "/v1/group-queries",
                  submission(SQL, "dora", "patients", "erin", "claims", "fay", "policies"));
      assertEquals(422, r.status(), r.toString());
      assertTrue(r.error().contains("fay's coordinator refused the query"), r.error());
      assertTrue(r.error().contains("another certificate pin"), r.error());
      String id = r.json().path("id").asText();
      assertEquals(
          "refused",
          other.api("dora").get("/v1/group-queries/" + id).json().path("status").asText());
      // erin had received it before fay refused: dora told it
      JsonNode atErin = other.api("erin").get("/v1/group-queries/" + id).json();
      assertEquals("refused", atErin.path("status").asText(), atErin.toString());
    }
  }

  @Test
  void anOrganisationSpeaksOnlyForItself() throws Exception {
    String id = submit();
    // carol's coordinator may not use the two-party peer API at alice (bob is alice's peer)
    Reply r = parties.peerApi("alice", "carol").get("/v1/peer/queries/" + UUID.randomUUID());
    assertEquals(403, r.status(), r.toString());
    // bob's coordinator may not tell carol an outcome: only P1 may
    ObjectNode outcome = Client.JSON.createObjectNode().put("status", "rejected");
    r = parties.peerApi("carol", "bob").post("/v1/peer/group-queries/" + id + "/outcome", outcome);
    assertEquals(404, r.status(), r.toString());
    assertEquals("pending", carol.get("/v1/group-queries/" + id).json().path("status").asText());
    // a vote from bob's coordinator is bob's: the token's label says who votes
    ObjectNode vote = Client.JSON.createObjectNode().put("decision", "approved");
    vote.put("fingerprint", "ab".repeat(32));
    r = parties.peerApi("alice", "bob").post("/v1/peer/group-queries/" + id + "/decision", vote);
    assertEquals(200, r.status(), r.toString());
    JsonNode atAlice = alice.get("/v1/group-queries/" + id).json();
    List<String> voters = new ArrayList<>();
    atAlice.path("decisions").forEach(d -> voters.add(d.path("party").asText()));
    assertEquals(List.of("alice", "bob"), voters.stream().sorted().toList());
    // a session P1 sends must carry this party's own pin
    ObjectNode forged = Client.JSON.createObjectNode().put("status", "approved");
    forged.set("decisions", Client.JSON.createArrayNode());
    ObjectNode session = forged.putObject("session");
    session.put("id", UUID.randomUUID().toString());
    session.put("queryId", id);
    session.put("endpoint", atAlice.path("requesterEndpoint").asText());
    ArrayNode ps = session.putArray("parties");
    for (JsonNode p : atAlice.path("parties")) {
      ps.addObject()
          .put("party", p.path("party").asText())
          .put("dataset", p.path("dataset").asText())
          .put(
              "fingerprint",
              p.path("fingerprint").isTextual() ? p.path("fingerprint").asText() : "ef".repeat(32));
    }
    r = parties.peerApi("carol", "alice").post("/v1/peer/group-queries/" + id + "/outcome", forged);
    assertEquals(400, r.status(), r.toString());
    assertTrue(r.error().contains("does not match"), r.error());
    assertEquals("pending", carol.get("/v1/group-queries/" + id).json().path("status").asText());
    assertEquals(200, carol.post("/v1/group-queries/" + id + "/reject", "{}").status());
  }
}
