package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.coordinator.cli.PsiCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The client commands of {@code ./psi} against two real coordinators over HTTPS (no job section:
 * sessions stay created; the jobs themselves run in JobLaunchTest).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PsiCliTest {
  Path dir;
  Parties parties;
  Map<String, String> aliceEnv;
  Map<String, String> bobEnv;

  /** One command's exit code and output. */
  record Run(int code, String out, String err) {}

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory("psi-cli-test-");
    // both register the helper carol with the same pin, each with its own description
    parties =
        new Parties(
            dir,
            party -> "jdbc:sqlite:" + dir.resolve(party + ".db"),
            Duration.ofHours(1),
            Duration.ofHours(1),
            null,
            party ->
                java.util.List.of(
                    new CoordinatorConfig.Helper(
                        "carol", CAROL, party + "'s contract with carol")));
    String ca = parties.pki.caCertificate().toString();
    aliceEnv =
        Map.of(
            "PSI_COORDINATOR",
            "https://localhost:" + parties.alice.port(),
            "PSI_TOKEN",
            parties.aliceToken,
            "PSI_CA",
            ca);
    bobEnv =
        Map.of(
            "PSI_COORDINATOR",
            "https://localhost:" + parties.bob.port(),
            "PSI_TOKEN",
            parties.bobToken,
            "PSI_CA",
            ca);
    CoordinatorApiContract.register(
        parties.aliceApi(), CoordinatorApiContract.purchases("purchases"));
    CoordinatorApiContract.register(
        parties.bobApi(), CoordinatorApiContract.customers("customers"));
  }

  @AfterAll
  void stop() throws Exception {
    parties.close();
  }

  private static Run run(Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        new PsiCli(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                env)
            .run(args);
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static final String CAROL = "c0".repeat(32);

  @Test
  void aPrefilterByAHelperIsSubmittedAndEachApprovalPrintsTheHelperAndWhatItAdds() {
    Run s =
        run(
            aliceEnv,
            "submit",
            "--dataset",
            "purchases",
            "--peer-dataset",
            "customers",
            "--sql",
            CoordinatorApiContract.GOOD_SQL,
            "--prefilter",
            "helper",
            "--helper",
            "carol",
            "--filter-bits",
            "20");
    assertEquals(0, s.code(), s.toString());
    Matcher m = Pattern.compile("query (\\S+) submitted: pending").matcher(s.out());
    assertTrue(m.find(), s.out());
    String query = m.group(1);
    String leakage =
        "Pre-filter by helper carol (server-aided sample filtering). Each party learns the"
            + " other's candidate count";
    for (String[] at :
        new String[][] {{"alice", s.out()}, {"bob", run(bobEnv, "status", query).out()}}) {
      String out = at[1];
      assertTrue(out.contains(", pre-filtered by helper carol\n"), out);
      assertTrue(
          out.contains(
              "helper: carol ("
                  + at[0]
                  + "'s contract with carol), certificate SHA-256 "
                  + CAROL
                  + "; filter of 2^20 bits, hash count chosen by the jobs"),
          out);
      assertTrue(out.contains(leakage), out);
    }
    Run a = run(bobEnv, "approve", query);
    assertEquals(0, a.code(), a.toString());
    assertTrue(a.out().contains("helper: carol (bob's contract with carol)"), a.out());
    // a helper option without the pre-filter: the coordinator's 400 naming it
    Run bad =
        run(
            aliceEnv,
            "submit",
            "--dataset",
            "purchases",
            "--peer-dataset",
            "customers",
            "--sql",
            CoordinatorApiContract.GOOD_SQL,
            "--helper",
            "carol");
    assertEquals(1, bad.code(), bad.toString());
    assertTrue(bad.err().contains("helper: is an option of prefilter helper"), bad.err());
    Run usage =
        run(
            aliceEnv,
            "submit",
            "--dataset",
            "purchases",
            "--peer-dataset",
            "customers",
            "--sql",
            CoordinatorApiContract.GOOD_SQL,
            "--prefilter",
            "sometimes");
    assertEquals(2, usage.code(), usage.toString());
    assertTrue(usage.err().contains("--prefilter"), usage.err());
    assertTrue(usage.err().contains("must be none, helper or auto"), usage.err());
  }

  @Test
  void submitApproveStatusCancelResult() {
    Run s =
        run(
            aliceEnv,
            "submit",
            "--dataset",
            "purchases",
            "--peer-dataset",
            "customers",
            "--sql",
            CoordinatorApiContract.GOOD_SQL,
            "--output",
            dir.resolve("out").toString());
    assertEquals(0, s.code(), s.toString());
    Matcher m = Pattern.compile("query (\\S+) submitted: pending").matcher(s.out());
    assertTrue(m.find(), s.out());
    String query = m.group(1);

    Run st = run(aliceEnv, "status", query);
    assertEquals(0, st.code(), st.toString());
    assertTrue(st.out().contains("query " + query + ": pending"), st.out());
    assertTrue(st.out().contains("no session yet"), st.out());
    // the approval shows each party what the other learns
    assertTrue(
        st.out()
            .contains(
                "this party learns about table b (customers): its size as its "
                    + "table's total row count rounded up"),
        st.out());
    assertTrue(st.out().contains("the columns [email] of the matching rows"), st.out());

    Run a = run(bobEnv, "approve", query);
    assertEquals(0, a.code(), a.toString());
    Matcher sm = Pattern.compile("session (\\S+) ").matcher(a.out());
    assertTrue(sm.find(), a.out());
    String session = sm.group(1);
    assertTrue(a.out().contains("the peer learns about table b (customers)"), a.out());

    Run ss = run(aliceEnv, "status", session);
    assertEquals(0, ss.code(), ss.toString());
    assertTrue(ss.out().contains("session " + session + ": created"), ss.out());
    Run json = run(aliceEnv, "status", session, "--json");
    assertTrue(json.out().contains("\"status\" : \"created\""), json.out());

    Run r = run(aliceEnv, "result", session);
    assertEquals(1, r.code());
    assertTrue(r.err().contains("409 (conflict)") && r.err().contains("is created"), r.err());

    Run c = run(aliceEnv, "cancel", session);
    assertEquals(0, c.code(), c.toString());
    assertTrue(c.out().contains(": cancelled"), c.out());
    Run atBob = run(bobEnv, "status", session);
    assertTrue(
        atBob.out().contains(": failed")
            && atBob.out().contains("alice ended the session: cancelled"),
        atBob.out());
    Run again = run(aliceEnv, "cancel", session);
    assertEquals(1, again.code());
    assertTrue(again.err().contains("already ended: cancelled"), again.err());
  }

  @Test
  void submitInModeLabeledAndTheApprovalSaysWhatEachPartyLearns() {
    Run s =
        run(
            aliceEnv,
            "submit",
            "--dataset",
            "purchases",
            "--peer-dataset",
            "customers",
            "--sql",
            CoordinatorApiContract.GOOD_SQL,
            "--mode",
            "labeled",
            "--label-bytes",
            "512",
            "--protocol",
            "rr22");
    assertEquals(0, s.code(), s.toString());
    Matcher m = Pattern.compile("query (\\S+) submitted: pending").matcher(s.out());
    assertTrue(m.find(), s.out());
    String query = m.group(1);
    // what bob, the approver, is shown
    Run st = run(bobEnv, "status", query);
    assertEquals(0, st.code(), st.toString());
    assertTrue(st.out().contains("Mode labeled: B learns A's padded size only"), st.out());
    assertTrue(
        st.out()
            .contains(
                "Every key of B travels as a label of 512 bytes: the rows of one key must fit"),
        st.out());
    assertTrue(st.out().contains("not even how many"), st.out());
    Run json = run(bobEnv, "status", query, "--json");
    assertTrue(json.out().contains("\"mode\" : \"labeled\""), json.out());
    assertTrue(json.out().contains("\"labelBytes\" : 512"), json.out());

    Run noLabels =
        run(
            aliceEnv,
            "submit",
            "--dataset",
            "purchases",
            "--peer-dataset",
            "customers",
            "--sql",
            CoordinatorApiContract.GOOD_SQL,
            "--label-bytes",
            "512");
    assertEquals(1, noLabels.code(), noLabels.toString());
    assertTrue(
        noLabels.err().contains("labelBytes") && noLabels.err().contains("mode is both"),
        noLabels.err());
  }

  @Test
  void errorsRepeatTheCoordinatorsErrorInWords() {
    Run bad =
        run(
            aliceEnv,
            "submit",
            "--dataset",
            "purchases",
            "--peer-dataset",
            "customers",
            "--sql",
            "SELECT b.ssn FROM a JOIN b ON a.card = b.card");
    assertEquals(1, bad.code());
    assertTrue(bad.err().contains("422 (the query does not validate)"), bad.err());
    assertTrue(bad.err().contains("ssn") && bad.err().contains("clause SELECT"), bad.err());

    Run unknown = run(aliceEnv, "status", "no-such-thing");
    assertEquals(1, unknown.code());
    assertTrue(unknown.err().contains("no query or session no-such-thing"), unknown.err());

    Run noToken =
        run(
            Map.of(
                "PSI_COORDINATOR",
                aliceEnv.get("PSI_COORDINATOR"),
                "PSI_CA",
                aliceEnv.get("PSI_CA")),
            "status",
            "x");
    assertEquals(2, noToken.code());
    assertTrue(noToken.err().contains("no token"), noToken.err());

    Run badToken =
        run(
            Map.of(
                "PSI_COORDINATOR",
                aliceEnv.get("PSI_COORDINATOR"),
                "PSI_CA",
                aliceEnv.get("PSI_CA"),
                "PSI_TOKEN",
                "wrong"),
            "status",
            "x");
    assertEquals(1, badToken.code());
    assertTrue(badToken.err().contains("401 (not authenticated"), badToken.err());

    Run usage = run(aliceEnv, "approve");
    assertEquals(2, usage.code());
    assertTrue(usage.err().contains("usage:"), usage.err());
  }
}
