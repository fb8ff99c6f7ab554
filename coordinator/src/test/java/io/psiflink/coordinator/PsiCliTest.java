package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.OutputFormat;
import io.psiflink.api.TableSchema;
import io.psiflink.coordinator.Model.Decision;
import io.psiflink.coordinator.Model.Direction;
import io.psiflink.coordinator.Model.GroupDecision;
import io.psiflink.coordinator.Model.GroupMember;
import io.psiflink.coordinator.Model.GroupQueryRecord;
import io.psiflink.coordinator.Model.GroupSessionRecord;
import io.psiflink.coordinator.Model.QueryStatus;
import io.psiflink.coordinator.Model.SessionStatus;
import io.psiflink.coordinator.cli.PsiCli;
import io.psiflink.query.MultiJoinQuery;
import io.psiflink.query.PartyView;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The client commands of {@code ./psi} against two real coordinators over HTTPS (no job section:
 * sessions stay created; the jobs themselves run in JobLaunchTest). The n-party form needs three
 * organisations: its requests reach the real coordinators as far as two can take them, and a
 * stand-in coordinator answering with real n-party views shows the routes and what is printed.
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
                List.of(
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
    // failed at bob, cancelled at alice: bob asks, alice's side does not resume
    Run resume = run(bobEnv, "resume", session);
    assertEquals(1, resume.code());
    assertTrue(resume.err().contains("the session is cancelled there"), resume.err());
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

  static final String SQL3 =
      "SELECT a.spend, b.email, c.policy FROM a JOIN b ON a.card = b.card JOIN c ON a.card = c.card"
          + " WHERE b.age >= 18";

  @Test
  void anNPartySubmitIsTheCoordinatorsGroupRequest() {
    // alice parses what the command sends: its parties in order, up to the one it does not know
    Run s =
        run(
            aliceEnv,
            "submit",
            "--sql",
            SQL3,
            "--party",
            "alice=purchases",
            "--party",
            "bob=customers",
            "--party",
            "carol=claims",
            "--provider",
            "olivia");
    assertEquals(1, s.code(), s.toString());
    assertTrue(
        s.err()
            .contains(
                "the coordinator answered 400 (bad request): parties[2].party: carol is not an"
                    + " organisation of alice; it knows [bob]"),
        s.err());
    Run notFirst =
        run(
            aliceEnv,
            "submit",
            "--sql",
            SQL3,
            "--party",
            "bob=customers",
            "--party",
            "alice=purchases",
            "--party",
            "carol=claims",
            "--provider",
            "olivia");
    assertEquals(1, notFirst.code(), notFirst.toString());
    assertTrue(
        notFirst.err().contains("parties[0].party: must be this party, alice"), notFirst.err());
    Run sigma =
        run(
            aliceEnv,
            "submit",
            "--sql",
            SQL3,
            "--party",
            "alice=purchases",
            "--party",
            "bob=customers",
            "--party",
            "carol=claims",
            "--provider",
            "olivia",
            "--sigma",
            "20");
    assertEquals(1, sigma.code(), sigma.toString());
    assertTrue(sigma.err().contains("sigma: must be an integer in [40, 128]"), sigma.err());
    // an id of neither kind: the two-party call's answer, as before
    Run approve = run(bobEnv, "approve", "no-such-query");
    assertEquals(1, approve.code(), approve.toString());
    assertTrue(
        approve.err().contains("404 (not found): query no-such-query not found"), approve.err());
    Run cancel = run(aliceEnv, "cancel", "no-such-session");
    assertEquals(1, cancel.code(), cancel.toString());
    assertTrue(cancel.err().contains("session no-such-session not found"), cancel.err());
  }

  static final String OLIVIA = "0e".repeat(32);
  static final String ALICE_PIN = "a1".repeat(32);
  static final String CAROL_PIN = "c1".repeat(32);

  /**
   * An n-party query's view at party {@code index}, as GroupQueries.view shows it: the record, the
   * role, GroupPolicy's disclosure (P1 knows every party's view, another party its own), the
   * decisions and the session.
   */
  private static Map<String, Object> groupView(
      String id,
      int index,
      QueryStatus status,
      List<GroupDecision> decisions,
      GroupSessionRecord session)
      throws Exception {
    List<GroupMember> members =
        List.of(
            new GroupMember("alice", "purchases", ALICE_PIN),
            new GroupMember("bob", "customers", null),
            new GroupMember("carol", "claims", null));
    List<TableSchema> schemas =
        List.of(
            new TableSchema(
                List.of(
                    new Column("card", ColumnType.STRING, true),
                    new Column("spend", ColumnType.BIGINT, true))),
            new TableSchema(
                List.of(
                    new Column("card", ColumnType.STRING, true),
                    new Column("email", ColumnType.STRING, true),
                    new Column("age", ColumnType.INT, true))),
            new TableSchema(
                List.of(
                    new Column("card", ColumnType.STRING, true),
                    new Column("policy", ColumnType.STRING, true))));
    List<String> sizes = List.of("rounded", "exact", "rounded");
    MultiJoinQuery q = MultiJoinQuery.parse(SQL3);
    List<PartyView> views = new ArrayList<>();
    List<String> known = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      boolean knows = index == 0 || i == index;
      views.add(knows ? q.view(i, schemas.get(i)) : null);
      known.add(knows ? sizes.get(i) : null);
    }
    GroupQueryRecord r =
        new GroupQueryRecord(
            id,
            index == 0 ? Direction.OUTGOING : Direction.INCOMING,
            "alice",
            index,
            SQL3,
            q.fingerprint(),
            0,
            40,
            "olivia",
            OLIVIA,
            members,
            "alice.example:7443",
            status,
            null,
            1_000L,
            2_000L,
            null,
            index == 0 ? new Model.Output("hdfs://nn/psi/joined", OutputFormat.CSV) : null);
    ObjectMapper json = CoordinatorServer.mapper();
    @SuppressWarnings("unchecked")
    Map<String, Object> m = json.convertValue(r, LinkedHashMap.class);
    m.put("role", r.role().label());
    m.put(
        "disclosure",
        GroupPolicy.disclosure(
            q,
            members,
            index,
            views,
            known,
            new CoordinatorConfig.Provider("olivia", OLIVIA, "Olivia plc's MPSI provider")));
    m.put("decisions", decisions);
    m.put("session", session);
    return m;
  }

  private static GroupSessionRecord groupSession(
      String id, String query, SessionStatus status, Model.Progress progress, Model.Result result) {
    return new GroupSessionRecord(
        id,
        query,
        "alice.example:7443",
        List.of(
            new GroupMember("alice", "purchases", ALICE_PIN),
            new GroupMember("bob", "customers", "b1".repeat(32)),
            new GroupMember("carol", "claims", CAROL_PIN)),
        status,
        1_500L,
        progress,
        null,
        result,
        status == SessionStatus.CREATED ? null : 1_600L,
        status.ended() ? 9_600L : null);
  }

  @Test
  void theNPartyFormUsesTheGroupRoutesAndTheOtherCommandsFindGroupIds() throws Exception {
    String query = UUID.randomUUID().toString();
    String session = UUID.randomUUID().toString();
    GroupDecision submitted =
        new GroupDecision("alice", Decision.APPROVED, "submitted", ALICE_PIN, 1_000L);
    try (FakeCoordinator alice = new FakeCoordinator()) {
      Map<String, Object> pending =
          groupView(query, 0, QueryStatus.PENDING, List.of(submitted), null);
      alice.answer("POST /v1/group-queries", 201, pending);
      // --wait: the query is approved at the first poll, its session has succeeded
      alice.answer(
          "GET /v1/group-queries/" + query,
          200,
          groupView(
              query,
              0,
              QueryStatus.APPROVED,
              List.of(submitted),
              groupSession(session, query, SessionStatus.CREATED, null, null)));
      alice.answer(
          "GET /v1/group-sessions/" + session,
          200,
          groupSession(
              session,
              query,
              SessionStatus.SUCCEEDED,
              new Model.Progress(Model.Phase.DONE, 64, 64L),
              new Model.Result("hdfs://nn/psi/joined", OutputFormat.CSV, 1234L)));
      Run s =
          run(
              alice.env(),
              "submit",
              "--sql",
              SQL3,
              "--party",
              "alice=purchases",
              "--party",
              "bob=customers",
              "--party",
              "carol=claims",
              "--provider",
              "olivia",
              "--output",
              "hdfs://nn/psi/joined",
              "--format",
              "csv",
              "--wait");
      assertEquals(0, s.code(), s.toString());
      assertEquals(
          List.of(
              "POST /v1/group-queries",
              "GET /v1/group-queries/" + query,
              "GET /v1/group-sessions/" + session),
          alice.calls);
      assertEquals(
          new ObjectMapper()
              .readTree(
                  "{\"sql\": \""
                      + SQL3
                      + "\", \"parties\": [{\"party\": \"alice\", \"dataset\": \"purchases\"},"
                      + " {\"party\": \"bob\", \"dataset\": \"customers\"}, {\"party\":"
                      + " \"carol\", \"dataset\": \"claims\"}], \"provider\": \"olivia\","
                      + " \"output\": {\"location\": \"hdfs://nn/psi/joined\", \"format\":"
                      + " \"csv\"}}"),
          alice.body("POST /v1/group-queries"));
      String out = s.out();
      for (String line :
          List.of(
              "query " + query + " submitted: pending (waiting for bob, carol to approve)\n",
              "join: n-party inner join of 3 tables on one key\n",
              "P1 alice (this party): table a (purchases), join key [card], reveals [spend], public"
                  + " size rounded\n",
              "P2 bob: table b (customers), join key [card], reveals [email], where ",
              "P3 carol: table c (claims), join key [card], reveals [policy], public size"
                  + " rounded\n",
              "provider: olivia (Olivia plc's MPSI provider), certificate SHA-256 " + OLIVIA + "\n",
              "P1 (alice) writes the joined table\n",
              "P1 (alice) learns the joined rows",
              "the provider olivia learns the session",
              "session " + session + ": succeeded",
              "result: hdfs://nn/psi/joined (csv, 1,234 rows)")) {
        assertTrue(out.contains(line), line + " not in\n" + out);
      }

      // status: the two-party session and query first, then the n-party ones
      alice.calls.clear();
      alice.answer("GET /v1/group-queries/" + query, 200, pending);
      Run st = run(alice.env(), "status", query);
      assertEquals(0, st.code(), st.toString());
      assertEquals(
          List.of(
              "GET /v1/sessions/" + query,
              "GET /v1/queries/" + query,
              "GET /v1/group-sessions/" + query,
              "GET /v1/group-queries/" + query),
          alice.calls);
      for (String line :
          List.of(
              "query "
                  + query
                  + ": pending (n-party join of 3 parties, this party is P1; submitted by alice)\n",
              "parties: P1 alice (purchases), P2 bob (customers), P3 carol (claims)\n",
              "decisions: alice approved (submitted)\n",
              "waiting for bob, carol\n",
              "no session yet (P1 creates it once every party approved)")) {
        assertTrue(st.out().contains(line), line + " not in\n" + st.out());
      }
    }

    try (FakeCoordinator carol = new FakeCoordinator()) {
      carol.answer(
          "GET /v1/group-queries/" + query,
          200,
          groupView(query, 2, QueryStatus.PENDING, List.of(), null));
      carol.answer(
          "POST /v1/group-queries/" + query + "/approve",
          200,
          groupView(
              query,
              2,
              QueryStatus.APPROVED,
              List.of(
                  new GroupDecision("carol", Decision.APPROVED, "ok by legal", CAROL_PIN, 1_400L)),
              groupSession(session, query, SessionStatus.CREATED, null, null)));
      Run a = run(carol.env(), "approve", query, "--reason", "ok by legal");
      assertEquals(0, a.code(), a.toString());
      assertEquals(
          List.of(
              "POST /v1/queries/" + query + "/approve",
              "GET /v1/group-queries/" + query,
              "POST /v1/group-queries/" + query + "/approve"),
          carol.calls);
      assertEquals(
          new ObjectMapper().readTree("{\"reason\": \"ok by legal\"}"),
          carol.body("POST /v1/group-queries/" + query + "/approve"));
      // carol's coordinator knows only its own table's part
      for (String line :
          List.of(
              "query " + query + " approved; session " + session + " (its jobs start now)\n",
              "P1 alice: table a (purchases)\n",
              "P3 carol (this party): table c (claims), join key [card], reveals [policy], public"
                  + " size rounded\n",
              "every other party learns which of its own keys all parties hold")) {
        assertTrue(a.out().contains(line), line + " not in\n" + a.out());
      }

      // the session: status, cancel and result find it as an n-party one
      carol.calls.clear();
      carol.answer(
          "GET /v1/group-sessions/" + session,
          200,
          groupSession(
              session,
              query,
              SessionStatus.RUNNING,
              new Model.Progress(Model.Phase.PSI, 3, 64L),
              null));
      Run ss = run(carol.env(), "status", session);
      assertEquals(0, ss.code(), ss.toString());
      assertTrue(
          ss.out()
              .contains(
                  "n-party session of query "
                      + query
                      + ": P1 alice (purchases), P2 bob (customers), P3 carol (claims); every job"
                      + " dials P1's bridge endpoint alice.example:7443\n"),
          ss.out());
      assertTrue(
          ss.out().contains("session " + session + ": running, phase psi, bins 3/64"), ss.out());
      carol.calls.clear();
      carol.answer(
          "POST /v1/group-sessions/" + session + "/cancel",
          200,
          groupSession(session, query, SessionStatus.CANCELLED, null, null));
      Run c = run(carol.env(), "cancel", session);
      assertEquals(0, c.code(), c.toString());
      assertTrue(c.out().contains("session " + session + ": cancelled"), c.out());
      assertEquals(
          List.of(
              "POST /v1/sessions/" + session + "/cancel",
              "GET /v1/group-sessions/" + session,
              "POST /v1/group-sessions/" + session + "/cancel"),
          carol.calls);
      // a result at a party other than P1: the n-party route's own 404 is what the user reads
      carol.answer(
          "GET /v1/group-sessions/" + session + "/result",
          404,
          Map.of(
              "status",
              404,
              "error",
              "result of group session "
                  + session
                  + ": only P1 (alice) receives the joined table"));
      Run r = run(carol.env(), "result", session);
      assertEquals(1, r.code(), r.toString());
      assertTrue(r.err().contains("only P1 (alice) receives the joined table"), r.err());
      // an id of neither kind: the two-party call's 404, and no n-party call
      carol.calls.clear();
      Run unknown = run(carol.env(), "reject", "nothing");
      assertEquals(1, unknown.code(), unknown.toString());
      assertTrue(unknown.err().contains("/v1/queries/nothing/reject not found"), unknown.err());
      assertEquals(
          List.of("POST /v1/queries/nothing/reject", "GET /v1/group-queries/nothing"), carol.calls);
    }
  }

  /**
   * A stand-in coordinator over plain HTTP (the client takes any URL): canned answers by {@code
   * "METHOD path"}, a coordinator's 404 for anything else; it records each call and its body.
   */
  static final class FakeCoordinator implements AutoCloseable {
    private final HttpServer server;
    private final Map<String, byte[]> answers = new ConcurrentHashMap<>();
    private final Map<String, Integer> statuses = new ConcurrentHashMap<>();
    private final Map<String, byte[]> bodies = new ConcurrentHashMap<>();
    final List<String> calls = new CopyOnWriteArrayList<>();

    FakeCoordinator() throws IOException {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext(
          "/",
          exchange -> {
            String call = exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath();
            calls.add(call);
            bodies.put(call, exchange.getRequestBody().readAllBytes());
            byte[] answer = answers.get(call);
            int status = statuses.getOrDefault(call, 404);
            if (answer == null) {
              answer =
                  CoordinatorServer.mapper()
                      .writeValueAsBytes(
                          Map.of(
                              "status",
                              404,
                              "error",
                              exchange.getRequestURI().getPath() + " not found"));
            }
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, answer.length);
            try (OutputStream o = exchange.getResponseBody()) {
              o.write(answer);
            }
          });
      server.start();
    }

    void answer(String call, int status, Object body) throws IOException {
      answers.put(call, CoordinatorServer.mapper().writeValueAsBytes(body));
      statuses.put(call, status);
    }

    JsonNode body(String call) throws IOException {
      return new ObjectMapper().readTree(bodies.get(call));
    }

    Map<String, String> env() {
      return Map.of(
          "PSI_COORDINATOR",
          "http://127.0.0.1:" + server.getAddress().getPort(),
          "PSI_TOKEN",
          "a party token");
    }

    @Override
    public void close() {
      server.stop(0);
    }
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
