package io.psiflink.it.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psiflink.coordinator.Client;
import io.psiflink.coordinator.Client.Reply;
import io.psiflink.coordinator.CoordinatorConfig;
import io.psiflink.coordinator.Parties;
import io.psiflink.it.JoinTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * End to end: two real coordinators (SQLite) on loopback over HTTPS, alice's running the bridge
 * relay; a query submitted at alice (party A) and approved at bob runs both parties' jobs (each a
 * child JVM with its own Flink MiniCluster) over the real bridge with TLS. The joined rows must
 * equal the plaintext join of the same data, computed here in plain Java. Then a cancel, and a job
 * that fails.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JobLaunchTest {
  private static final Duration JOB_TIMEOUT = Duration.ofSeconds(240);

  Path dir;
  Parties parties;
  Client alice;
  Client bob;
  JoinTables tables;

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory("psi-launch-test-");
    // the template's key paths are replaced per party by Parties; generous timeouts, as the two
    // jobs may start far apart on a loaded machine (cancel and failure do not wait for them: the
    // coordinators tell each other)
    CoordinatorConfig.Job job =
        JoinTables.embeddedJob(dir, "768m", 2, Duration.ofSeconds(90), null, null);
    parties =
        new Parties(
            dir.resolve("parties"),
            party -> "jdbc:sqlite:" + dir.resolve(party + ".db"),
            Duration.ofHours(1),
            Duration.ofHours(1),
            job);
    alice = parties.aliceApi();
    bob = parties.bobApi();
    tables = new JoinTables(dir);
    tables.register(alice, bob);
  }

  @AfterAll
  void stop() throws Exception {
    if (parties != null) {
      parties.close();
    }
  }

  @Test
  void submittedAtAApprovedAtBRunsAndEqualsThePlaintextJoin() throws Exception {
    Path out = dir.resolve("joined");
    String session =
        JoinTables.submitAndApprove(alice, bob, "purchases", "customers", out.toString());
    List<String> seenA = new ArrayList<>();
    JsonNode a = JoinTables.awaitEnd(alice, session, seenA, JOB_TIMEOUT, () -> "");
    JsonNode b = JoinTables.awaitEnd(bob, session, new ArrayList<>(), JOB_TIMEOUT, () -> "");
    assertEquals("succeeded", a.path("status").asText(), a + " seen " + seenA);
    assertEquals("succeeded", b.path("status").asText(), b.toString());
    assertTrue(a.path("error").isNull());
    JoinTables.assertProgressFromFlink(a, seenA);
    assertTrue(
        a.path("startedAt").asLong() > 0
            && a.path("endedAt").asLong() >= a.path("startedAt").asLong(),
        a.toString());

    List<String> expected = tables.assertOutputIsThePlaintextJoin(out);

    Reply result = alice.get("/v1/sessions/" + session + "/result");
    assertEquals(200, result.status(), result.toString());
    assertEquals(out.toString(), result.json().path("location").asText());
    assertEquals("csv", result.json().path("format").asText());
    assertEquals(expected.size(), result.json().path("rowsOut").asLong());
    assertEquals(expected.size(), result.json().path("summary").path("rows_out").asLong());
    tables.assertCountsOfA(result.json().path("summary"));
    assertEquals(
        a.path("result"),
        Client.JSON.valueToTree(
            Map.of("location", out.toString(), "format", "csv", "rowsOut", expected.size())));
    assertTrue(b.path("result").isNull());
    Reply atB = bob.get("/v1/sessions/" + session + "/result");
    assertEquals(404, atB.status(), atB.toString());
    assertTrue(atB.error().contains("party B receives no rows"), atB.error());

    // the query view embeds the same session
    String queryId = a.path("queryId").asText();
    assertEquals(a, alice.get("/v1/queries/" + queryId).json().path("session"));
    assertEquals(
        List.of("session.created", "job.started", "job.succeeded", "result.written"),
        JoinTables.auditActions(alice, session));
    assertEquals(
        List.of("session.created", "job.started", "job.succeeded"),
        JoinTables.auditActions(bob, session));
    Reply again = alice.post("/v1/sessions/" + session + "/cancel", "{}");
    assertEquals(409, again.status(), again.toString());
    assertTrue(again.error().contains("already ended: succeeded"), again.error());
  }

  @Test
  void aLabeledQueryRunsBothJobsInModeLabeledAndEqualsThePlaintextJoin() throws Exception {
    Path out = dir.resolve("joined-labeled");
    ObjectNode q = Client.JSON.createObjectNode();
    q.put("localDataset", "purchases");
    q.put("peerDataset", "customers");
    q.put("sql", JoinTables.SQL);
    q.put("mode", "labeled");
    q.put("labelBytes", 1024); // the fixture's rows of one key fit
    q.put("protocol", "rr22");
    q.putObject("output").put("location", out.toString()).put("format", "csv");
    Reply submitted = alice.post("/v1/queries", q);
    assertEquals(201, submitted.status(), submitted.toString());
    String id = submitted.json().path("id").asText();
    Reply approved = bob.post("/v1/queries/" + id + "/approve", "{}");
    assertEquals(200, approved.status(), approved.toString());
    String session = approved.json().path("session").path("id").asText();
    JsonNode a = JoinTables.awaitEnd(alice, session, new ArrayList<>(), JOB_TIMEOUT, () -> "");
    JsonNode b = JoinTables.awaitEnd(bob, session, new ArrayList<>(), JOB_TIMEOUT, () -> "");
    assertEquals("succeeded", a.path("status").asText(), a.toString());
    assertEquals("succeeded", b.path("status").asText(), b.toString());
    assertEquals("labeled", a.path("mode").asText(), a.toString());
    // A's rows are the plaintext join's, as in mode both
    tables.assertOutputIsThePlaintextJoin(out);
    // both jobs were launched in mode labeled; B's records hold no intersection size
    for (Client c : List.of(alice, bob)) {
      assertEquals(
          "labeled",
          Client.JSON.readTree(audit(c, "job.started", session)).path("joinMode").asText());
    }
    JsonNode atB = Client.JSON.readTree(audit(bob, "job.succeeded", session));
    assertTrue(!atB.has("intersectingKeys"), atB.toString());
    JsonNode atA = Client.JSON.readTree(audit(alice, "job.succeeded", session));
    assertTrue(atA.path("intersectingKeys").asLong() > 0, atA.toString());
  }

  /** The detail of {@code action} on {@code objectId} in {@code c}'s audit log. */
  private static String audit(Client c, String action, String objectId) {
    for (JsonNode e : c.get("/v1/audit").json().path("entries")) {
      if (e.path("action").asText().equals(action)
          && e.path("objectId").asText().equals(objectId)) {
        return e.path("detail").asText();
      }
    }
    throw new AssertionError("no " + action + " of " + objectId);
  }

  @Test
  void cancelAtAStopsBothJobsAndLeavesNoOutput() throws Exception {
    Path out = dir.resolve("cancelled");
    String session =
        JoinTables.submitAndApprove(alice, bob, "purchases", "customers", out.toString());
    assertEquals("running", alice.get("/v1/sessions/" + session).json().path("status").asText());
    Reply c = alice.post("/v1/sessions/" + session + "/cancel", "{}");
    assertEquals(200, c.status(), c.toString());
    assertEquals("cancelled", c.json().path("status").asText());
    assertTrue(c.json().path("endedAt").asLong() > 0);
    JsonNode b = JoinTables.awaitEnd(bob, session, new ArrayList<>(), JOB_TIMEOUT, () -> "");
    assertEquals("failed", b.path("status").asText(), b.toString());
    assertTrue(
        b.path("error").asText().contains("alice ended the session: cancelled"), b.toString());
    assertFalse(Files.exists(out), "no output after a cancel");
    Reply result = alice.get("/v1/sessions/" + session + "/result");
    assertEquals(409, result.status(), result.toString());
    assertTrue(result.error().contains("cancelled"), result.error());
    assertEquals(409, alice.post("/v1/sessions/" + session + "/cancel", "{}").status());
    assertTrue(
        JoinTables.auditActions(alice, session).contains("job.cancelled"),
        JoinTables.auditActions(alice, session).toString());
    assertTrue(JoinTables.auditActions(bob, session).contains("session.aborted_by_peer"));
  }

  @Test
  void aJobThatCannotReadItsTableFailsWithTheCauseAtBothParties() throws Exception {
    Path gone = dir.resolve("gone.csv");
    Files.copy(tables.a, gone);
    JoinTables.register(alice, "vanishing", gone, List.of("spend", "card"), List.of("spend"));
    Files.delete(gone);
    String session =
        JoinTables.submitAndApprove(
            alice, bob, "vanishing", "customers", dir.resolve("never").toString());
    JsonNode a = JoinTables.awaitEnd(alice, session, new ArrayList<>(), JOB_TIMEOUT, () -> "");
    assertEquals("failed", a.path("status").asText(), a.toString());
    String error = a.path("error").asText();
    assertTrue(error.contains("gone.csv"), error);
    assertTrue(a.path("result").isNull());
    JsonNode b = JoinTables.awaitEnd(bob, session, new ArrayList<>(), JOB_TIMEOUT, () -> "");
    assertEquals("failed", b.path("status").asText(), b.toString());
    // bob learns a category, not alice's explanation (which names her file)
    assertTrue(b.path("error").asText().contains("alice ended the session: "), b.toString());
    assertFalse(b.path("error").asText().contains("gone.csv"), b.toString());
    Reply result = alice.get("/v1/sessions/" + session + "/result");
    assertEquals(409, result.status());
    assertTrue(result.error().toLowerCase(Locale.ROOT).contains("failed"), result.error());
    assertNotNull(JoinTables.auditActions(alice, session));
    assertTrue(JoinTables.auditActions(alice, session).contains("job.failed"));
  }
}
