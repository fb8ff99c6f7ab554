package io.psiflink.coordinator;

import static io.psiflink.coordinator.CoordinatorApiContract.customers;
import static io.psiflink.coordinator.CoordinatorApiContract.purchases;
import static io.psiflink.coordinator.CoordinatorApiContract.register;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.psiflink.coordinator.Client.Reply;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * deploy/airflow's DAG, run by Apache Airflow from PyPI ({@code airflow dags test}) against two
 * running coordinators: the DAG submits at alice, bob decides, the DAG waits and ends as the
 * coordinators say.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AirflowDagIT {
  private static final String DAG = "psi_flink_private_join";

  private Path dir;
  private Parties parties;
  private Airflow airflow;

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory("psi-airflow-it-");
    parties = new Parties(dir.resolve("parties"), p -> "jdbc:sqlite:" + dir.resolve(p + ".db"),
        Duration.ofHours(1), Duration.ofSeconds(1));
    register(parties.aliceApi(), purchases("purchases"));
    register(parties.bobApi(), customers("customers"));
    airflow = Airflow.install(dir.resolve("airflow-home"));
  }

  @AfterAll
  void stop() throws Exception {
    if (parties != null) {
      parties.close();
    }
  }

  private Airflow.Run runDag(String sql) throws Exception {
    String conf = Client.JSON.writeValueAsString(Map.of("local_dataset", "purchases",
        "peer_dataset", "customers", "sql", sql));
    return airflow.dagsTest(DAG, conf, "https://localhost:" + parties.alice.port(),
        parties.aliceToken, parties.pki.caCertificate(), Map.of("PSI_FLINK_POKE_SECONDS", "1"));
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

  @Test
  void rejectionFailsTheDagWithTheApproversReason() throws Exception {
    CompletableFuture<Airflow.Run> dag = CompletableFuture.supplyAsync(() -> {
      try {
        return runDag("SELECT b.email, a.spend FROM a JOIN b ON a.card = b.card AND a.zip = b.zip");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    String id = pendingAtBob();
    Reply r = parties.bobApi().post("/v1/queries/" + id + "/reject",
        Map.of("reason", "not before the audit"));
    assertEquals(200, r.status(), r.toString());
    Airflow.Run run = dag.get();
    assertNotEquals(0, run.exit(), Airflow.tail(run.log()));
    assertTrue(run.log().contains("query " + id + " was rejected")
        && run.log().contains("not before the audit"), Airflow.tail(run.log()));
    // no retries: a rejection is final
    assertTrue(!run.log().contains("up_for_retry"), Airflow.tail(run.log()));
  }

  @Test
  void invalidQueryFailsAtSubmitWithTheCoordinatorsError() throws Exception {
    Airflow.Run run = runDag("SELECT a.secret FROM a JOIN b ON a.card = b.card");
    assertNotEquals(0, run.exit(), Airflow.tail(run.log()));
    assertTrue(run.log().contains("coordinator answered 422") && run.log().contains("secret"),
        Airflow.tail(run.log()));
    assertTrue(!run.log().contains("up_for_retry"), Airflow.tail(run.log()));
  }
}
