package io.psiflink.it.airflow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.psiflink.coordinator.Client;
import io.psiflink.coordinator.Client.Reply;
import io.psiflink.coordinator.CoordinatorConfig;
import io.psiflink.coordinator.Parties;
import io.psiflink.it.JoinTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * deploy/airflow's DAG, run by Apache Airflow from PyPI ({@code airflow dags test}) against two
 * running coordinators that launch the parties' jobs: the DAG submits at alice, bob decides, the
 * DAG waits and ends as the coordinators say.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AirflowDagIT {
  private static final String DAG = "psi_flink_private_join";

  private Path dir;
  private Parties parties;
  private Airflow airflow;
  private JoinTables tables;

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory("psi-airflow-it-");
    CoordinatorConfig.Job job =
        new CoordinatorConfig.Job(
            io.psiflink.coordinator.JobMode.EMBEDDED,
            "768m",
            1,
            null,
            null,
            dir.resolve("unused.key"),
            dir.resolve("unused.pem"),
            null,
            null,
            null,
            null,
            2,
            Duration.ofSeconds(90),
            Duration.ofSeconds(90),
            JoinTables.MAX_BAD_ROWS,
            JoinTables.jobClasspath());
    parties =
        new Parties(
            dir.resolve("parties"),
            p -> "jdbc:sqlite:" + dir.resolve(p + ".db"),
            Duration.ofHours(1),
            Duration.ofSeconds(1),
            job);
    tables = new JoinTables(dir);
    tables.register(parties.aliceApi(), parties.bobApi());
    airflow = Airflow.install(dir.resolve("airflow-home"));
  }

  @AfterAll
  void stop() throws Exception {
    if (parties != null) {
      parties.close();
    }
  }

  private Airflow.Run runDag(String sql, Path out) throws Exception {
    return runDag(sql, out, Map.of());
  }

  private Airflow.Run runDag(String sql, Path out, Map<String, Object> more) throws Exception {
    Map<String, Object> params =
        new HashMap<>(
            Map.of("local_dataset", "purchases", "peer_dataset", "customers", "sql", sql));
    params.putAll(more);
    if (out != null) {
      params.put("output_location", out.toString());
      params.put("output_format", "csv");
    }
    String conf = Client.JSON.writeValueAsString(params);
    return airflow.dagsTest(
        DAG,
        conf,
        "https://localhost:" + parties.alice.port(),
        parties.aliceToken,
        parties.pki.caCertificate(),
        Map.of("PSI_FLINK_POKE_SECONDS", "1"));
  }

  /** Waits for the one pending query at bob and returns its id. */
  private String pendingAtBob() throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    while (System.nanoTime() < deadline) {
      Reply r = parties.bobApi().get("/v1/queries?status=pending");
      assertEquals(200, r.status(), r.toString());
      for (JsonNode q : r.json().path("queries")) {
        return q.path("id").asText();
      }
      Thread.sleep(200);
    }
    throw new AssertionError("no query reached bob");
  }

  private CompletableFuture<Airflow.Run> startDag(String sql, Path out) {
    return startDag(sql, out, Map.of());
  }

  private CompletableFuture<Airflow.Run> startDag(String sql, Path out, Map<String, Object> more) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return runDag(sql, out, more);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  @Test
  void anApprovedJoinRunsToTheEndAndItsRowsEqualThePlaintextJoin() throws Exception {
    Path out = dir.resolve("joined");
    CompletableFuture<Airflow.Run> dag = startDag(JoinTables.SQL, out);
    String id = pendingAtBob();
    Reply r = parties.bobApi().post("/v1/queries/" + id + "/approve", "{}");
    assertEquals(200, r.status(), r.toString());
    Airflow.Run run = dag.get();
    assertEquals(0, run.exit(), Airflow.tail(run.log()));
    List<String> expected = tables.assertOutputIsThePlaintextJoin(out);
    // the sensor logged the coordinator's result
    assertTrue(
        run.log().contains("succeeded: " + expected.size() + " rows at " + out),
        Airflow.tail(run.log()));
  }

  @Test
  void rejectionFailsTheDagWithTheApproversReason() throws Exception {
    CompletableFuture<Airflow.Run> dag = startDag(JoinTables.SQL, null);
    String id = pendingAtBob();
    Reply r =
        parties
            .bobApi()
            .post("/v1/queries/" + id + "/reject", Map.of("reason", "not before the audit"));
    assertEquals(200, r.status(), r.toString());
    Airflow.Run run = dag.get();
    assertNotEquals(0, run.exit(), Airflow.tail(run.log()));
    assertTrue(
        run.log().contains("query " + id + " was rejected")
            && run.log().contains("not before the audit"),
        Airflow.tail(run.log()));
    // no retries: a rejection is final
    assertTrue(!run.log().contains("up_for_retry"), Airflow.tail(run.log()));
  }

  @Test
  void theDagSubmitsInModeLabeledAndTheApproverIsShownWhatEachPartyLearns() throws Exception {
    CompletableFuture<Airflow.Run> dag =
        startDag(
            JoinTables.SQL,
            null,
            Map.of("mode", "labeled", "label_bytes", 512, "protocol", "rr22"));
    String id = pendingAtBob();
    JsonNode q = parties.bobApi().get("/v1/queries/" + id).json();
    assertEquals("labeled", q.path("mode").asText(), q.toString());
    assertEquals(512, q.path("labelBytes").asInt(), q.toString());
    assertTrue(
        q.path("disclosure").path("modeText").asText().contains("a label of 512 bytes"),
        q.toString());
    assertEquals(
        "none", q.path("disclosure").path("iLearnAboutPeer").path("intersection").asText());
    Reply r =
        parties
            .bobApi()
            .post("/v1/queries/" + id + "/reject", Map.of("reason", "labels too small"));
    assertEquals(200, r.status(), r.toString());
    Airflow.Run run = dag.get();
    assertNotEquals(0, run.exit(), Airflow.tail(run.log()));
    assertTrue(
        run.log().contains("(mode labeled, labels of 512 bytes)")
            && run.log().contains("labels too small"),
        Airflow.tail(run.log()));
  }

  @Test
  void aLabelSizeWithoutModeLabeledFailsAtSubmitWithTheCoordinatorsError() throws Exception {
    Airflow.Run run = runDag(JoinTables.SQL, null, Map.of("label_bytes", 512));
    assertNotEquals(0, run.exit(), Airflow.tail(run.log()));
    assertTrue(
        run.log().contains("coordinator answered 400")
            && run.log().contains("labelBytes")
            && run.log().contains("mode is both"),
        Airflow.tail(run.log()));
    assertTrue(!run.log().contains("up_for_retry"), Airflow.tail(run.log()));
  }

  @Test
  void theOperatorsUnitTestsPass() throws Exception {
    Airflow.Run run = airflow.unitTests();
    assertEquals(0, run.exit(), Airflow.tail(run.log()));
    assertTrue(run.log().contains("OK"), Airflow.tail(run.log()));
  }

  @Test
  void invalidQueryFailsAtSubmitWithTheCoordinatorsError() throws Exception {
    // bob lets alice filter on country, not see it
    Airflow.Run run =
        runDag(
            "SELECT a.spend, b.country FROM a JOIN b ON a.card = b.card AND a.zip = b.zip", null);
    assertNotEquals(0, run.exit(), Airflow.tail(run.log()));
    assertTrue(
        run.log().contains("coordinator answered 422") && run.log().contains("country"),
        Airflow.tail(run.log()));
    assertTrue(!run.log().contains("up_for_retry"), Airflow.tail(run.log()));
  }
}
