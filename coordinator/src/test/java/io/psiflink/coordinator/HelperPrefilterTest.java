package io.psiflink.coordinator;

import static io.psiflink.coordinator.CoordinatorApiContract.customers;
import static io.psiflink.coordinator.CoordinatorApiContract.offer;
import static io.psiflink.coordinator.CoordinatorApiContract.purchases;
import static io.psiflink.coordinator.CoordinatorApiContract.refused;
import static io.psiflink.coordinator.CoordinatorApiContract.register;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psiflink.api.PartyConfiguration;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.Prefilter;
import io.psiflink.api.Role;
import io.psiflink.coordinator.Client.Reply;
import io.psiflink.coordinator.CoordinatorConfig.Helper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A query pre-filtered by a helper (the server-aided sample filter) between two real coordinators
 * (alice and bob, SQLite): the helper registries, the checks of both sides, what the approval
 * shows, and the command lines both coordinators launch their jobs with. The jobs are a stand-in
 * {@code flink} (job.mode flink-run) that records its arguments: running the jobs with a helper is
 * flink-jobs' test.
 *
 * <p>Registries: carol at both with the same pin (each with its own description), dave at both with
 * different pins, erin only at alice.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HelperPrefilterTest {
  static final String CAROL = "c0".repeat(32);
  static final String DAVE_AT_ALICE = "d1".repeat(32);
  static final String DAVE_AT_BOB = "d2".repeat(32);
  static final String ERIN = "e0".repeat(32);

  static final String SQL =
      "SELECT b.email, a.spend FROM a JOIN b ON a.card = b.card WHERE a.spend > 23";

  Path dir;
  Parties parties;
  Client alice;
  Client bob;

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory("psi-helper-test-");
    parties =
        new Parties(
            dir,
            party -> "jdbc:sqlite:" + dir.resolve(party + ".db"),
            Duration.ofHours(1),
            Duration.ofHours(1),
            party -> recordingJob(party),
            party ->
                party.equals("alice")
                    ? List.of(
                        new Helper("carol", CAROL.toUpperCase(), "Carol Ltd, contract 7 (alice)"),
                        new Helper("dave", DAVE_AT_ALICE, null),
                        new Helper("erin", ERIN, "only alice knows erin"))
                    : List.of(
                        new Helper("carol", CAROL, "Carol Ltd, audited 2026 (bob)"),
                        new Helper("dave", DAVE_AT_BOB, "dave")));
    alice = parties.aliceApi();
    bob = parties.bobApi();
    register(alice, purchases("purchases"));
    register(bob, customers("customers"));
    ObjectNode never = customers("private_customers");
    never.put("revealIntersection", "never");
    register(bob, never);
  }

  @AfterAll
  void stop() throws Exception {
    if (parties != null) {
      parties.close();
    }
  }

  /**
   * A flink-run job section whose {@code flink} records its arguments (NUL-separated) in {@code
   * flink-PARTY/args} and then sleeps (the launcher stops it when the coordinator closes).
   */
  CoordinatorConfig.Job recordingJob(String party) {
    try {
      Path home = dir.resolve("flink-" + party);
      Files.createDirectories(home.resolve("bin"));
      Path flink = home.resolve("bin/flink");
      Files.writeString(
          flink,
          "#!/bin/sh\nprintf '%s\\0' \"$@\" > \""
              + home.resolve("args.tmp")
              + "\"\n"
              + "mv \""
              + home.resolve("args.tmp")
              + "\" \""
              + home.resolve("args")
              + "\"\n"
              // keeps "running": a job that ended at once could fail the session at the peer
              // before the peer launched its own (the race this test is not about)
              + "exec sleep 300\n");
      Files.setPosixFilePermissions(flink, PosixFilePermissions.fromString("rwxr-xr-x"));
      return new CoordinatorConfig.Job(
          JobMode.FLINK_RUN,
          null,
          1,
          null,
          null,
          Path.of("unused.key"),
          Path.of("unused-ca.pem"),
          home,
          home.resolve("psi-flink-job.jar"),
          null,
          null,
          1,
          Duration.ofSeconds(5),
          Duration.ofSeconds(5));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The job options {@code party}'s coordinator launched its job with, read by the job's parser.
   */
  PartyConfiguration launched(String party) throws Exception {
    Path args = dir.resolve("flink-" + party).resolve("args");
    for (int i = 0; i < 2400 && !Files.exists(args); i++) { // 2 minutes: CI machines are slow
      Thread.sleep(50);
    }
    assertTrue(Files.exists(args), party + "'s job was not launched");
    List<String> all =
        Arrays.asList(Files.readString(args, StandardCharsets.UTF_8).split("\0", -1));
    all = all.subList(0, all.size() - 1); // the last NUL ends the last argument
    Files.delete(args);
    // run -c io.psiflink.jobs.PartyMain JAR, then the job's options
    assertEquals(List.of("run", "-c", "io.psiflink.jobs.PartyMain"), all.subList(0, 3));
    return PartyConfiguration.parse(all.subList(4, all.size()));
  }

  ObjectNode query(String helper) {
    ObjectNode q = Client.JSON.createObjectNode();
    q.put("localDataset", "purchases");
    q.put("peerDataset", "customers");
    q.put("sql", SQL);
    q.put("prefilter", "helper");
    q.put("helper", helper);
    return q;
  }

  int atBob() {
    return bob.get("/v1/queries").json().path("queries").size();
  }

  static JsonNode auditDetail(Client c, String action, String id) throws Exception {
    for (JsonNode e : c.get("/v1/audit").json().path("entries")) {
      if (e.path("action").asText().equals(action) && e.path("objectId").asText().equals(id)) {
        return Client.JSON.readTree(e.path("detail").asText());
      }
    }
    throw new AssertionError("no " + action + " of " + id);
  }

  @Test
  void aPrefilteredQueryShowsTheHelperAtBothPartiesAndBothJobsRunWithIt() throws Exception {
    ObjectNode q = query("carol");
    q.put("filterBits", 20);
    q.put("filterHashes", 3);
    Reply submitted = alice.post("/v1/queries", q);
    assertEquals(201, submitted.status(), submitted.toString());
    String id = submitted.json().path("id").asText();

    Map<Client, String> descriptions =
        Map.of(alice, "Carol Ltd, contract 7 (alice)", bob, "Carol Ltd, audited 2026 (bob)");
    for (Client c : List.of(alice, bob)) {
      JsonNode view = c.get("/v1/queries/" + id).json();
      JsonNode p = view.path("prefiltering");
      assertEquals("helper", p.path("prefilter").asText(), view.toString());
      assertEquals("carol", p.path("helper").asText());
      assertEquals(CAROL, p.path("helperCertSha256").asText()); // alice's, lower-cased
      assertEquals(20, p.path("filterBits").asInt());
      assertEquals(3, p.path("filterHashes").asInt());
      // the approval names the helper as each party registered it, and the extra leakage
      JsonNode d = view.path("disclosure");
      JsonNode h = d.path("helper");
      assertEquals("carol", h.path("name").asText(), d.toString());
      assertEquals(descriptions.get(c), h.path("description").asText());
      assertEquals(CAROL, h.path("certSha256").asText());
      assertEquals(20, h.path("filterBits").asInt());
      assertEquals(3, h.path("filterHashes").asInt());
      for (String fragment :
          List.of(
              "Pre-filter by helper carol (server-aided sample filtering).",
              "the other's candidate count (rounded by its public-size policy) instead of its"
                  + " table size",
              "whether the other party's filter has it set too",
              "The helper receives no data",
              "can make the join miss matches (never add wrong ones)")) {
        assertTrue(h.path("text").asText().contains(fragment), h.toString());
        assertTrue(d.path("summary").asText().contains(fragment), d.toString());
      }
      assertTrue(
          d.path("summary")
              .asText()
              .startsWith("A inner join on a.card = b.card, pre-filtered by helper carol. Mode"),
          d.toString());
      for (String t : List.of("peerLearnsAboutMine", "iLearnAboutPeer")) {
        assertTrue(d.path(t).path("text").asText().contains("its candidate count"), d.toString());
      }
    }
    JsonNode received = auditDetail(bob, "query.received", id);
    assertEquals("carol", received.path("helper").asText(), received.toString());
    assertEquals(CAROL, received.path("helperCertSha256").asText());

    Reply approved = bob.post("/v1/queries/" + id + "/approve", "{}");
    assertEquals(200, approved.status(), approved.toString());
    JsonNode session = approved.json().path("session");
    assertEquals(
        Client.JSON.readTree(
            "{\"prefilter\":\"helper\",\"helper\":\"carol\",\"helperCertSha256\":\""
                + CAROL
                + "\",\"filterBits\":20,\"filterHashes\":3,\"expectedOverlapPpm\":1000000}"),
        session.path("prefiltering"),
        session.toString());
    String sid = session.path("id").asText();
    assertEquals(
        session.path("prefiltering"), alice.get("/v1/sessions/" + sid).json().path("prefiltering"));
    assertEquals("carol", auditDetail(alice, "session.created", sid).path("helper").asText());

    // both coordinators launched their party's job with the helper, its pin and the filter
    for (String party : List.of("alice", "bob")) {
      PartyConfiguration c = launched(party);
      assertEquals(party.equals("alice") ? Role.A : Role.B, c.role());
      assertEquals(sid, c.get(PartyOptions.SESSION));
      assertEquals(Prefilter.HELPER, c.get(PartyOptions.PREFILTER), party);
      assertEquals("carol", c.get(PartyOptions.HELPER), party);
      assertEquals(CAROL, c.get(PartyOptions.HELPER_CERT_SHA256), party);
      assertEquals(20, c.get(PartyOptions.FILTER_BITS), party);
      assertEquals(3, c.get(PartyOptions.FILTER_HASHES), party);
    }
  }

  /**
   * prefilter auto: approved and launched as helper is (the helper may be used), the approval
   * saying that the jobs decide and what overlap they assume, and both jobs told auto with it; an
   * expected overlap without auto, or out of [0, 1], is refused naming the field.
   */
  @Test
  void anAutoPrefilterShowsTheHelperAsMaybeAndTheJobsDecide() throws Exception {
    ObjectNode wrong = query("carol");
    wrong.put("expectedOverlap", 0.05);
    refused(400, alice.post("/v1/queries", wrong), "expectedOverlap", "option of prefilter auto");
    wrong.put("prefilter", "auto");
    wrong.put("expectedOverlap", 1.5);
    refused(400, alice.post("/v1/queries", wrong), "expectedOverlap", "a number in [0, 1]");

    ObjectNode q = query("carol");
    q.put("prefilter", "auto");
    q.put("expectedOverlap", 0.05);
    Reply submitted = alice.post("/v1/queries", q);
    assertEquals(201, submitted.status(), submitted.toString());
    String id = submitted.json().path("id").asText();
    for (Client c : List.of(alice, bob)) {
      JsonNode view = c.get("/v1/queries/" + id).json();
      assertEquals("auto", view.path("prefiltering").path("prefilter").asText(), view.toString());
      assertEquals(50_000, view.path("prefiltering").path("expectedOverlapPpm").asInt());
      JsonNode d = view.path("disclosure");
      assertTrue(
          d.path("helper")
              .path("text")
              .asText()
              .startsWith("If the jobs' cost model expects it to save time (prefilter auto"),
          d.toString());
      assertTrue(
          d.path("helper")
              .path("text")
              .asText()
              .contains("assuming 5 % of the smaller table's keys are common): Pre-filter by"),
          d.toString());
      assertTrue(
          d.path("summary").asText().contains("pre-filtered by helper carol if that saves time."),
          d.toString());
    }
    Reply approved = bob.post("/v1/queries/" + id + "/approve", "{}");
    assertEquals(200, approved.status(), approved.toString());
    JsonNode sp = approved.json().path("session").path("prefiltering");
    assertEquals("auto", sp.path("prefilter").asText(), sp.toString());
    assertEquals(50_000, sp.path("expectedOverlapPpm").asInt(), sp.toString());
    for (String party : List.of("alice", "bob")) {
      PartyConfiguration c = launched(party);
      assertEquals(Prefilter.AUTO, c.get(PartyOptions.PREFILTER), party);
      assertEquals(0.05, c.get(PartyOptions.EXPECTED_OVERLAP), party);
      assertEquals("carol", c.get(PartyOptions.HELPER), party);
      assertEquals(CAROL, c.get(PartyOptions.HELPER_CERT_SHA256), party);
    }
  }

  @Test
  void withoutAPrefilterTheJobsAreToldNone() throws Exception {
    ObjectNode q = Client.JSON.createObjectNode();
    q.put("localDataset", "purchases");
    q.put("peerDataset", "customers");
    q.put("sql", SQL);
    Reply r = alice.post("/v1/queries", q);
    assertEquals(201, r.status(), r.toString());
    String id = r.json().path("id").asText();
    JsonNode view = bob.get("/v1/queries/" + id).json();
    assertEquals("none", view.path("prefiltering").path("prefilter").asText(), view.toString());
    assertTrue(view.path("disclosure").path("helper").isNull(), view.toString());
    assertFalse(view.path("disclosure").path("summary").asText().contains("helper"));
    assertEquals(200, bob.post("/v1/queries/" + id + "/approve", "{}").status());
    for (String party : List.of("alice", "bob")) {
      PartyConfiguration c = launched(party);
      assertEquals(Prefilter.NONE, c.get(PartyOptions.PREFILTER), party);
      assertEquals(null, c.get(PartyOptions.HELPER), party);
      assertEquals(null, c.get(PartyOptions.HELPER_CERT_SHA256), party);
    }
  }

  @Test
  void theApproverRefusesAHelperItDidNotRegisterOrRegisteredWithAnotherPin() {
    int before = atBob();
    Reply r =
        refused(422, alice.post("/v1/queries", query("erin")), "erin", "not registered at bob");
    assertEquals("peer", r.json().path("field").asText());
    r = refused(422, alice.post("/v1/queries", query("dave")), "dave", "another certificate pin");
    assertTrue(r.error().contains(DAVE_AT_BOB) && r.error().contains(DAVE_AT_ALICE), r.error());
    assertEquals(before, atBob());
    // the refused queries are recorded at alice as refused by the peer
    JsonNode refusedHere = alice.get("/v1/queries?status=refused").json().path("queries");
    assertTrue(
        refusedHere.findValues("helper").stream().anyMatch(h -> h.asText().equals("erin")),
        refusedHere.toString());
  }

  @Test
  void aSubmissionNamesOnlyAHelperRegisteredHereAndItsOptionsAreChecked() {
    int before = atBob();
    refused(
        400, alice.post("/v1/queries", query("zed")), "helper", "zed", "not registered at alice");
    ObjectNode q = query("carol");
    q.put("prefilter", "sometimes");
    refused(400, alice.post("/v1/queries", q), "prefilter", "none, helper or auto", "sometimes");
    q.put("prefilter", "helper");
    q.remove("helper");
    refused(400, alice.post("/v1/queries", q), "helper", "required with prefilter helper");
    q.put("helper", "carol");
    for (int bits : new int[] {15, 37, -1}) {
      q.put("filterBits", bits);
      refused(400, alice.post("/v1/queries", q), "filterBits");
    }
    q.remove("filterBits");
    for (int hashes : new int[] {17, -1}) {
      q.put("filterHashes", hashes);
      refused(400, alice.post("/v1/queries", q), "filterHashes");
    }
    q.remove("filterHashes");
    // options of the helper without it: refused, never ignored
    q.put("prefilter", "none");
    refused(400, alice.post("/v1/queries", q), "helper", "prefilter is none");
    q.remove("helper");
    q.put("filterBits", 20);
    refused(400, alice.post("/v1/queries", q), "filterBits", "prefilter is none");
    assertEquals(before, atBob());
  }

  @Test
  void thePrefilterIsRefusedWhereAPartyMustLearnLessThanItsCandidates() throws Exception {
    int before = atBob();
    // mode labeled: B would learn its candidates
    ObjectNode labeled = query("carol");
    labeled.put("mode", "labeled");
    labeled.put("protocol", "rr22");
    Reply r = refused(400, alice.post("/v1/queries", labeled), "prefilter", "mode labeled");
    assertEquals("prefilter", r.json().path("field").asText());
    // a count: A would learn more than the count
    ObjectNode count = query("carol");
    count.put("sql", "SELECT COUNT(DISTINCT a.card) FROM a JOIN b ON a.card = b.card");
    count.put("protocol", "ecdh");
    r = refused(400, alice.post("/v1/queries", count), "prefilter", "count-only");
    assertEquals("prefilter", r.json().path("field").asText());
    // the peer's dataset whose owner must never learn an intersection
    ObjectNode never = query("carol");
    never.put("peerDataset", "private_customers");
    r =
        refused(
            400,
            alice.post("/v1/queries", never),
            "prefilter",
            "private_customers",
            "revealIntersection: never");
    assertEquals("prefilter", r.json().path("field").asText());
    assertEquals(before, atBob());

    // bob checks each independently, on offers that did not come through a checking coordinator
    Client peerAtBob = parties.client(parties.bob, "Bearer " + parties.aliceToBob);
    ObjectNode o = offer("alice", "A", "purchases", "customers", SQL);
    o.set("prefiltering", carol());
    o.put("mode", "labeled");
    o.put("protocol", "rr22");
    o.put("labelBytes", 128);
    refused(400, peerAtBob.post("/v1/peer/queries", o), "prefilter", "mode labeled");
    String countSql = "SELECT COUNT(DISTINCT a.card) FROM a JOIN b ON a.card = b.card";
    o = offer("alice", "A", "purchases", "customers", countSql);
    o.set("prefiltering", carol());
    o.put("protocol", "ecdh");
    refused(400, peerAtBob.post("/v1/peer/queries", o), "prefilter", "count-only");
    o = offer("alice", "A", "purchases", "private_customers", SQL);
    o.set("prefiltering", carol());
    refused(
        400,
        peerAtBob.post("/v1/peer/queries", o),
        "prefilter",
        "private_customers",
        "revealIntersection: never");
    assertEquals(before, atBob());
  }

  static ObjectNode carol() {
    ObjectNode p = Client.JSON.createObjectNode();
    p.put("prefilter", "helper");
    p.put("helper", "carol");
    p.put("helperCertSha256", CAROL);
    p.put("filterBits", 0);
    p.put("filterHashes", 0);
    return p;
  }

  @Test
  void anOfferWithAMissingOrInconsistentPrefilterIsRefusedAndAudited() throws Exception {
    Client peerAtBob = parties.client(parties.bob, "Bearer " + parties.aliceToBob);
    int before = atBob();
    ObjectNode o = offer("alice", "A", "purchases", "customers", SQL);
    o.remove("prefiltering");
    refused(400, peerAtBob.post("/v1/peer/queries", o), "prefiltering", "whether a helper");
    ObjectNode p = carol();
    p.put("prefilter", "maybe");
    o.set("prefiltering", p);
    refused(400, peerAtBob.post("/v1/peer/queries", o), "prefiltering.prefilter");
    p = carol();
    p.remove("helperCertSha256");
    o.set("prefiltering", p);
    refused(400, peerAtBob.post("/v1/peer/queries", o), "prefiltering", "helperCertSha256");
    p = carol();
    p.put("filterBits", 99);
    o.set("prefiltering", p);
    refused(400, peerAtBob.post("/v1/peer/queries", o), "prefiltering", "filterBits");
    p = carol();
    p.put("filterHashes", "many");
    o.set("prefiltering", p);
    refused(400, peerAtBob.post("/v1/peer/queries", o), "prefiltering.filterHashes");
    p = carol();
    p.put("prefilter", "auto");
    p.put("expectedOverlapPpm", 2_000_000);
    o.set("prefiltering", p);
    refused(400, peerAtBob.post("/v1/peer/queries", o), "prefiltering", "expectedOverlapPpm");
    p.put("expectedOverlapPpm", 0.5);
    refused(400, peerAtBob.post("/v1/peer/queries", o), "prefiltering.expectedOverlapPpm");
    p = Client.JSON.createObjectNode();
    p.put("prefilter", "none");
    p.put("helper", "carol");
    o.set("prefiltering", p);
    refused(400, peerAtBob.post("/v1/peer/queries", o), "prefiltering", "prefilter none");
    assertEquals(before, atBob());
    long audited =
        bob.get("/v1/audit").json().path("entries").findValues("detail").stream()
            .map(JsonNode::asText)
            .filter(d -> d.contains("\"field\":\"prefiltering"))
            .count();
    assertTrue(audited >= 8, "refusals audited: " + audited);
    // the well-formed one is stored with its helper
    o.set("prefiltering", carol());
    Reply ok = peerAtBob.post("/v1/peer/queries", o);
    assertEquals(201, ok.status(), ok.toString());
    assertEquals(
        "carol",
        bob.get("/v1/queries/" + o.get("id").asText())
            .json()
            .path("prefiltering")
            .path("helper")
            .asText());
  }

  @Test
  void aSessionThatDoesNotCarryTheSubmittedPrefilterIsRefused() throws Exception {
    Reply submitted = alice.post("/v1/queries", query("carol"));
    assertEquals(201, submitted.status(), submitted.toString());
    JsonNode q = submitted.json();
    String id = q.path("id").asText();
    Client peerAtAlice = parties.client(parties.alice, "Bearer " + parties.bobToAlice);
    ObjectNode s = Client.JSON.createObjectNode();
    s.put("id", UUID.randomUUID().toString());
    s.put("queryId", id);
    s.put("partyA", "alice");
    s.put("partyB", "bob");
    s.put("bins", q.path("bins").asInt());
    s.put("sigma", q.path("sigma").asInt());
    s.put("protocol", q.path("protocol").asText());
    s.put("mode", "both");
    s.put("aEndpoint", q.path("requesterEndpoint").asText());
    s.put("aFingerprint", q.path("requesterFingerprint").asText());
    s.put("bEndpoint", "bob.example:7443");
    s.put("bFingerprint", "ab".repeat(32));
    s.put("status", "created");
    s.put("createdAt", System.currentTimeMillis());
    ObjectNode decision = Client.JSON.createObjectNode();
    decision.put("decision", "approved");
    decision.set("session", s);
    // without a pre-filter: refused, never read as none
    Reply r = peerAtAlice.post("/v1/peer/queries/" + id + "/decision", decision);
    refused(400, r, "session.prefiltering");
    // none, or carol with another pin: not what alice submitted
    ObjectNode none = Client.JSON.createObjectNode().put("prefilter", "none");
    s.set("prefiltering", none);
    refused(400, peerAtAlice.post("/v1/peer/queries/" + id + "/decision", decision), "session");
    ObjectNode otherPin = carol().put("helperCertSha256", "c1".repeat(32));
    s.set("prefiltering", otherPin);
    r = peerAtAlice.post("/v1/peer/queries/" + id + "/decision", decision);
    refused(400, r, "does not match the submitted query");
    assertEquals("pending", alice.get("/v1/queries/" + id).json().path("status").asText());
    // the one alice submitted is accepted, and stored with its helper (bob's coordinator never
    // made this session: alice's job waits for bob's to start, JobQueueTest)
    s.set("prefiltering", carol());
    r = peerAtAlice.post("/v1/peer/queries/" + id + "/decision", decision);
    assertEquals(200, r.status(), r.toString());
    JsonNode stored = alice.get("/v1/sessions/" + s.path("id").asText()).json();
    assertEquals("carol", stored.path("prefiltering").path("helper").asText(), stored.toString());
    assertEquals("created", stored.path("status").asText(), stored.toString());
  }

  /**
   * The approver's registry may change between the offer and the decision (a restart with another
   * config): approving a query whose helper is no longer registered, or now with another pin, is
   * refused naming the helper, and no session is created.
   */
  @Test
  void anApprovalIsRefusedWhenTheHelperWasUnregisteredSince() throws Exception {
    Client bobAsRequester = bob;
    ObjectNode q = Client.JSON.createObjectNode();
    q.put("localDataset", "customers");
    q.put("peerDataset", "purchases");
    q.put("role", "B");
    q.put("sql", SQL);
    q.put("prefilter", "helper");
    q.put("helper", "carol");
    Reply submitted = bobAsRequester.post("/v1/queries", q);
    assertEquals(201, submitted.status(), submitted.toString());
    String id = submitted.json().path("id").asText();
    CoordinatorConfig original = parties.aliceConfig;
    for (List<Helper> now :
        List.of(
            List.<Helper>of(),
            List.of(new Helper("carol", "c1".repeat(32), "carol's new certificate")))) {
      parties.stopAlice();
      parties.startAlice(withHelpers(original, now));
      try {
        Reply r = parties.aliceApi().post("/v1/queries/" + id + "/approve", "{}");
        refused(422, r, "helper carol");
        assertEquals(
            "pending", parties.aliceApi().get("/v1/queries/" + id).json().path("status").asText());
        assertTrue(parties.aliceApi().get("/v1/queries/" + id).json().path("session").isNull());
      } finally {
        parties.stopAlice();
        parties.startAlice();
      }
    }
    alice = parties.aliceApi();
    assertEquals(200, alice.post("/v1/queries/" + id + "/reject", "{}").status());
  }

  static CoordinatorConfig withHelpers(CoordinatorConfig c, List<Helper> helpers) {
    return new CoordinatorConfig(
        c.party(),
        c.listen(),
        c.tls(),
        c.database(),
        c.tokensFile(),
        c.peer(),
        c.bridge(),
        c.approvalTtl(),
        c.sweepInterval(),
        c.defaults(),
        c.protocols(),
        c.job(),
        c.output(),
        helpers);
  }

  @Test
  void theHelpersAreListedToThePartyOnly() {
    Reply r = alice.get("/v1/helpers");
    assertEquals(200, r.status(), r.toString());
    JsonNode h = r.json().path("helpers");
    assertEquals(3, h.size(), h.toString());
    assertEquals("carol", h.get(0).path("name").asText());
    assertEquals(CAROL, h.get(0).path("certSha256").asText()); // configured in upper case
    assertEquals("Carol Ltd, contract 7 (alice)", h.get(0).path("description").asText());
    assertEquals("", h.get(1).path("description").asText());
    assertEquals(2, bob.get("/v1/helpers").json().path("helpers").size());
    Client peerAtAlice = parties.client(parties.alice, "Bearer " + parties.bobToAlice);
    assertEquals(403, peerAtAlice.get("/v1/helpers").status());
    assertEquals(401, parties.client(parties.alice, null).get("/v1/helpers").status());
  }
}
