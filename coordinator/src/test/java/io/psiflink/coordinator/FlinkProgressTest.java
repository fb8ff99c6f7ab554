package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.psiflink.api.Role;
import io.psiflink.coordinator.Model.Progress;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The progress reader against a stand-in for Flink's REST API that answers with the names a real
 * party job shows (written out literally here, as Flink's web UI shows them: the job's name,
 * chained vertex names, subtask metric ids {@code <operator>.psi.binsDone}), so a rename in the
 * shared constants that the job and Flink would no longer agree on fails here.
 */
class FlinkProgressTest {
  private HttpServer server;
  private final Map<String, String> answers = new ConcurrentHashMap<>();

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        x -> {
          String key =
              x.getRequestURI().getPath()
                  + (x.getRequestURI().getQuery() == null
                      ? ""
                      : "?" + x.getRequestURI().getQuery());
          String body = answers.get(key);
          byte[] out = (body == null ? "{}" : body).getBytes(StandardCharsets.UTF_8);
          x.sendResponseHeaders(body == null ? 404 : 200, out.length);
          x.getResponseBody().write(out);
          x.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private FlinkProgress reader(Role party) {
    return new FlinkProgress(
        "http://127.0.0.1:" + server.getAddress().getPort() + "/",
        party,
        "0f0e0d0c-0000-4000-8000-000000000001",
        new ObjectMapper());
  }

  private void job(String tokenizeStatus) {
    answers.put(
        "/jobs/overview",
        "{\"jobs\":[{\"jid\":\"old\",\"name\":\"psi-flink party B session"
            + " 0f0e0d0c-0000-4000-8000-000000000001\",\"start-time\":5},{\"jid\":\"j1\",\"name\":"
            + "\"psi-flink party A session 0f0e0d0c-0000-4000-8000-000000000001\",\"start-time\":7}]}");
    answers.put(
        "/jobs/j1",
        "{\"state\":\"RUNNING\",\"vertices\":["
            + "{\"id\":\"v1\",\"name\":\"Source: a -> as a -> WHERE x > 1 -> tokenize a\",\"status\":\""
            + tokenizeStatus
            + "\"},"
            + "{\"id\":\"v2\",\"name\":\"count rows -> public size rounded\",\"status\":\"RUNNING\"},"
            + "{\"id\":\"v3\",\"name\":\"psi bins -> Sink: Writer\",\"status\":\"RUNNING\"}]}");
  }

  @Test
  void beforeFlinkKnowsTheJobThePartyIsInItsHandshake() {
    answers.put("/jobs/overview", "{\"jobs\":[]}");
    Progress p = reader(Role.A).poll();
    assertEquals(Model.Phase.HANDSHAKE, p.phase());
  }

  @Test
  void findsTheJobByNameAndTheBinsByTheirMetrics() {
    job("FINISHED");
    String metrics = "/jobs/j1/vertices/v3/subtasks/metrics";
    answers.put(
        metrics,
        "[{\"id\":\"psi_bins.psi.binsDone\"},{\"id\":\"psi_bins.psi.bytesSent\"},"
            + "{\"id\":\"psi_bins.psi.binsTotal\"}]");
    answers.put(
        metrics + "?agg=sum&get=psi_bins.psi.binsDone,psi_bins.psi.binsTotal",
        "[{\"id\":\"psi_bins.psi.binsDone\",\"sum\":3.0},"
            + "{\"id\":\"psi_bins.psi.binsTotal\",\"sum\":8.0}]");
    FlinkProgress a = reader(Role.A);
    assertEquals(new Progress(Model.Phase.PSI, 3, 8L), a.poll());
    assertEquals("j1", a.jobId().orElseThrow()); // the newest job of party A, not B's
  }

  @Test
  void tokenizeThenBinSpillByTheTokenizeVertex() {
    job("RUNNING");
    answers.put("/jobs/j1/vertices/v3/subtasks/metrics", "[]");
    assertEquals(new Progress(Model.Phase.TOKENIZE, 0, null), reader(Role.A).poll());
    job("FINISHED");
    assertEquals(new Progress(Model.Phase.BIN_SPILL, 0, null), reader(Role.A).poll());
  }

  @Test
  void theOtherPartysJobIsNotThisOne() {
    answers.put(
        "/jobs/overview",
        "{\"jobs\":[{\"jid\":\"j1\",\"name\":\"psi-flink party A session"
            + " 0f0e0d0c-0000-4000-8000-000000000001\",\"start-time\":7}]}");
    FlinkProgress b = reader(Role.B);
    assertEquals(Model.Phase.HANDSHAKE, b.poll().phase());
    assertNull(b.jobId().orElse(null));
  }
}
