package io.psiflink.it.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.psiflink.coordinator.Client;
import io.psiflink.coordinator.Parties;
import io.psiflink.it.JoinTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A coordinator restart in the middle of a session (alice's, which runs the relay too): with {@code
 * job.onShutdown: leave} its job outlives it and the restarted coordinator re-attaches to it (the
 * session completes with the plaintext join); with {@code stop} (the default) its job stops with
 * it, and the restart fails the session at both parties.
 */
class CoordinatorRestartTest {
  private static final Duration JOB_TIMEOUT = Duration.ofSeconds(240);

  @Test
  void aJobLeftRunningAtShutdownIsReattachedAndCompletesExactly() throws Exception {
    Path dir = Files.createTempDirectory("psi-restart-leave-");
    try (Parties parties =
        new Parties(
            dir.resolve("parties"),
            party -> "jdbc:sqlite:" + dir.resolve(party + ".db"),
            Duration.ofHours(1),
            Duration.ofSeconds(2),
            JoinTables.embeddedJob(dir, "512m", 3, Duration.ofSeconds(90), null, "leave"))) {
      JoinTables tables = new JoinTables(dir);
      tables.register(parties.aliceApi(), parties.bobApi());
      Path out = dir.resolve("joined");
      String session =
          JoinTables.submitAndApprove(
              parties.aliceApi(), parties.bobApi(), "purchases", "customers", out.toString());
      assertEquals(
          "running",
          parties.aliceApi().get("/v1/sessions/" + session).json().path("status").asText());
      parties.stopAlice();
      Thread.sleep(1000);
      parties.startAlice();
      Client alice = parties.aliceApi();
      JsonNode a = JoinTables.awaitEnd(alice, session, new ArrayList<>(), JOB_TIMEOUT, () -> "");
      JsonNode b =
          JoinTables.awaitEnd(parties.bobApi(), session, new ArrayList<>(), JOB_TIMEOUT, () -> "");
      assertEquals("succeeded", a.path("status").asText(), a.toString());
      assertEquals("succeeded", b.path("status").asText(), b.toString());
      tables.assertOutputIsThePlaintextJoin(out);
      List<String> seen = JoinTables.auditActions(alice, session);
      assertTrue(seen.contains("job.reattached"), seen.toString());
      assertEquals("job.succeeded", seen.get(seen.indexOf("job.reattached") + 1), seen.toString());
    }
  }

  @Test
  void withStopTheJobStopsAndTheRestartFailsTheSessionAtBothParties() throws Exception {
    Path dir = Files.createTempDirectory("psi-restart-stop-");
    try (Parties parties =
        new Parties(
            dir.resolve("parties"),
            party -> "jdbc:sqlite:" + dir.resolve(party + ".db"),
            Duration.ofHours(1),
            Duration.ofSeconds(2),
            JoinTables.embeddedJob(dir, "512m", 3, Duration.ofSeconds(90), null, null))) {
      JoinTables tables = new JoinTables(dir);
      tables.register(parties.aliceApi(), parties.bobApi());
      Path out = dir.resolve("joined");
      String session =
          JoinTables.submitAndApprove(
              parties.aliceApi(), parties.bobApi(), "purchases", "customers", out.toString());
      parties.stopAlice();
      parties.startAlice();
      Client alice = parties.aliceApi();
      JsonNode a = alice.get("/v1/sessions/" + session).json();
      assertEquals("failed", a.path("status").asText(), a.toString());
      assertTrue(a.path("error").asText().contains("restarted while the job ran"), a.toString());
      JsonNode b =
          JoinTables.awaitEnd(parties.bobApi(), session, new ArrayList<>(), JOB_TIMEOUT, () -> "");
      assertEquals("failed", b.path("status").asText(), b.toString());
      assertTrue(!Files.exists(out.resolve("_SUCCESS")), "no output at the target");
    }
  }
}
