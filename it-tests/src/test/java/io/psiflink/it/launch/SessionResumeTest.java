package io.psiflink.it.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.psiflink.coordinator.Client;
import io.psiflink.coordinator.Parties;
import io.psiflink.it.JoinTables;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A session whose party B job is killed (SIGKILL) after the handshake fails at both parties, and
 * {@code POST /v1/sessions/{id}/resume} at alice runs it again where it stopped: both coordinators
 * create it again, launch both jobs with {@code --resume}, and the output is the plaintext join;
 * afterwards neither party keeps a resume state (it holds the session's token key).
 */
class SessionResumeTest {
  private static final Duration JOB_TIMEOUT = Duration.ofSeconds(240);

  @Test
  void aSessionWhoseJobWasKilledIsResumedAndCompletesExactly() throws Exception {
    Path dir = Files.createTempDirectory("psi-session-resume-");
    try (Parties parties =
        new Parties(
            dir.resolve("parties"),
            party -> "jdbc:sqlite:" + dir.resolve(party + ".db"),
            Duration.ofHours(1),
            Duration.ofSeconds(2),
            JoinTables.embeddedJob(dir, "512m", 2, Duration.ofSeconds(15), null, null))) {
      JoinTables tables = new JoinTables(dir);
      tables.register(parties.aliceApi(), parties.bobApi());
      Path out = dir.resolve("joined");
      Client alice = parties.aliceApi();
      Client bob = parties.bobApi();
      String session =
          JoinTables.submitAndApprove(alice, bob, "purchases", "customers", out.toString());

      // B's job, killed once its handshake is done (A's job reads and tokenizes by then)
      ProcessHandle jobB = awaitJob(session, "B", Duration.ofSeconds(60));
      awaitPhasePast(alice, session, "handshake", Duration.ofSeconds(120));
      jobB.destroyForcibly();
      JsonNode a = JoinTables.awaitEnd(alice, session, new ArrayList<>(), JOB_TIMEOUT, () -> "");
      JsonNode b = JoinTables.awaitEnd(bob, session, new ArrayList<>(), JOB_TIMEOUT, () -> "");
      assertEquals("failed", a.path("status").asText(), a.toString());
      assertEquals("failed", b.path("status").asText(), b.toString());
      assertFalse(Files.exists(out), "the failed run left an output");
      assertTrue(resumeStates(dir).size() >= 1, "no party kept a resume state");

      JsonNode r = alice.post("/v1/sessions/" + session + "/resume", "{}").json();
      // created again at both, and launched at once (job slots are free)
      assertTrue(List.of("created", "running").contains(r.path("status").asText()), r.toString());
      List<String> seen = new ArrayList<>();
      a = JoinTables.awaitEnd(alice, session, seen, JOB_TIMEOUT, () -> "");
      b = JoinTables.awaitEnd(bob, session, new ArrayList<>(), JOB_TIMEOUT, () -> "");
      assertEquals("succeeded", a.path("status").asText(), a + " " + seen);
      assertEquals("succeeded", b.path("status").asText(), b.toString());
      assertEquals(1, a.path("resumes").asInt(), a.toString());
      tables.assertOutputIsThePlaintextJoin(out);
      for (Client c : List.of(alice, bob)) {
        List<String> actions = JoinTables.auditActions(c, session);
        int resumed = actions.indexOf("session.resumed");
        assertTrue(resumed > 0, actions.toString());
        assertEquals(2, actions.stream().filter("job.started"::equals).count(), actions.toString());
        assertTrue(
            actions.subList(resumed, actions.size()).contains("job.succeeded"), actions.toString());
      }
      // the second run resumed: its jobs say so in their logs
      assertTrue(jobLogsContain(dir, "resumed: "), "no job log says it resumed");
      assertEquals(List.of(), resumeStates(dir), "a resume state outlived the session");
    }
  }

  /** The running job of {@code party} ("A" or "B") of the session, by its command line. */
  private static ProcessHandle awaitJob(String session, String party, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Optional<ProcessHandle> p =
          ProcessHandle.allProcesses()
              .filter(h -> commandLine(h).contains(session))
              .filter(h -> commandLine(h).contains("--party\0" + party + "\0"))
              .findFirst();
      if (p.isPresent()) {
        return p.get();
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no job of party " + party + " of session " + session + " runs");
  }

  private static String commandLine(ProcessHandle h) {
    try {
      return new String(
          Files.readAllBytes(Path.of("/proc", Long.toString(h.pid()), "cmdline")),
          StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  private static void awaitPhasePast(Client c, String session, String phase, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      JsonNode s = c.get("/v1/sessions/" + session).json();
      String p = s.path("progress").path("phase").asText("");
      if (s.path("status").asText().equals("running") && !p.isEmpty() && !p.equals(phase)) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("session " + session + " never got past " + phase);
  }

  /** Every resume state file under {@code dir} (the coordinators' session work directories). */
  private static List<Path> resumeStates(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> p.toString().endsWith(".state"))
          .filter(p -> p.getParent().getFileName().toString().equals("resume"))
          .toList();
    }
  }

  private static boolean jobLogsContain(Path dir, String text) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile)
          .filter(p -> p.getFileName().toString().endsWith(".log"))
          .anyMatch(
              p -> {
                try {
                  return Files.readString(p, StandardCharsets.ISO_8859_1).contains(text);
                } catch (IOException e) {
                  return false;
                }
              });
    }
  }
}
