package io.psiflink.it.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psiflink.api.HostPort;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.coordinator.Client;
import io.psiflink.coordinator.Client.Reply;
import io.psiflink.coordinator.CoordinatorConfig;
import io.psiflink.coordinator.GroupParties;
import io.psiflink.it.JoinTables;
import io.psiflink.provider.ProviderConfig;
import io.psiflink.provider.ProviderService;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * End to end, n parties: three real coordinators (alice, bob, carol; SQLite) on loopback over
 * HTTPS, alice's running the bridge relay, and the provider service dialling it. A query submitted
 * at alice (P1) and approved at bob and carol runs every party's job (each a child JVM with its own
 * Flink MiniCluster) and the multiparty PSI through the provider; alice's joined rows must equal
 * the plaintext three-way join computed here.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GroupJoinLaunchTest {
  private static final Duration JOB_TIMEOUT = Duration.ofSeconds(300);
  private static final List<String> NAMES = List.of("alice", "bob", "carol");
  private static final String SQL =
      "SELECT a.v AS v0, b.v AS v1, c.v AS v2 FROM a JOIN b ON a.k = b.k JOIN c ON b.k = c.k"
          + " WHERE b.x >= 30";

  Path dir;
  GroupParties parties;
  ProviderService provider;
  final List<List<int[]>> rows = new ArrayList<>();

  @BeforeAll
  void start() throws Exception {
    dir = Files.createTempDirectory("psi-group-launch-");
    CoordinatorConfig.Job job =
        JoinTables.embeddedJob(dir, "512m", 2, Duration.ofSeconds(90), null, null);
    parties = new GroupParties(dir.resolve("parties"), NAMES, n -> job, null);
    PartyCredentials p = parties.pki.credentials(GroupParties.PROVIDER);
    provider =
        ProviderService.start(
            new ProviderConfig(
                new HostPort("127.0.0.1", parties.server("alice").relayPort()),
                p.certChainPem(),
                p.privateKeyPem(),
                p.trustedCaPem(),
                Set.copyOf(NAMES),
                ProviderConfig.DEFAULT_MAX_PARTIES,
                ProviderConfig.DEFAULT_MAX_SET_SIZE,
                Duration.ofMinutes(3),
                Duration.ofSeconds(90),
                ProviderConfig.DEFAULT_MAX_SESSIONS,
                Duration.ofMinutes(10)));
    Random r = new Random(15);
    int[] sizes = {300, 240, 270};
    for (int t = 0; t < NAMES.size(); t++) {
      List<int[]> table = new ArrayList<>();
      StringBuilder csv = new StringBuilder("k,v,x\n");
      for (int i = 0; table.size() < sizes[t]; i++) {
        // keys below 120 are every table's, with a few duplicates; the rest this table's own
        int key = i < 120 ? i : 100_000 * (t + 1) + i;
        int copies = r.nextInt(10) == 0 ? 2 : 1;
        for (int c = 0; c < copies && table.size() < sizes[t]; c++) {
          int[] row = {key, table.size(), r.nextInt(100)};
          table.add(row);
          csv.append(row[0]).append(",v").append(t).append('_').append(row[1]);
          csv.append(',').append(row[2]).append('\n');
        }
      }
      Path f = dir.resolve("t" + t + ".csv");
      Files.writeString(f, csv.toString(), StandardCharsets.UTF_8);
      rows.add(table);
      ObjectNode d = Client.JSON.createObjectNode();
      d.put("name", "t" + t);
      d.put("location", f.toString());
      d.put("format", "csv");
      d.set("keyColumns", Client.JSON.valueToTree(List.of("k")));
      d.set("revealColumns", Client.JSON.valueToTree(List.of("v")));
      d.set("filterColumns", Client.JSON.valueToTree(List.of("x")));
      Reply reg = parties.api(NAMES.get(t)).post("/v1/datasets", d);
      assertEquals(201, reg.status(), reg.toString());
    }
  }

  @AfterAll
  void stop() throws Exception {
    if (provider != null) {
      provider.close();
    }
    if (parties != null) {
      parties.close();
    }
  }

  /** The oracle: the plaintext three-way join, rows "v0,v1,v2", sorted. */
  private List<String> plaintextJoin() {
    List<Map<Integer, List<String>>> byKey = new ArrayList<>();
    for (int t = 0; t < rows.size(); t++) {
      Map<Integer, List<String>> m = new HashMap<>();
      for (int[] row : rows.get(t)) {
        if (t != 1 || row[2] >= 30) {
          m.computeIfAbsent(row[0], k -> new ArrayList<>()).add("v" + t + "_" + row[1]);
        }
      }
      byKey.add(m);
    }
    List<String> out = new ArrayList<>();
    byKey
        .get(0)
        .forEach(
            (key, vs) -> {
              for (String v0 : vs) {
                for (String v1 : byKey.get(1).getOrDefault(key, List.of())) {
                  for (String v2 : byKey.get(2).getOrDefault(key, List.of())) {
                    out.add(v0 + "," + v1 + "," + v2);
                  }
                }
              }
            });
    out.sort(null);
    return out;
  }

  private static JsonNode awaitEnd(Client c, String session) throws InterruptedException {
    long deadline = System.nanoTime() + JOB_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      JsonNode s = c.get("/v1/group-sessions/" + session).json();
      if (List.of("succeeded", "failed", "cancelled").contains(s.path("status").asText())) {
        return s;
      }
      Thread.sleep(250);
    }
    throw new AssertionError("group session " + session + " did not end within " + JOB_TIMEOUT);
  }

  @Test
  void submittedAtP1ApprovedByEveryPartyRunsAndEqualsThePlaintextJoin() throws Exception {
    Path out = dir.resolve("joined");
    ObjectNode q = Client.JSON.createObjectNode();
    q.put("sql", SQL);
    ArrayNode ps = q.putArray("parties");
    for (int t = 0; t < NAMES.size(); t++) {
      ps.addObject().put("party", NAMES.get(t)).put("dataset", "t" + t);
    }
    q.put("provider", GroupParties.PROVIDER);
    q.put("bins", 2);
    q.putObject("output").put("location", out.toString()).put("format", "csv");
    Client alice = parties.api("alice");
    Reply submitted = alice.post("/v1/group-queries", q);
    assertEquals(201, submitted.status(), submitted.toString());
    String id = submitted.json().path("id").asText();
    assertEquals(
        200, parties.api("bob").post("/v1/group-queries/" + id + "/approve", "{}").status());
    Reply last = parties.api("carol").post("/v1/group-queries/" + id + "/approve", "{}");
    assertEquals(200, last.status(), last.toString());
    String session =
        alice.get("/v1/group-queries/" + id).json().path("session").path("id").asText();

    for (String n : NAMES) {
      JsonNode s = awaitEnd(parties.api(n), session);
      assertEquals("succeeded", s.path("status").asText(), n + ": " + s);
      assertEquals("done", s.path("progress").path("phase").asText(), s.toString());
    }
    List<String> expected = plaintextJoin();
    assertTrue(expected.size() > 50, "the data should join: " + expected.size());
    assertEquals(expected, JoinTables.readCsvOutput(out));

    Reply result = alice.get("/v1/group-sessions/" + session + "/result");
    assertEquals(200, result.status(), result.toString());
    assertEquals(expected.size(), result.json().path("rowsOut").asLong());
    assertEquals(404, parties.api("bob").get("/v1/group-sessions/" + session + "/result").status());
    // every party launched its own job as its own role, and logged it
    for (int t = 0; t < NAMES.size(); t++) {
      JsonNode started = null;
      for (JsonNode e : parties.api(NAMES.get(t)).get("/v1/audit").json().path("entries")) {
        if (e.path("objectId").asText().equals(session)
            && e.path("action").asText().equals("job.started")) {
          started = Client.JSON.readTree(e.path("detail").asText());
        }
      }
      assertEquals("P" + (t + 1), started == null ? null : started.path("party").asText());
      assertEquals(GroupParties.PROVIDER, started.path("provider").asText());
    }
  }
}
