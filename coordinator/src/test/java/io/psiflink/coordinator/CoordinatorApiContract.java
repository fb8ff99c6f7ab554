package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psiflink.coordinator.Client.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The coordinator's API over real HTTPS between two real coordinators (alice and bob) on loopback,
 * run once per database (SQLite, PostgreSQL) by the subclasses.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class CoordinatorApiContract {
  private static final AtomicInteger SEQ = new AtomicInteger();

  Path dir;
  Parties parties;
  Client alice;
  Client bob;

  /** The JDBC URL of a fresh database called {@code name}. */
  abstract String databaseUrl(String name) throws Exception;

  /** Run before the parties start (e.g. start a database server). */
  void setUpDatabase() throws Exception {}

  void tearDownDatabase() throws Exception {}

  @BeforeAll
  void start() throws Exception {
    setUpDatabase();
    dir = Files.createTempDirectory("psi-coord-test-");
    parties = startParties("main", Duration.ofHours(1));
    alice = parties.aliceApi();
    bob = parties.bobApi();
    register(alice, purchases("purchases"));
    register(bob, customers("customers"));
  }

  Parties startParties(String tag, Duration ttl) throws Exception {
    return new Parties(
        dir.resolve(tag),
        party -> {
          try {
            return databaseUrl(party + "_" + tag);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        },
        ttl);
  }

  @AfterAll
  void stop() throws Exception {
    try {
      if (parties != null) {
        parties.close();
      }
    } finally {
      tearDownDatabase();
    }
  }

  // ------------------------------------------------------------------ fixtures

  static Map<String, Object> column(String name, String type) {
    return Map.of("name", name, "type", type);
  }

  static ObjectNode purchases(String name) {
    return dataset(
        name,
        "/data/alice/purchases",
        "avro",
        List.of(
            column("card", "STRING"),
            column("zip", "INT"),
            column("spend", "DOUBLE"),
            column("store", "STRING"),
            column("secret", "STRING")),
        List.of("card", "zip"),
        List.of("spend", "store"),
        List.of("store"));
  }

  static ObjectNode customers(String name) {
    return dataset(
        name,
        "hdfs://bob/customers",
        "parquet",
        List.of(
            column("card", "STRING"),
            column("zip", "BIGINT"),
            column("email", "STRING"),
            column("country", "STRING"),
            column("ssn", "STRING"),
            column("age", "INT")),
        List.of("card", "zip"),
        List.of("email", "country"),
        List.of("age"));
  }

  static ObjectNode dataset(
      String name,
      String location,
      String format,
      List<?> schema,
      List<String> keys,
      List<String> reveal,
      List<String> filter) {
    ObjectNode n = Client.JSON.createObjectNode();
    n.put("name", name);
    n.put("location", location);
    n.put("format", format);
    n.set("schema", Client.JSON.valueToTree(schema));
    n.set("keyColumns", Client.JSON.valueToTree(keys));
    n.set("revealColumns", Client.JSON.valueToTree(reveal));
    n.set("filterColumns", Client.JSON.valueToTree(filter));
    return n;
  }

  /**
   * A query offer as a requester's coordinator sends it to {@code POST /v1/peer/queries}, with a
   * fresh id, the SQL's fingerprint and well-formed endpoint and certificate fingerprint.
   */
  static ObjectNode offer(
      String requester,
      String requesterSide,
      String requesterDataset,
      String approverDataset,
      String sql)
      throws io.psiflink.query.QueryException {
    ObjectNode offer = Client.JSON.createObjectNode();
    offer.put("id", java.util.UUID.randomUUID().toString());
    offer.put("requester", requester);
    offer.put("requesterSide", requesterSide);
    offer.put("requesterDataset", requesterDataset);
    offer.put("approverDataset", approverDataset);
    offer.put("sql", sql);
    offer.put("fingerprint", io.psiflink.query.JoinQuery.parse(sql).fingerprint());
    offer.put("protocol", "kkrt");
    offer.put("mode", "both");
    offer.putObject("prefiltering").put("prefilter", "none");
    offer.put("requesterEndpoint", requester + ".example:7443");
    offer.put("requesterFingerprint", "ab".repeat(32));
    offer.put("expiresAt", System.currentTimeMillis() + 60_000);
    return offer;
  }

  static void register(Client c, ObjectNode dataset) {
    Reply r = c.post("/v1/datasets", dataset);
    assertEquals(201, r.status(), r.toString());
  }

  static ObjectNode sqlQuery(String sql) {
    ObjectNode n = Client.JSON.createObjectNode();
    n.put("localDataset", "purchases");
    n.put("peerDataset", "customers");
    n.put("sql", sql);
    return n;
  }

  static final String GOOD_SQL =
      "SELECT b.email, a.spend FROM a JOIN b"
          + " ON a.card = b.card AND a.zip = b.zip WHERE a.spend > 23 AND b.country = 'DE'";

  String submit(Client c, ObjectNode q) {
    Reply r = c.post("/v1/queries", q);
    assertEquals(201, r.status(), r.toString());
    assertEquals("pending", r.json().path("status").asText());
    return r.json().path("id").asText();
  }

  /** Asserts a 4xx whose message contains every fragment (the offending part of the query). */
  static Reply refused(int status, Reply r, String... fragments) {
    assertEquals(status, r.status(), r.toString());
    for (String f : fragments) {
      assertTrue(r.error().contains(f), "'" + r.error() + "' should contain '" + f + "'");
    }
    return r;
  }

  static List<String> actions(Client c) {
    Reply r = c.get("/v1/audit");
    assertEquals(200, r.status(), r.toString());
    List<String> out = new ArrayList<>();
    for (JsonNode e : r.json().path("entries")) {
      out.add(e.path("action").asText() + " " + e.path("objectId").asText());
    }
    return out;
  }

  // ------------------------------------------------------------------ authentication

  @Test
  void openapiIsServedWithoutAuthentication() {
    Reply r = parties.client(parties.alice, null).get("/openapi.yaml");
    assertEquals(200, r.status());
    assertTrue(r.raw().startsWith("openapi: 3"), r.raw());
  }

  @Test
  void missingOrBadTokensAre401() {
    for (String auth :
        new String[] {
          null,
          "Basic YWxpY2U6cHc=",
          "Bearer",
          "Bearer ",
          "Bearer not-a-token",
          "Bearer " + parties.bobToken
        }) {
      Client c = parties.client(parties.alice, auth);
      for (Reply r :
          List.of(
              c.get("/v1/datasets"),
              c.post("/v1/queries", "{}"),
              c.get("/v1/audit"),
              c.get("/v1/peer/datasets/purchases"),
              c.delete("/v1/datasets/purchases"))) {
        assertEquals(401, r.status(), auth + " -> " + r);
        assertTrue(
            r.error().contains("token")
                || r.error().contains("Bearer")
                || r.error().contains("authentication"),
            r.toString());
      }
    }
    // the dataset is still there: nothing was done by the refused DELETE
    assertEquals("active", alice.get("/v1/datasets/purchases").json().path("status").asText());
  }

  @Test
  void peerTokenCannotUsePartyRoutesAndViceVersa() {
    Client peerAtBob = parties.client(parties.bob, "Bearer " + parties.aliceToBob);
    refused(403, peerAtBob.get("/v1/datasets"), "peer");
    refused(403, peerAtBob.get("/v1/datasets/customers"), "peer");
    refused(403, peerAtBob.get("/v1/audit"), "peer");
    refused(403, peerAtBob.get("/v1/sessions"), "peer");
    refused(403, peerAtBob.post("/v1/queries/x/approve", "{}"), "peer");
    refused(403, bob.get("/v1/peer/datasets"), "peer coordinator only");
    refused(403, bob.post("/v1/peer/queries", "{}"), "peer coordinator only");
    // bob's coordinator's token is not alice's party token: unknown at bob
    refused(
        401,
        parties.client(parties.bob, "Bearer " + parties.aliceToken).get("/v1/datasets"),
        "token");
  }

  @Test
  void peerSeesOnlyThePublishedViewOfActiveDatasets() {
    Client peerAtBob = parties.client(parties.bob, "Bearer " + parties.aliceToBob);
    Reply r = peerAtBob.get("/v1/peer/datasets/customers");
    assertEquals(200, r.status(), r.toString());
    assertFalse(r.raw().contains("hdfs://"), "no location: " + r.raw());
    assertFalse(r.raw().contains("ssn"), "no unpublished column: " + r.raw());
    List<String> cols = new ArrayList<>();
    r.json().path("columns").forEach(c -> cols.add(c.path("name").asText()));
    assertEquals(List.of("card", "zip", "email", "country", "age"), cols);
    refused(404, peerAtBob.get("/v1/peer/datasets/nope"), "nope");
    register(bob, customers("old_customers"));
    assertEquals(200, bob.delete("/v1/datasets/old_customers").status());
    refused(404, peerAtBob.get("/v1/peer/datasets/old_customers"), "old_customers");
    Reply all = peerAtBob.get("/v1/peer/datasets");
    assertEquals(200, all.status());
    assertFalse(all.raw().contains("old_customers"), all.raw());
    refused(
        404, peerAtBob.get("/v1/peer/queries/00000000-0000-0000-0000-000000000000"), "not found");
  }

  // ------------------------------------------------------------------ datasets

  @Test
  void datasetLifecycle() {
    register(alice, purchases("shop_a"));
    refused(409, alice.post("/v1/datasets", purchases("shop_a")), "already exists");
    Reply one = alice.get("/v1/datasets/shop_a");
    assertEquals(200, one.status());
    assertEquals("avro", one.json().path("format").asText());
    assertEquals("[\"card\",\"zip\"]", one.json().path("keyColumns").toString());
    assertEquals("/data/alice/purchases", one.json().path("location").asText());
    assertTrue(alice.get("/v1/datasets").raw().contains("\"shop_a\""));

    Reply retired = alice.delete("/v1/datasets/shop_a");
    assertEquals(200, retired.status(), retired.toString());
    assertEquals("retired", retired.json().path("status").asText());
    refused(409, alice.delete("/v1/datasets/shop_a"), "already retired");
    assertFalse(alice.get("/v1/datasets").raw().contains("\"shop_a\""));
    assertTrue(alice.get("/v1/datasets?includeRetired=true").raw().contains("\"shop_a\""));
    assertEquals("retired", alice.get("/v1/datasets/shop_a").json().path("status").asText());
    refused(404, alice.get("/v1/datasets/nothing_here"), "nothing_here");
    refused(404, alice.delete("/v1/datasets/nothing_here"), "nothing_here");
    // a retired dataset cannot be used in new queries
    ObjectNode q = sqlQuery(GOOD_SQL);
    q.put("localDataset", "shop_a");
    refused(422, alice.post("/v1/queries", q), "localDataset", "shop_a");
    assertTrue(actions(alice).contains("dataset.retired shop_a"));
  }

  @Test
  void datasetValidationErrorsNameTheField() {
    ObjectNode d = purchases("bad name!");
    refused(400, alice.post("/v1/datasets", d), "name");
    d = purchases("x1");
    d.remove("location");
    refused(400, alice.post("/v1/datasets", d), "location");
    d = purchases("x1");
    d.put("format", "orc");
    refused(400, alice.post("/v1/datasets", d), "format", "csv, avro, parquet");
    d = purchases("x1");
    ((ObjectNode) d.withArray("schema").get(1)).put("type", "DECIMAL");
    refused(400, alice.post("/v1/datasets", d), "schema[1].type", "DECIMAL");
    d = purchases("x1");
    ((ObjectNode) d.withArray("schema").get(2)).put("name", "card");
    refused(400, alice.post("/v1/datasets", d), "schema[2].name", "duplicate");
    d = purchases("x1");
    d.set("schema", Client.JSON.createArrayNode());
    refused(400, alice.post("/v1/datasets", d), "schema");
    d = purchases("x1");
    d.set("keyColumns", Client.JSON.valueToTree(List.of("card", "nope")));
    refused(400, alice.post("/v1/datasets", d), "keyColumns[1]", "nope");
    d = purchases("x1");
    d.set("keyColumns", Client.JSON.createArrayNode());
    refused(400, alice.post("/v1/datasets", d), "keyColumns");
    d = purchases("x1");
    d.set("revealColumns", Client.JSON.valueToTree(List.of("ghost")));
    refused(400, alice.post("/v1/datasets", d), "revealColumns[0]", "ghost");
    d = purchases("x1");
    d.set("filterColumns", Client.JSON.valueToTree(List.of("spook")));
    refused(400, alice.post("/v1/datasets", d), "filterColumns[0]", "spook");
    refused(400, alice.post("/v1/datasets", "{not json"), "body");
    refused(404, alice.get("/v1/datasets/x1"), "x1");
  }

  @Test
  void schemaIsDiscoveredFromCsvFilesWhenNotGiven() throws Exception {
    Path csv = dir.resolve("discover" + SEQ.incrementAndGet() + ".csv");
    Files.writeString(csv, "card,zip,spend\nc1,10115,12.5\nc2,80331,3\n");
    ObjectNode d = purchases("found" + SEQ.incrementAndGet());
    d.remove("schema");
    d.put("location", csv.toString());
    d.put("format", "csv");
    d.set("revealColumns", Client.JSON.valueToTree(List.of("spend")));
    d.set("filterColumns", Client.JSON.createArrayNode());
    Reply r = alice.post("/v1/datasets", d);
    assertEquals(201, r.status(), r.toString());
    assertEquals(
        "[{\"name\":\"card\",\"type\":\"STRING\",\"nullable\":true},"
            + "{\"name\":\"zip\",\"type\":\"BIGINT\",\"nullable\":true},"
            + "{\"name\":\"spend\",\"type\":\"DOUBLE\",\"nullable\":true}]",
        r.json().path("schema").toString());
    d.put("name", "found" + SEQ.incrementAndGet());
    d.put("format", "avro");
    refused(400, alice.post("/v1/datasets", d), "format", "csv");
    d.put("format", "csv");
    d.put("location", dir.resolve("missing.csv").toString());
    refused(400, alice.post("/v1/datasets", d), "location", "discovered");
    d.put("format", "parquet");
    refused(400, alice.post("/v1/datasets", d), "schema", "parquet");
  }

  // ------------------------------------------------------------------ query validation

  @Test
  void unknownTableIsRefused() {
    Reply r =
        refused(
            422,
            alice.post("/v1/queries", sqlQuery("SELECT a.spend FROM a JOIN c ON a.card = c.card")),
            "FROM",
            "unknown table c");
    assertEquals("FROM", r.json().path("clause").asText());
    assertEquals("c", r.json().path("text").asText());
  }

  @Test
  void unknownColumnIsRefused() {
    Reply r =
        refused(
            422,
            alice.post("/v1/queries", sqlQuery("SELECT b.nope FROM a JOIN b ON a.card = b.card")),
            "SELECT",
            "no column nope",
            "b.nope");
    assertEquals(1, r.json().path("line").asInt());
    assertEquals(8, r.json().path("column").asInt());
    // a column the peer did not publish is unknown here: its name never leaves bob
    refused(
        422,
        alice.post("/v1/queries", sqlQuery("SELECT b.ssn FROM a JOIN b ON a.card = b.card")),
        "no column ssn");
    refused(
        422,
        alice.post(
            "/v1/queries",
            sqlQuery("SELECT a.spend FROM a JOIN b ON a.card = b.card WHERE a.colour = 'red'")),
        "WHERE",
        "no column colour");
  }

  @Test
  void typeMismatchInOnIsRefused() {
    refused(
        422,
        alice.post("/v1/queries", sqlQuery("SELECT a.spend FROM a JOIN b ON a.card = b.zip")),
        "ON",
        "a.card (STRING) = b.zip (BIGINT): types do not compare");
  }

  @Test
  void nonEqualityJoinConditionIsRefused() {
    Reply r =
        refused(
            422,
            alice.post("/v1/queries", sqlQuery("SELECT a.spend FROM a JOIN b ON a.card < b.card")),
            "ON",
            "a.card < b.card");
    assertEquals("ON", r.json().path("clause").asText());
    refused(
        422,
        alice.post(
            "/v1/queries",
            sqlQuery("SELECT a.spend FROM a JOIN b ON a.card = b.card OR a.zip = b.zip")),
        "ON");
  }

  @Test
  void wherePredicateMixingBothPartiesIsRefused() {
    refused(
        422,
        alice.post(
            "/v1/queries",
            sqlQuery("SELECT a.spend FROM a JOIN b ON a.card = b.card WHERE a.zip > b.age")),
        "WHERE",
        "a.zip > b.age");
  }

  @Test
  void orAcrossPartiesIsRefused() {
    refused(
        422,
        alice.post(
            "/v1/queries",
            sqlQuery(
                "SELECT a.spend FROM a JOIN b"
                    + " ON a.card = b.card WHERE a.spend > 1 OR b.country = 'DE'")),
        "WHERE",
        "a.spend > 1 OR b.country = 'DE'");
  }

  @Test
  void columnsTheOwnerDidNotAllowAreRefused() {
    // own dataset: store may be filtered and revealed but is no join key
    refused(
        422,
        alice.post("/v1/queries", sqlQuery("SELECT a.spend FROM a JOIN b ON a.store = b.card")),
        "ON",
        "a.store",
        "purchases",
        "may not be a join key");
    // own dataset: secret is neither revealed nor filterable
    refused(
        422,
        alice.post("/v1/queries", sqlQuery("SELECT a.secret FROM a JOIN b ON a.card = b.card")),
        "SELECT",
        "a.secret",
        "may not be revealed");
    refused(
        422,
        alice.post(
            "/v1/queries",
            sqlQuery("SELECT a.spend FROM a JOIN b ON a.card = b.card WHERE a.secret = 'x'")),
        "WHERE",
        "a.secret",
        "may not be used in WHERE");
    // peer dataset: card is published as a key, not as a revealed column
    Reply r =
        refused(
            422,
            alice.post("/v1/queries", sqlQuery("SELECT b.card FROM a JOIN b ON a.card = b.card")),
            "SELECT",
            "b.card",
            "customers",
            "may not be revealed");
    assertEquals("b.card", r.json().path("text").asText());
    // a star reveals every column, key columns included
    refused(
        422,
        alice.post("/v1/queries", sqlQuery("SELECT b.* FROM a JOIN b ON a.card = b.card")),
        "SELECT",
        "may not be revealed");
    // peer dataset: email is revealed, not a key
    refused(
        422,
        alice.post("/v1/queries", sqlQuery("SELECT a.spend FROM a JOIN b ON a.card = b.email")),
        "ON",
        "b.email",
        "may not be a join key");
  }

  @Test
  void otherQueryErrorsAreRefused() {
    refused(
        422, alice.post("/v1/queries", sqlQuery("SELEC a.spend FROM a")), "SQL", "syntax error");
    refused(
        422,
        alice.post(
            "/v1/queries",
            sqlQuery("SELECT a.spend FROM a JOIN b ON a.card = b.card ORDER BY a.spend")),
        "ORDER BY");
    ObjectNode q = sqlQuery(GOOD_SQL);
    q.put("peerDataset", "unknown_ds");
    refused(422, alice.post("/v1/queries", q), "peerDataset", "unknown_ds");
    q = sqlQuery(GOOD_SQL);
    q.put("localDataset", "unknown_ds");
    refused(422, alice.post("/v1/queries", q), "localDataset", "unknown_ds");
    q = sqlQuery(GOOD_SQL);
    q.remove("sql");
    refused(400, alice.post("/v1/queries", q), "sql", "neither");
    q = sqlQuery(GOOD_SQL);
    q.set("query", Client.JSON.createObjectNode());
    refused(400, alice.post("/v1/queries", q), "both");
    q = sqlQuery(GOOD_SQL);
    q.put("role", "C");
    refused(400, alice.post("/v1/queries", q), "role");
    q = sqlQuery(GOOD_SQL);
    q.put("sigma", 10);
    refused(400, alice.post("/v1/queries", q), "sigma");
    q = sqlQuery(GOOD_SQL);
    q.put("protocol", "rot13");
    refused(400, alice.post("/v1/queries", q), "protocol");
    q = sqlQuery(GOOD_SQL);
    q.remove("peerDataset");
    refused(400, alice.post("/v1/queries", q), "peerDataset");
    // nothing was recorded for refused queries
    assertFalse(alice.get("/v1/queries").raw().contains("unknown_ds"));
  }

  @Test
  void aCountNeedsAProtocolThatRevealsOnlyTheCount() throws Exception {
    String count = "SELECT COUNT(DISTINCT a.card) FROM a JOIN b ON a.card = b.card";
    // the oracle: what the native library says of each protocol, not the coordinator's code
    List<String> able =
        io.psiflink.nativepsi.ProtocolInfo.all().stream()
            .filter(io.psiflink.nativepsi.ProtocolInfo::supportsCardinality)
            .map(io.psiflink.nativepsi.ProtocolInfo::name)
            .toList();
    assertFalse(able.contains("kkrt"));
    assertTrue(able.contains("ecdh"));
    int atBob = bob.get("/v1/queries").json().path("queries").size();
    List<String> bobsAudit = actions(bob);
    ObjectNode q = sqlQuery(count);
    q.put("protocol", "kkrt");
    refused(400, alice.post("/v1/queries", q), "protocol", "kkrt", "COUNT(DISTINCT", "ecdh");
    // refused before the peer saw the offer: nothing new at bob
    assertEquals(atBob, bob.get("/v1/queries").json().path("queries").size());
    assertEquals(bobsAudit, actions(bob));
    // the approver checks too, for an offer that did not come through a checking coordinator
    Client peerAtBob = parties.client(parties.bob, "Bearer " + parties.aliceToBob);
    refused(
        400,
        peerAtBob.post("/v1/peer/queries", offer("alice", "A", "purchases", "customers", count)),
        "protocol",
        "kkrt");
    assertEquals(atBob, bob.get("/v1/queries").json().path("queries").size());
    // a protocol with the cardinality output is accepted; a join with kkrt still is
    q.put("protocol", "ecdh");
    String id = submit(alice, q);
    assertEquals(200, bob.post("/v1/queries/" + id + "/reject", Map.of("reason", "test")).status());
    q = sqlQuery("SELECT a.spend FROM a JOIN b ON a.card = b.card");
    q.put("protocol", "kkrt");
    id = submit(alice, q);
    assertEquals(200, bob.post("/v1/queries/" + id + "/reject", Map.of("reason", "test")).status());
  }

  static ObjectNode jsonQuery(String where) throws Exception {
    ObjectNode n = Client.JSON.createObjectNode();
    n.put("localDataset", "purchases");
    n.put("peerDataset", "customers");
    n.set(
        "query",
        Client.JSON.readTree(
            "{\"select\": [{\"table\": \"b\", \"column\": \"email\"},"
                + " {\"table\": \"a\", \"column\": \"spend\", \"as\": \"total\"}],"
                + " \"on\": [{\"a\": \"card\", \"b\": \"card\"}, {\"a\": \"zip\", \"b\": \"zip\"}],"
                + " \"where\": "
                + where
                + "}"));
    return n;
  }

  @Test
  void jsonFormIsValidatedLikeSql() throws Exception {
    Reply ok =
        alice.post(
            "/v1/queries",
            jsonQuery("{\"a\": [\"spend > 23\"], \"b\": [\"country = 'DE'\", \"age >= 18\"]}"));
    assertEquals(201, ok.status(), ok.toString());
    assertTrue(ok.json().path("sql").asText().contains("b.`email`"), ok.toString());
    // a condition listed under a that uses b's columns
    refused(
        400,
        alice.post("/v1/queries", jsonQuery("{\"a\": [\"country = 'DE'\"]}")),
        "query.where.a[0]",
        "table b");
    refused(
        422, alice.post("/v1/queries", jsonQuery("{\"a\": [\"spend > 1 OR age > 2\"]}")), "WHERE");
    refused(422, alice.post("/v1/queries", jsonQuery("{\"b\": [\"ssn = '1'\"]}")), "no column ssn");
    ObjectNode q = jsonQuery("{}");
    ((ObjectNode) q.get("query")).remove("on");
    refused(400, alice.post("/v1/queries", q), "query.on");
    q = jsonQuery("{}");
    ((ObjectNode) q.get("query"))
        .withArray("select")
        .addObject()
        .put("table", "c")
        .put("column", "x");
    refused(400, alice.post("/v1/queries", q), "query.select[2].table");
    q = jsonQuery("{}");
    ((ObjectNode) q.get("query")).withArray("on").addObject().put("a", "card").put("b", "zip");
    refused(422, alice.post("/v1/queries", q), "types do not compare");
  }

  @Test
  void theApproverValidatesIndependently() throws Exception {
    Client peerAtBob = parties.client(parties.bob, "Bearer " + parties.aliceToBob);
    ObjectNode offer =
        offer(
            "alice",
            "A",
            "purchases",
            "customers",
            "SELECT b.ssn FROM a JOIN b ON a.card = b.card");
    String forged = offer.get("id").asText();
    // bob validates against what he publishes: his unpublished ssn is as unknown to the peer as
    // a column that does not exist (the error must not confirm that it exists)
    Reply hidden =
        refused(422, peerAtBob.post("/v1/peer/queries", offer), "SELECT", "has no column ssn");
    String absent = "SELECT b.nosuch FROM a JOIN b ON a.card = b.card";
    offer.put("sql", absent);
    offer.put("fingerprint", io.psiflink.query.JoinQuery.parse(absent).fingerprint());
    Reply missing =
        refused(422, peerAtBob.post("/v1/peer/queries", offer), "SELECT", "has no column nosuch");
    assertEquals(missing.error().replace("nosuch", "ssn"), hidden.error());
    // a published column the owner does not reveal is refused as such
    String unrevealed = "SELECT b.age FROM a JOIN b ON a.card = b.card";
    offer.put("sql", unrevealed);
    offer.put("fingerprint", io.psiflink.query.JoinQuery.parse(unrevealed).fingerprint());
    refused(
        422, peerAtBob.post("/v1/peer/queries", offer), "SELECT", "b.age", "may not be revealed");
    String good = "SELECT b.email FROM a JOIN b ON a.card = b.card";
    offer.put("sql", good);
    refused(400, peerAtBob.post("/v1/peer/queries", offer), "fingerprint");
    offer.put("requester", "mallory");
    refused(403, peerAtBob.post("/v1/peer/queries", offer), "mallory");
    assertFalse(bob.get("/v1/queries").raw().contains(forged));
  }

  // ------------------------------------------------------------------ issue 13: labeled mode

  /** {@link #auditDetail} as JSON. */
  static JsonNode auditJson(Client c, String action, String objectId) throws Exception {
    return Client.JSON.readTree(auditDetail(c, action, objectId));
  }

  @Test
  void aLabeledQueryIsOfferedApprovedAndRunsInModeLabeledAtBothParties() throws Exception {
    ObjectNode q = sqlQuery(GOOD_SQL);
    q.put("mode", "labeled");
    q.put("protocol", "rr22"); // a protocol with labels
    q.put("labelBytes", 512);
    String id = submit(alice, q);
    for (Client c : List.of(alice, bob)) {
      JsonNode view = c.get("/v1/queries/" + id).json();
      assertEquals("labeled", view.path("mode").asText(), view.toString());
      assertEquals(512, view.path("labelBytes").asInt(), view.toString());
      JsonNode d = view.path("disclosure");
      assertEquals("labeled", d.path("mode").asText(), d.toString());
      assertEquals(512, d.path("labelBytes").asInt(), d.toString());
      assertTrue(
          d.path("modeText")
              .asText()
              .contains(
                  "Every key of B travels as a label of 512 bytes: the rows of one key must fit"),
          d.toString());
      assertTrue(d.path("summary").asText().contains(". Mode labeled: "), d.toString());
    }
    // at bob (B): alice learns his email of the matching rows; he learns nothing of the
    // intersection, only alice's padded size
    JsonNode atBob = bob.get("/v1/queries/" + id).json().path("disclosure");
    assertEquals("keys", atBob.path("peerLearnsAboutMine").path("intersection").asText());
    assertEquals("[\"email\"]", atBob.path("peerLearnsAboutMine").path("columns").toString());
    assertEquals("none", atBob.path("iLearnAboutPeer").path("intersection").asText());
    assertTrue(
        atBob.path("iLearnAboutPeer").path("text").asText().contains("not even how many"),
        atBob.toString());
    assertEquals("rounded", atBob.path("iLearnAboutPeer").path("size").path("policy").asText());
    JsonNode atAlice = alice.get("/v1/queries/" + id).json().path("disclosure");
    assertEquals(atBob.path("iLearnAboutPeer"), atAlice.path("peerLearnsAboutMine"));
    assertEquals(atBob.path("peerLearnsAboutMine"), atAlice.path("iLearnAboutPeer"));
    // both audit the mode
    assertEquals("labeled", auditJson(alice, "query.submitted", id).path("mode").asText());
    assertEquals(512, auditJson(alice, "query.submitted", id).path("labelBytes").asInt());
    assertEquals("labeled", auditJson(bob, "query.received", id).path("mode").asText());

    Reply approved = bob.post("/v1/queries/" + id + "/approve", "{}");
    assertEquals(200, approved.status(), approved.toString());
    JsonNode session = approved.json().path("session");
    assertEquals("labeled", session.path("mode").asText(), session.toString());
    assertEquals(512, session.path("labelBytes").asInt(), session.toString());
    // alice checked it against what she submitted and stored the same
    String sid = session.path("id").asText();
    assertEquals(session, alice.get("/v1/sessions/" + sid).json());
    for (Client c : List.of(alice, bob)) {
      JsonNode detail = auditJson(c, "session.created", sid);
      assertEquals("labeled", detail.path("mode").asText(), detail.toString());
      assertEquals(512, detail.path("labelBytes").asInt(), detail.toString());
    }
  }

  @Test
  void theModeAndLabelSizeOfASubmissionAreCheckedAndDefaulted() throws Exception {
    // default: mode both, no label size
    String id = submit(alice, sqlQuery(GOOD_SQL));
    JsonNode view = bob.get("/v1/queries/" + id).json();
    assertEquals("both", view.path("mode").asText(), view.toString());
    assertTrue(view.path("labelBytes").isNull(), view.toString());
    assertTrue(
        view.path("disclosure").path("summary").asText().contains(". Mode both: "),
        view.toString());
    assertEquals(
        "keys", view.path("disclosure").path("iLearnAboutPeer").path("intersection").asText());
    // labeled without a size: the job's default
    ObjectNode q = sqlQuery(GOOD_SQL);
    q.put("mode", "LABELED");
    q.put("protocol", "rr22"); // a protocol with labels
    id = submit(alice, q);
    assertEquals(
        io.psiflink.api.PartyOptions.DEFAULT_LABEL_BYTES,
        bob.get("/v1/queries/" + id).json().path("labelBytes").asInt());
    int atBob = bob.get("/v1/queries").json().path("queries").size();
    q.put("mode", "sideways");
    refused(400, alice.post("/v1/queries", q), "mode", "both or labeled", "sideways");
    q.put("mode", 1);
    refused(400, alice.post("/v1/queries", q), "mode", "both or labeled");
    q.put("mode", "labeled");
    q.put("labelBytes", 4);
    refused(400, alice.post("/v1/queries", q), "labelBytes", "[8, 1048576]");
    q.put("labelBytes", (1 << 20) + 1);
    refused(400, alice.post("/v1/queries", q), "labelBytes", "[8, 1048576]");
    q.put("labelBytes", "big");
    refused(400, alice.post("/v1/queries", q), "labelBytes");
    q.put("mode", "both");
    q.put("labelBytes", 256);
    refused(400, alice.post("/v1/queries", q), "labelBytes", "mode labeled", "mode is both");
    // none of these reached bob
    assertEquals(atBob, bob.get("/v1/queries").json().path("queries").size());
  }

  @Test
  void anOfferWithAnUnknownMissingOrInconsistentModeIsRefusedInWords() throws Exception {
    Client peerAtBob = parties.client(parties.bob, "Bearer " + parties.aliceToBob);
    String sql = "SELECT b.email FROM a JOIN b ON a.card = b.card";
    int atBob = bob.get("/v1/queries").json().path("queries").size();
    ObjectNode o = offer("alice", "A", "purchases", "customers", sql);
    o.put("mode", "everyone");
    refused(400, peerAtBob.post("/v1/peer/queries", o), "mode", "both or labeled");
    o.remove("mode");
    refused(400, peerAtBob.post("/v1/peer/queries", o), "mode", "both or labeled");
    o.put("mode", "labeled"); // without its label size
    refused(400, peerAtBob.post("/v1/peer/queries", o), "labelBytes", "label size");
    o.put("labelBytes", 2);
    refused(400, peerAtBob.post("/v1/peer/queries", o), "labelBytes", "[8, 1048576]");
    o.put("mode", "both"); // a label size without labels
    o.put("labelBytes", 128);
    refused(400, peerAtBob.post("/v1/peer/queries", o), "labelBytes", "mode is both");
    assertEquals(atBob, bob.get("/v1/queries").json().path("queries").size());
    // each refusal audited, with the field
    long refusedModes =
        bob.get("/v1/audit").json().path("entries").findValues("detail").stream()
            .map(JsonNode::asText)
            .filter(d -> d.contains("\"field\":\"mode\"") || d.contains("\"field\":\"labelBytes\""))
            .count();
    assertTrue(refusedModes >= 5, "refusals audited: " + refusedModes);
    // the well-formed labeled offer is stored with its mode
    o.put("mode", "labeled");
    o.put("protocol", "rr22");
    o.put("labelBytes", 64);
    Reply ok = peerAtBob.post("/v1/peer/queries", o);
    assertEquals(201, ok.status(), ok.toString());
    JsonNode stored = bob.get("/v1/queries/" + o.get("id").asText()).json();
    assertEquals("labeled", stored.path("mode").asText());
    assertEquals(64, stored.path("labelBytes").asInt());
  }

  @Test
  void aDatasetThatNeverRevealsTheIntersectionRefusesEveryQueryThatWouldTellItsOwner()
      throws Exception {
    Client peerAtBob = parties.client(parties.bob, "Bearer " + parties.aliceToBob);
    ObjectNode ds = customers("private_customers");
    ds.put("revealIntersection", "never");
    register(bob, ds);
    assertEquals(
        "never",
        bob.get("/v1/datasets/private_customers").json().path("revealIntersection").asText());
    assertEquals(
        "allowed", bob.get("/v1/datasets/customers").json().path("revealIntersection").asText());
    assertEquals(
        "never",
        peerAtBob
            .get("/v1/peer/datasets/private_customers")
            .json()
            .path("revealIntersection")
            .asText());
    ObjectNode bad = customers("badly_private");
    bad.put("revealIntersection", "sometimes");
    refused(400, bob.post("/v1/datasets", bad), "revealIntersection", "allowed or never");

    // B in mode both: refused at alice's submission (the published setting) ...
    ObjectNode q = sqlQuery(GOOD_SQL);
    q.put("peerDataset", "private_customers");
    Reply r =
        refused(
            422,
            alice.post("/v1/queries", q),
            "private_customers",
            "revealIntersection: never",
            "mode both",
            "mode labeled");
    assertEquals("mode", r.json().path("field").asText());
    // ... and by bob himself, for an offer that did not come through a checking coordinator
    String sql = "SELECT b.email FROM a JOIN b ON a.card = b.card";
    ObjectNode o = offer("alice", "A", "purchases", "private_customers", sql);
    refused(
        422,
        peerAtBob.post("/v1/peer/queries", o),
        "private_customers",
        "revealIntersection: never",
        "mode both");
    // as A (the output party) in either mode
    String asA = "SELECT a.email, b.spend FROM a JOIN b ON a.card = b.card";
    for (String mode : List.of("both", "labeled")) {
      ObjectNode qa = sqlQuery(asA);
      qa.put("peerDataset", "private_customers");
      qa.put("role", "B");
      qa.put("mode", mode);
      qa.put("protocol", "rr22"); // a protocol with labels
      Reply ra =
          refused(
              422,
              alice.post("/v1/queries", qa),
              "private_customers",
              "revealIntersection: never",
              "table a");
      assertEquals("role", ra.json().path("field").asText());
      ObjectNode oa = offer("alice", "B", "purchases", "private_customers", asA);
      oa.put("mode", mode);
      oa.put("protocol", "rr22"); // a protocol with labels
      if (mode.equals("labeled")) {
        oa.put("labelBytes", 128);
      }
      refused(422, peerAtBob.post("/v1/peer/queries", oa), "private_customers", "table a");
    }
    // a count-only query as A tells its owner the count: refused too
    String count = "SELECT COUNT(DISTINCT b.card) FROM a JOIN b ON a.card = b.card";
    ObjectNode qc = sqlQuery(count);
    qc.put("peerDataset", "private_customers");
    qc.put("role", "B");
    qc.put("protocol", "ecdh");
    refused(422, alice.post("/v1/queries", qc), "private_customers", "number of common keys");

    // accepted: B in mode labeled, ...
    q.put("mode", "labeled");
    q.put("protocol", "rr22"); // a protocol with labels
    String id = submit(alice, q);
    JsonNode d = bob.get("/v1/queries/" + id).json().path("disclosure");
    assertEquals("none", d.path("iLearnAboutPeer").path("intersection").asText(), d.toString());
    // ... and B of a count-only query in either mode: B learns nothing of the intersection
    for (String mode : List.of("both", "labeled")) {
      ObjectNode qb = sqlQuery("SELECT COUNT(DISTINCT a.card) FROM a JOIN b ON a.card = b.card");
      qb.put("peerDataset", "private_customers");
      qb.put("protocol", "ecdh");
      qb.put("mode", mode);
      String cid = submit(alice, qb);
      JsonNode cd = bob.get("/v1/queries/" + cid).json().path("disclosure");
      assertEquals("none", cd.path("iLearnAboutPeer").path("intersection").asText(), cd.toString());
      assertEquals("count", cd.path("peerLearnsAboutMine").path("intersection").asText());
      assertTrue(cd.path("modeText").asText().contains("count-only"), cd.toString());
    }
  }

  @Test
  void aLabeledQueryNeedsAProtocolWhoseSenderAttachesLabels() throws Exception {
    // the oracle: what the native library says of each protocol (every one of them today)
    int atBob = bob.get("/v1/queries").json().path("queries").size();
    for (io.psiflink.nativepsi.ProtocolInfo p : io.psiflink.nativepsi.ProtocolInfo.all()) {
      ObjectNode q = sqlQuery(GOOD_SQL);
      q.put("mode", "labeled");
      q.put("protocol", p.name());
      if (p.supports(io.psiflink.nativepsi.PsiParams.Output.LABELS)) {
        String id = submit(alice, q);
        assertEquals(
            200, bob.post("/v1/queries/" + id + "/reject", Map.of("reason", "test")).status());
        atBob++;
      } else {
        refused(400, alice.post("/v1/queries", q), "protocol", p.name(), "mode labeled");
      }
      assertEquals(atBob, bob.get("/v1/queries").json().path("queries").size());
    }
    // a count sends no rows of B: labeled with a count-only protocol is accepted
    ObjectNode count = sqlQuery("SELECT COUNT(DISTINCT a.card) FROM a JOIN b ON a.card = b.card");
    count.put("mode", "labeled");
    count.put("protocol", "ecdh");
    String id = submit(alice, count);
    assertEquals(200, bob.post("/v1/queries/" + id + "/reject", Map.of("reason", "test")).status());
  }

  @Test
  void theSubmittersOwnNeverDatasetIsCheckedAtSubmission() {
    ObjectNode ds = purchases("private_purchases");
    ds.put("revealIntersection", "never");
    register(alice, ds);
    int atBob = bob.get("/v1/queries").json().path("queries").size();
    ObjectNode q = sqlQuery(GOOD_SQL);
    q.put("localDataset", "private_purchases");
    q.put("mode", "labeled");
    q.put("protocol", "rr22"); // a protocol with labels
    Reply r =
        refused(
            422,
            alice.post("/v1/queries", q),
            "private_purchases",
            "this party's",
            "revealIntersection: never",
            "table a");
    assertEquals("role", r.json().path("field").asText());
    ObjectNode asB = sqlQuery("SELECT a.email, b.spend FROM a JOIN b ON a.card = b.card");
    asB.put("localDataset", "private_purchases");
    asB.put("role", "B");
    refused(422, alice.post("/v1/queries", asB), "private_purchases", "mode both");
    assertEquals(atBob, bob.get("/v1/queries").json().path("queries").size());
    asB.put("mode", "labeled");
    asB.put("protocol", "rr22"); // a protocol with labels
    String id = submit(alice, asB);
    assertEquals("labeled", bob.get("/v1/queries/" + id).json().path("mode").asText());
  }

  // ------------------------------------------------------------------ issue 18: * and sizes

  @Test
  void starIsExpandedToTheRegisteredColumnsAndTheApproverRefusesAStar() throws Exception {
    // bob's contacts: every published column revealable; 'notes' is in the registry only
    register(
        bob,
        dataset(
            "contacts",
            "hdfs://bob/contacts",
            "parquet",
            List.of(
                column("card", "STRING"),
                column("zip", "BIGINT"),
                column("email", "STRING"),
                column("notes", "STRING")),
            List.of("card", "zip"),
            List.of("card", "zip", "email"),
            List.of()));
    ObjectNode q =
        sqlQuery("SELECT a.spend, b.* FROM a JOIN b ON a.card = b.card AND a.zip = b.zip");
    q.put("peerDataset", "contacts");
    String id = submit(alice, q);
    String expanded =
        "SELECT a.spend, `b`.`card`, `b`.`zip`, `b`.`email` FROM a JOIN b ON "
            + "a.card = b.card AND a.zip = b.zip";
    JsonNode atAlice = alice.get("/v1/queries/" + id).json();
    JsonNode atBob = bob.get("/v1/queries/" + id).json();
    assertEquals(expanded, atAlice.path("sql").asText());
    assertEquals(expanded, atBob.path("sql").asText());
    assertEquals(
        io.psiflink.query.JoinQuery.parse(expanded).fingerprint(),
        atBob.path("fingerprint").asText());
    assertEquals(atAlice.path("fingerprint"), atBob.path("fingerprint"));

    // a requester that sends a star anyway: bob's job would expand it against its files, so it is
    // refused even where every registered column may be revealed
    register(
        bob,
        dataset(
            "contacts_all",
            "hdfs://bob/contacts",
            "parquet",
            List.of(column("card", "STRING"), column("zip", "BIGINT"), column("email", "STRING")),
            List.of("card", "zip"),
            List.of("card", "zip", "email"),
            List.of()));
    Client peerAtBob = parties.client(parties.bob, "Bearer " + parties.aliceToBob);
    ObjectNode offer =
        offer(
            "alice",
            "A",
            "purchases",
            "contacts_all",
            "SELECT b.* FROM a JOIN b ON a.card = b.card AND a.zip = b.zip");
    refused(422, peerAtBob.post("/v1/peer/queries", offer), "explicit columns");
  }

  @Test
  void theQueryViewShowsWhatEachPartyLearns() {
    ObjectNode ds = customers("sized_customers");
    ds.put("publicSize", "declared:5000000");
    register(bob, ds);
    ObjectNode bad = customers("badly_sized");
    bad.put("publicSize", "huge");
    refused(400, bob.post("/v1/datasets", bad), "publicSize", "rounded, exact or declared:N");
    Client peerAtBob = parties.client(parties.bob, "Bearer " + parties.aliceToBob);
    assertEquals(
        "declared:5000000",
        peerAtBob.get("/v1/peer/datasets/sized_customers").json().path("publicSize").asText());
    assertEquals(
        "rounded", peerAtBob.get("/v1/peer/datasets/customers").json().path("publicSize").asText());

    ObjectNode q = sqlQuery(GOOD_SQL);
    q.put("peerDataset", "sized_customers");
    String id = submit(alice, q);
    // at bob, the approver: the peer (alice, A) gets bob's email and country of matching rows
    JsonNode d = bob.get("/v1/queries/" + id).json().path("disclosure");
    JsonNode mine = d.path("peerLearnsAboutMine");
    assertEquals("declared:5000000", mine.path("size").path("policy").asText(), d.toString());
    assertEquals("[\"email\"]", mine.path("columns").toString()); // country is only in WHERE
    assertEquals("keys", mine.path("intersection").asText());
    JsonNode theirs = d.path("iLearnAboutPeer");
    assertEquals("rounded", theirs.path("size").path("policy").asText());
    assertEquals("[]", theirs.path("columns").toString());
    assertTrue(d.path("summary").asText().contains("the columns [email]"), d.toString());
    // at alice the same from the other side
    JsonNode da = alice.get("/v1/queries/" + id).json().path("disclosure");
    assertEquals(mine, da.path("iLearnAboutPeer"));
    assertEquals(theirs, da.path("peerLearnsAboutMine"));
  }

  // ------------------------------------------------------------------ approval flow

  @Test
  void approvalCreatesTheSameSessionOnBothSides() throws Exception {
    String id = submit(alice, sqlQuery(GOOD_SQL));
    Reply atAlice = alice.get("/v1/queries/" + id);
    assertEquals("outgoing", atAlice.json().path("direction").asText());
    assertEquals("pending", atAlice.json().path("status").asText());
    Reply atBob = bob.get("/v1/queries/" + id);
    assertEquals(200, atBob.status(), atBob.toString());
    assertEquals("incoming", atBob.json().path("direction").asText());
    assertEquals("B", atBob.json().path("localSide").asText());
    assertEquals(atAlice.json().path("fingerprint"), atBob.json().path("fingerprint"));
    assertTrue(bob.get("/v1/queries?status=pending").raw().contains(id));
    assertTrue(
        alice.get("/v1/sessions").json().path("sessions").toString().indexOf(id) < 0,
        "no session before approval");

    refused(409, alice.post("/v1/queries/" + id + "/approve", "{}"), "bob decides");

    Reply approved = bob.post("/v1/queries/" + id + "/approve", Map.of("reason", "ok by legal"));
    assertEquals(200, approved.status(), approved.toString());
    assertEquals("approved", approved.json().path("status").asText());
    JsonNode session = approved.json().path("session");
    assertEquals(id, session.path("queryId").asText());
    assertEquals("alice", session.path("partyA").asText());
    assertEquals("bob", session.path("partyB").asText());
    assertEquals("kkrt", session.path("protocol").asText());
    assertEquals(40, session.path("sigma").asInt());
    assertEquals(parties.aliceConfig.bridge().endpoint(), session.path("aEndpoint").asText());
    assertEquals(parties.bobConfig.bridge().endpoint(), session.path("bEndpoint").asText());
    assertEquals(
        sha256(parties.dir.resolve("pki/alice.pem")), session.path("aFingerprint").asText());
    assertEquals(sha256(parties.dir.resolve("pki/bob.pem")), session.path("bFingerprint").asText());
    for (String secret : List.of("key", "seed", "prf", "secret")) {
      session.fieldNames().forEachRemaining(f -> assertFalse(f.toLowerCase().contains(secret), f));
    }

    Reply a = alice.get("/v1/queries/" + id);
    assertEquals("approved", a.json().path("status").asText(), a.toString());
    assertEquals(session, a.json().path("session"));
    assertEquals("bob", a.json().path("approval").path("decidedBy").asText());
    assertEquals("ok by legal", a.json().path("approval").path("reason").asText());
    String sid = session.path("id").asText();
    assertEquals(session, alice.get("/v1/sessions/" + sid).json());
    assertEquals(session, bob.get("/v1/sessions/" + sid).json());
    assertTrue(alice.get("/v1/sessions").raw().contains(sid));
    refused(404, alice.get("/v1/sessions/nope"), "nope");

    refused(409, bob.post("/v1/queries/" + id + "/approve", "{}"), "approved, not pending");
    refused(409, bob.post("/v1/queries/" + id + "/reject", "{}"), "approved, not pending");
    refused(404, bob.post("/v1/queries/no-such-id/approve", "{}"), "no-such-id");

    List<String> aliceLog = actions(alice);
    assertTrue(aliceLog.contains("query.submitted " + id), aliceLog.toString());
    assertTrue(aliceLog.contains("query.approved " + id), aliceLog.toString());
    assertTrue(aliceLog.contains("session.created " + sid), aliceLog.toString());
    List<String> bobLog = actions(bob);
    assertTrue(bobLog.contains("query.received " + id), bobLog.toString());
    assertTrue(bobLog.contains("query.approved " + id), bobLog.toString());
    assertTrue(bobLog.contains("session.created " + sid), bobLog.toString());
  }

  @Test
  void aJdbcPasswordIsNeverShownByTheApiOrTheAuditLog() {
    String name = "crm" + SEQ.incrementAndGet();
    ObjectNode d =
        dataset(
            name,
            "jdbc:postgresql://db.internal:5432/crm?table=people&user=psi"
                + "&password=s3cret-pw&sslpassword=k3y-pw",
            "csv",
            List.of(column("card", "STRING"), column("email", "STRING")),
            List.of("card"),
            List.of("email"),
            List.of());
    d.put("format", "csv");
    Reply r = alice.post("/v1/datasets", d);
    assertEquals(201, r.status(), r.toString());
    List<Reply> shown =
        List.of(
            r,
            alice.get("/v1/datasets"),
            alice.get("/v1/datasets/" + name),
            alice.delete("/v1/datasets/" + name),
            alice.get("/v1/datasets?includeRetired=true"),
            alice.get("/v1/audit"),
            bob.get("/v1/peer/datasets/" + name),
            parties.client(parties.bob, "Bearer " + parties.aliceToBob).get("/v1/peer/datasets"));
    for (Reply x : shown) {
      assertFalse(x.raw().contains("s3cret-pw") || x.raw().contains("k3y-pw"), x.toString());
    }
    assertEquals(
        "jdbc:postgresql://db.internal:5432/crm?table=people&user=psi&password=***"
            + "&sslpassword=***",
        r.json().path("location").asText());
  }

  /** The audit detail of {@code action} on {@code objectId} (the last such entry). */
  static String auditDetail(Client c, String action, String objectId) {
    String found = null;
    for (JsonNode e : c.get("/v1/audit").json().path("entries")) {
      if (e.path("action").asText().equals(action)
          && e.path("objectId").asText().equals(objectId)) {
        found = e.path("detail").asText();
      }
    }
    assertTrue(found != null, action + " " + objectId + " is not in the audit log");
    return found;
  }

  @Test
  void theAuditNamesThePrincipalWhoApprovedRejectedOrCancelled() throws Exception {
    String approvedId = submit(alice, sqlQuery(GOOD_SQL));
    Reply r = bob.post("/v1/queries/" + approvedId + "/approve", Map.of("reason", "ok"));
    assertEquals(200, r.status(), r.toString());
    JsonNode d = Client.JSON.readTree(auditDetail(bob, "query.approved", approvedId));
    assertEquals("bob-analyst", d.path("principal").asText(), d.toString());
    assertEquals("ok", d.path("reason").asText(), d.toString());
    // the principal is bob's business: alice records bob's decision as the party's
    assertFalse(alice.get("/v1/audit").raw().contains("bob-analyst"));
    assertEquals(
        "bob",
        alice.get("/v1/queries/" + approvedId).json().path("approval").path("decidedBy").asText());

    String rejectedId = submit(alice, sqlQuery(GOOD_SQL));
    assertEquals(200, bob.post("/v1/queries/" + rejectedId + "/reject", "{}").status());
    d = Client.JSON.readTree(auditDetail(bob, "query.rejected", rejectedId));
    assertEquals("bob-analyst", d.path("principal").asText(), d.toString());

    String sid = r.json().path("session").path("id").asText();
    assertEquals(200, alice.post("/v1/sessions/" + sid + "/cancel", "{}").status());
    d = Client.JSON.readTree(auditDetail(alice, "job.cancelled", sid));
    assertEquals("alice-analyst", d.path("principal").asText(), d.toString());
  }

  /** Submits the good query at alice, approves it at bob; returns the session id. */
  String approvedSession() {
    String id = submit(alice, sqlQuery(GOOD_SQL));
    Reply approved = bob.post("/v1/queries/" + id + "/approve", "{}");
    assertEquals(200, approved.status(), approved.toString());
    return approved.json().path("session").path("id").asText();
  }

  /**
   * A session that failed at both parties is resumed from either: both create it again (audited),
   * to launch with --resume; a session not failed at both is refused, naming where it stands.
   */
  @Test
  void aFailedSessionIsResumedAtBothPartiesAndOnlyAFailedOne() throws Exception {
    String sid = approvedSession();
    refused(409, bob.post("/v1/sessions/" + sid + "/resume", "{}"), "only a failed session");
    Client bobAsPeer = parties.client(parties.alice, "Bearer " + parties.bobToAlice);
    Client aliceAsPeer = parties.client(parties.bob, "Bearer " + parties.aliceToBob);
    String abort = "{\"category\":\"protocol_error\"}";
    assertEquals(200, bobAsPeer.post("/v1/peer/sessions/" + sid + "/abort", abort).status());
    // failed at alice only: bob's side (created) is not resumed, and says where it stands
    refused(
        409, alice.post("/v1/sessions/" + sid + "/resume", "{}"), "the session is created there");
    assertEquals(200, aliceAsPeer.post("/v1/peer/sessions/" + sid + "/abort", abort).status());
    assertEquals("failed", alice.get("/v1/sessions/" + sid).json().path("status").asText());

    Reply r = bob.post("/v1/sessions/" + sid + "/resume", "{}");
    assertEquals(200, r.status(), r.toString());
    for (Client c : List.of(alice, bob)) {
      JsonNode s = c.get("/v1/sessions/" + sid).json();
      assertEquals("created", s.path("status").asText(), s.toString());
      for (String f : List.of("error", "result", "startedAt", "endedAt")) {
        assertTrue(s.path(f).isNull(), f + " in " + s);
      }
      assertTrue(actions(c).contains("session.resumed " + sid), actions(c).toString());
      assertEquals(1, s.path("resumes").asInt(), s.toString());
    }
    assertTrue(auditDetail(bob, "session.resumed", sid).contains("resume 1"));
    // a repeated call from the peer is answered alike; a peer token cannot resume for a party
    assertEquals(200, aliceAsPeer.post("/v1/peer/sessions/" + sid + "/resume", "{}").status());
    refused(403, aliceAsPeer.post("/v1/sessions/" + sid + "/resume", "{}"), "peer");
    refused(404, alice.post("/v1/sessions/nope/resume", "{}"), "nope");

    // cancelled on purpose: not resumed, at either party
    assertEquals(200, alice.post("/v1/sessions/" + sid + "/cancel", "{}").status());
    refused(409, alice.post("/v1/sessions/" + sid + "/resume", "{}"), "is cancelled");
    refused(
        409, bob.post("/v1/sessions/" + sid + "/resume", "{}"), "the session is cancelled there");
  }

  @Test
  void cancellingASessionEndsItAtBothParties() throws Exception {
    // no job section in this configuration: sessions stay created (JobLaunchTest runs jobs)
    String sid = approvedSession();
    JsonNode s = alice.get("/v1/sessions/" + sid).json();
    assertEquals("created", s.path("status").asText(), s.toString());
    for (String f : List.of("progress", "error", "result", "startedAt", "endedAt")) {
      assertTrue(s.has(f) && s.path(f).isNull(), f + " in " + s);
    }
    refused(409, alice.get("/v1/sessions/" + sid + "/result"), "is created");
    refused(404, bob.get("/v1/sessions/" + sid + "/result"), "party B receives no rows");

    Reply c = alice.post("/v1/sessions/" + sid + "/cancel", "{}");
    assertEquals(200, c.status(), c.toString());
    assertEquals("cancelled", c.json().path("status").asText());
    assertTrue(c.json().path("endedAt").asLong() > 0, c.toString());
    assertTrue(c.json().path("error").isNull(), c.toString());
    JsonNode b = bob.get("/v1/sessions/" + sid).json();
    assertEquals("failed", b.path("status").asText(), b.toString());
    assertTrue(
        b.path("error").asText().contains("alice ended the session: cancelled"), b.toString());

    refused(409, alice.post("/v1/sessions/" + sid + "/cancel", "{}"), "already ended: cancelled");
    refused(409, bob.post("/v1/sessions/" + sid + "/cancel", "{}"), "already ended: failed");
    refused(409, alice.get("/v1/sessions/" + sid + "/result"), "was cancelled");
    refused(404, alice.post("/v1/sessions/nope/cancel", "{}"), "nope");
    refused(
        403,
        parties
            .client(parties.bob, "Bearer " + parties.aliceToBob)
            .post("/v1/sessions/" + sid + "/cancel", "{}"),
        "peer");
    refused(403, bob.post("/v1/peer/sessions/" + sid + "/abort", "{}"), "peer coordinator");
    assertTrue(actions(alice).contains("job.cancelled " + sid), actions(alice).toString());
    assertTrue(actions(bob).contains("session.aborted_by_peer " + sid), actions(bob).toString());
  }

  @Test
  void aJobsProgressAndResultAreStoredAndServed() throws Exception {
    // the launcher's writes, straight through the store (the launch itself: JobLaunchTest)
    String sid = approvedSession();
    Db db = parties.alice.db();
    assertTrue((boolean) db.tx(c -> Store.startSession(c, sid, 1000L)));
    assertFalse((boolean) db.tx(c -> Store.startSession(c, sid, 1001L)), "started once");
    assertTrue(
        (boolean) db.tx(c -> Store.progress(c, sid, new Model.Progress(Model.Phase.PSI, 3, 8L))));
    JsonNode s = alice.get("/v1/sessions/" + sid).json();
    assertEquals("running", s.path("status").asText());
    assertEquals(
        Client.JSON.readTree("{\"phase\":\"psi\",\"binsDone\":3,\"binsTotal\":8}"),
        s.path("progress"));
    assertEquals(1000L, s.path("startedAt").asLong());
    refused(409, alice.get("/v1/sessions/" + sid + "/result"), "is running");

    assertTrue(
        (boolean)
            db.tx(
                c ->
                    Store.endSession(
                        c,
                        sid,
                        Model.SessionStatus.SUCCEEDED,
                        null,
                        new Model.Progress(Model.Phase.DONE, 8, 8L),
                        new Model.Result("/out/joined", io.psiflink.api.OutputFormat.AVRO, 42L),
                        "{\"rows_out\":42}",
                        2000L)));
    assertFalse(
        (boolean) db.tx(c -> Store.progress(c, sid, new Model.Progress(Model.Phase.PSI, 4, 8L))),
        "no progress after the end");
    assertFalse(
        (boolean)
            db.tx(
                c ->
                    Store.endSession(
                        c, sid, Model.SessionStatus.FAILED, "late", null, null, null, 3000L)),
        "ended once");
    s = alice.get("/v1/sessions/" + sid).json();
    assertEquals("succeeded", s.path("status").asText());
    assertEquals("done", s.path("progress").path("phase").asText());
    assertEquals(8, s.path("progress").path("binsDone").asLong());
    assertEquals(
        Client.JSON.readTree("{\"location\":\"/out/joined\",\"format\":\"avro\",\"rowsOut\":42}"),
        s.path("result"));
    assertEquals(2000L, s.path("endedAt").asLong());
    assertTrue(s.path("error").isNull());
    Reply r = alice.get("/v1/sessions/" + sid + "/result");
    assertEquals(200, r.status(), r.toString());
    assertEquals("/out/joined", r.json().path("location").asText());
    assertEquals(42, r.json().path("rowsOut").asLong());
    assertEquals(42, r.json().path("summary").path("rows_out").asLong());
    // GET /v1/queries/{id} embeds the same session
    assertEquals(s, alice.get("/v1/queries/" + s.path("queryId").asText()).json().path("session"));
  }

  @Test
  void outputOfAQueryIsCheckedAndKept() {
    ObjectNode q = sqlQuery(GOOD_SQL);
    q.putObject("output").put("format", "parquet");
    refused(400, alice.post("/v1/queries", q), "output.format");
    q.putObject("output").put("location", "/data/out/x").put("format", "csv");
    String id = submit(alice, q);
    JsonNode out = alice.get("/v1/queries/" + id).json().path("output");
    assertEquals("/data/out/x", out.path("location").asText());
    assertEquals("csv", out.path("format").asText());
  }

  @Test
  void anOfferThePeerNeverReceivedFailsWhenThePollFindsNothing() throws Exception {
    // as if the offer's call timed out without reaching bob: pending here, unknown there
    long now = System.currentTimeMillis();
    Model.QueryRecord lost =
        offer(
            java.util.UUID.randomUUID().toString(),
            now - Offers.UNDELIVERED_AFTER.toMillis() - 1000);
    Model.QueryRecord inFlight = offer(java.util.UUID.randomUUID().toString(), now);
    parties.alice.sweepNow();
    JsonNode q = alice.get("/v1/queries/" + lost.id()).json();
    assertEquals("failed", q.path("status").asText(), q.toString());
    assertTrue(q.path("statusReason").asText().contains("never delivered"), q.toString());
    assertTrue(actions(alice).contains("query.undelivered " + lost.id()));
    // a recent offer may still be on its way: it stays pending
    assertEquals(
        "pending", alice.get("/v1/queries/" + inFlight.id()).json().path("status").asText());
  }

  private Model.QueryRecord offer(String id, long createdAt) {
    Model.QueryRecord q =
        new Model.QueryRecord(
            id,
            Model.Direction.OUTGOING,
            "alice",
            "bob",
            io.psiflink.api.Role.A,
            "purchases",
            "customers",
            GOOD_SQL,
            "f",
            0,
            40,
            "kkrt",
            io.psiflink.api.JoinMode.BOTH,
            null,
            Model.Prefiltering.NONE,
            "alice.example:7443",
            "fp",
            Model.QueryStatus.PENDING,
            null,
            createdAt,
            createdAt + 3_600_000,
            null,
            null);
    parties
        .alice
        .db()
        .tx(
            c -> {
              Store.insertQuery(c, q);
              return null;
            });
    return q;
  }

  @Test
  void rejectionIsRecordedOnBothSides() throws Exception {
    ObjectNode q = sqlQuery("SELECT b.country, a.spend FROM a JOIN b ON a.card = b.card");
    q.put("bins", 64);
    q.put("protocol", "ecdh"); // offered by both in this test's configuration
    String id = submit(alice, q);
    Reply r = bob.post("/v1/queries/" + id + "/reject", Map.of("reason", "too broad"));
    assertEquals(200, r.status(), r.toString());
    assertEquals("rejected", r.json().path("status").asText());
    assertTrue(r.json().path("session").isNull());
    Reply a = alice.get("/v1/queries/" + id);
    assertEquals("rejected", a.json().path("status").asText());
    assertEquals("too broad", a.json().path("statusReason").asText());
    assertEquals("rejected", a.json().path("approval").path("decision").asText());
    assertTrue(a.json().path("session").isNull());
    assertFalse(alice.get("/v1/sessions").raw().contains(id));
    assertTrue(actions(alice).contains("query.rejected " + id));
    assertTrue(actions(bob).contains("query.rejected " + id));
    // the decision callback is idempotent
    Client peerAtAlice = parties.client(parties.alice, "Bearer " + parties.bobToAlice);
    assertEquals(
        200,
        peerAtAlice
            .post("/v1/peer/queries/" + id + "/decision", Map.of("decision", "rejected"))
            .status());
    refused(
        409,
        peerAtAlice.post("/v1/peer/queries/" + id + "/decision", Map.of("decision", "expired")),
        "already rejected");
    refused(
        400,
        peerAtAlice.post("/v1/peer/queries/" + id + "/decision", Map.of("decision", "maybe")),
        "decision");
  }

  @Test
  void pendingQueriesExpire() throws Exception {
    try (Parties p = startParties("ttl" + SEQ.incrementAndGet(), Duration.ofMillis(1500))) {
      Client a = p.aliceApi();
      Client b = p.bobApi();
      register(a, purchases("purchases"));
      register(b, customers("customers"));
      String late = submit(a, sqlQuery(GOOD_SQL));
      String swept = submit(a, sqlQuery(GOOD_SQL));
      Thread.sleep(1700);
      refused(409, b.post("/v1/queries/" + late + "/approve", "{}"), "expired");
      assertEquals("expired", b.get("/v1/queries/" + late).json().path("status").asText());
      p.alice.sweepNow();
      p.bob.sweepNow();
      for (Client c : List.of(a, b)) {
        for (String id : List.of(late, swept)) {
          Reply r = c.get("/v1/queries/" + id);
          assertEquals("expired", r.json().path("status").asText(), r.toString());
          assertEquals("expired", r.json().path("approval").path("decision").asText());
          assertTrue(actions(c).contains("query.expired " + id));
        }
        assertEquals(0, c.get("/v1/sessions").json().path("sessions").size());
      }
      refused(409, b.post("/v1/queries/" + swept + "/approve", "{}"), "expired");
    }
  }

  @Test
  void aLostDecisionIsLearnedByPolling() throws Exception {
    try (Parties p = startParties("poll" + SEQ.incrementAndGet(), Duration.ofHours(1))) {
      register(p.aliceApi(), purchases("purchases"));
      register(p.bobApi(), customers("customers"));
      String id = submit(p.aliceApi(), sqlQuery(GOOD_SQL));
      p.stopAlice();
      // bob approves while alice's coordinator is down: the callback fails, the approval stands
      Reply r = p.bobApi().post("/v1/queries/" + id + "/approve", "{}");
      assertEquals(200, r.status(), r.toString());
      assertTrue(actions(p.bobApi()).contains("peer.notify_failed " + id));
      p.startAlice();
      assertEquals(
          "pending",
          p.aliceApi().get("/v1/queries/" + id).json().path("status").asText(),
          "the state survived the restart");
      p.alice.sweepNow();
      Reply a = p.aliceApi().get("/v1/queries/" + id);
      assertEquals("approved", a.json().path("status").asText(), a.toString());
      assertEquals(r.json().path("session"), a.json().path("session"));
    }
  }

  @Test
  void theSweeperExpiresQueriesByItself() throws Exception {
    Path home = dir.resolve("sweep" + SEQ.incrementAndGet());
    try (Parties p =
        new Parties(
            home,
            party -> {
              try {
                return databaseUrl(party + "_" + home.getFileName());
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            Duration.ofMillis(800),
            Duration.ofMillis(200))) {
      register(p.aliceApi(), purchases("purchases"));
      register(p.bobApi(), customers("customers"));
      String id = submit(p.aliceApi(), sqlQuery(GOOD_SQL));
      long deadline = System.currentTimeMillis() + 20_000;
      while (System.currentTimeMillis() < deadline
          && !(status(p.aliceApi(), id).equals("expired")
              && status(p.bobApi(), id).equals("expired"))) {
        Thread.sleep(100);
      }
      assertEquals("expired", status(p.aliceApi(), id));
      assertEquals("expired", status(p.bobApi(), id));
    }
  }

  static String status(Client c, String id) {
    return c.get("/v1/queries/" + id).json().path("status").asText();
  }

  // ------------------------------------------------------------------ audit

  @Test
  void auditLogIsAppendOnly() throws Exception {
    register(alice, purchases("audited"));
    List<String> log = actions(alice);
    assertTrue(log.contains("dataset.registered audited"), log.toString());
    Reply page = alice.get("/v1/audit?after=0&limit=1");
    assertEquals(1, page.json().path("entries").size());
    long first = page.json().path("entries").get(0).path("seq").asLong();
    Reply next = alice.get("/v1/audit?after=" + first + "&limit=1");
    assertTrue(next.json().path("entries").get(0).path("seq").asLong() > first);
    refused(400, alice.get("/v1/audit?limit=0"), "limit");

    try (Connection c = parties.alice.db().connect();
        Statement s = c.createStatement()) {
      SQLException up =
          assertThrows(
              SQLException.class, () -> s.executeUpdate("UPDATE audit_log SET actor = 'mallory'"));
      assertTrue(up.getMessage().contains("append-only"), up.getMessage());
      SQLException del =
          assertThrows(SQLException.class, () -> s.executeUpdate("DELETE FROM audit_log"));
      assertTrue(del.getMessage().contains("append-only"), del.getMessage());
      if (!parties.alice.db().isSqlite()) {
        SQLException trunc =
            assertThrows(SQLException.class, () -> s.executeUpdate("TRUNCATE audit_log"));
        assertTrue(trunc.getMessage().contains("append-only"), trunc.getMessage());
      }
    }
    assertEquals(log, actions(alice).subList(0, log.size()), "earlier entries unchanged");
  }

  @Test
  void unknownRoutesAndMethods() {
    refused(404, alice.get("/v1/nothing"), "no such endpoint");
    refused(405, alice.delete("/v1/queries"), "not allowed");
  }

  static String sha256(Path pem) throws Exception {
    try (var in = Files.newInputStream(pem)) {
      X509Certificate c =
          (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(c.getEncoded()));
    }
  }
}
