package io.psiflink.it.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.psiflink.coordinator.Client;
import io.psiflink.coordinator.CoordinatorConfig;
import io.psiflink.coordinator.Parties;
import io.psiflink.it.JoinTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Job slots: with {@code job.maxConcurrentJobs: 1} at both coordinators, three sessions approved at
 * once run one after the other — never two jobs of one party at a time — the queued ones show their
 * place (at A) or that they wait for A (at B), and each output is the plaintext join.
 */
class JobQueueTest {
  @Test
  void sessionsBeyondTheJobSlotsWaitInLineAndAllCompleteExactly() throws Exception {
    Path dir = Files.createTempDirectory("psi-queue-test-");
    CoordinatorConfig.Job job =
        JoinTables.embeddedJob(dir, "512m", 2, Duration.ofSeconds(60), 1, null);
    try (Parties parties =
        new Parties(
            dir.resolve("parties"),
            party -> "jdbc:sqlite:" + dir.resolve(party + ".db"),
            Duration.ofHours(1),
            Duration.ofSeconds(2),
            job)) {
      Client alice = parties.aliceApi();
      Client bob = parties.bobApi();
      JoinTables tables = new JoinTables(dir);
      tables.register(alice, bob);
      List<String> sessions = new ArrayList<>();
      List<Path> outs = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Path out = dir.resolve("joined-" + i);
        outs.add(out);
        sessions.add(
            JoinTables.submitAndApprove(alice, bob, "purchases", "customers", out.toString()));
      }
      // the first runs; the others wait: at A in line, at B for A
      JsonNode second = alice.get("/v1/sessions/" + sessions.get(1)).json();
      assertEquals("created", second.path("status").asText(), second.toString());
      assertEquals(1, second.path("queue").path("position").asInt(), second.toString());
      assertEquals(2, second.path("queue").path("of").asInt(), second.toString());
      JsonNode third = alice.get("/v1/sessions/" + sessions.get(2)).json();
      assertEquals(2, third.path("queue").path("position").asInt(), third.toString());
      JsonNode atBob = bob.get("/v1/sessions/" + sessions.get(2)).json();
      assertEquals("alice", atBob.path("queue").path("waitingFor").asText(), atBob.toString());

      long deadline = System.nanoTime() + Duration.ofSeconds(300).toNanos();
      int maxRunning = 0;
      while (System.nanoTime() < deadline) {
        int done = 0;
        for (Client c : List.of(alice, bob)) {
          int running = 0;
          for (JsonNode s : c.get("/v1/sessions").json().path("sessions")) {
            if (!sessions.contains(s.path("id").asText())) {
              continue;
            }
            running += s.path("status").asText().equals("running") ? 1 : 0;
            done += s.path("status").asText().equals("succeeded") ? 1 : 0;
            assertTrue(
                List.of("created", "running", "succeeded").contains(s.path("status").asText()),
                s.toString());
          }
          maxRunning = Math.max(maxRunning, running);
        }
        if (done == 2 * sessions.size()) {
          break;
        }
        Thread.sleep(200);
      }
      assertEquals(1, maxRunning, "one job slot per party");
      for (int i = 0; i < sessions.size(); i++) {
        assertEquals(
            "succeeded",
            alice.get("/v1/sessions/" + sessions.get(i)).json().path("status").asText());
        assertTrue(
            alice.get("/v1/sessions/" + sessions.get(i)).json().path("queue").isMissingNode(),
            "no queue once launched");
        tables.assertOutputIsThePlaintextJoin(outs.get(i));
      }
    }
  }
}
