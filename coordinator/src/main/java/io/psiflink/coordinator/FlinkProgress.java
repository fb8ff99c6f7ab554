package io.psiflink.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psiflink.api.JobMetricNames;
import io.psiflink.api.Role;
import io.psiflink.coordinator.Model.Phase;
import io.psiflink.coordinator.Model.Progress;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.api.common.JobStatus;

/**
 * A party job's status and progress, read from Flink's REST API: the embedded MiniCluster's (the
 * child JVM pins it to a loopback port) or the real cluster's ({@code job.flinkRestUrl}).
 *
 * <p>The job is found by its name, {@code psi-flink party <A|B> session <id>} (the newest such job;
 * both parties' jobs may run on one cluster). Before Flink knows it, the party is in its handshake
 * with the peer (which runs before the Flink job is submitted). Then: {@code tokenize} while the
 * tokenize vertex runs; {@code bin_spill} once it finished and no bin is done; {@code psi} while
 * bins run (each bin runs its PSI and then its reverse lookup and payload, so the two alternate and
 * are reported together as {@code psi}; the summary splits their time); {@code write} once every
 * bin is done and the job has not finished. Bins done and total are the sums of the PSI operator's
 * {@code psi.binsDone} counter and {@code psi.binsTotal} gauge over its subtasks. Every name comes
 * from {@link JobMetricNames}, which the job uses to name and register them.
 */
final class FlinkProgress {
  /** A vertex's state in Flink's REST API when all its subtasks ended well (ExecutionState). */
  private static final String VERTEX_FINISHED = "FINISHED";

  private static final String BINS_DONE = JobMetricNames.psiMetric(JobMetricNames.BINS_DONE);
  private static final String BINS_TOTAL = JobMetricNames.psiMetric(JobMetricNames.BINS_TOTAL);

  private final HttpClient http;
  private final String base;
  private final String jobName;
  private final ObjectMapper json;
  private volatile String jobId;

  FlinkProgress(String baseUrl, Role party, String session, ObjectMapper json) {
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(2))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    this.base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.jobName = JobMetricNames.jobName(party, session);
    this.json = json;
  }

  /** The Flink job id once the job is known to Flink. */
  Optional<String> jobId() {
    return Optional.ofNullable(jobId);
  }

  /** A job's state as Flink's REST API gives it ({@code state}), null for one this Flink lacks. */
  private static JobStatus status(JsonNode job) {
    try {
      return JobStatus.valueOf(job.path("state").asText());
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** The current progress; handshake while Flink has no job of this session (or no REST yet). */
  Progress poll() {
    try {
      if (jobId == null) {
        findJob();
      }
      if (jobId == null) {
        return new Progress(Phase.HANDSHAKE, 0, null);
      }
      JsonNode job = get("/jobs/" + jobId);
      JobStatus state = status(job);
      JsonNode tokenize = null;
      JsonNode psi = null;
      for (JsonNode v : job.path("vertices")) {
        String name = v.path("name").asText();
        if (name.contains(JobMetricNames.PSI_OPERATOR)) {
          psi = v;
        } else if (name.contains(JobMetricNames.TOKENIZE_OPERATOR)) {
          tokenize = v;
        }
      }
      long done = 0;
      Long total = null;
      if (psi != null) {
        long[] bins = bins(psi.path("id").asText());
        done = bins[0];
        total = bins[1] > 0 ? bins[1] : null;
      }
      Phase phase;
      if (state == JobStatus.FINISHED || (total != null && done >= total)) {
        phase = Phase.WRITE;
      } else if (done > 0) {
        phase = Phase.PSI;
      } else if (tokenize != null && tokenize.path("status").asText().equals(VERTEX_FINISHED)) {
        phase = Phase.BIN_SPILL;
      } else {
        phase = Phase.TOKENIZE;
      }
      return new Progress(phase, done, total);
    } catch (IOException e) {
      return null; // not reachable (yet, or any more): the caller keeps what it had
    }
  }

  private void findJob() throws IOException {
    JsonNode overview = get("/jobs/overview");
    long newest = -1;
    for (JsonNode j : overview.path("jobs")) {
      String name = j.path("name").asText();
      if (name.equals(jobName) && j.path("start-time").asLong() > newest) {
        newest = j.path("start-time").asLong();
        jobId = j.path("jid").asText();
      }
    }
  }

  /** {binsDone, binsTotal} summed over the PSI operator's subtasks (0 while not reported). */
  private long[] bins(String vertex) throws IOException {
    String path = "/jobs/" + jobId + "/vertices/" + vertex + "/subtasks/metrics";
    List<String> ids = new ArrayList<>();
    for (JsonNode m : get(path)) {
      String id = m.path("id").asText();
      if (id.endsWith(BINS_DONE) || id.endsWith(BINS_TOTAL)) {
        ids.add(id);
      }
    }
    long[] out = new long[2];
    if (ids.isEmpty()) {
      return out;
    }
    JsonNode values =
        get(
            path
                + "?agg=sum&get="
                + URLEncoder.encode(String.join(",", ids), StandardCharsets.UTF_8));
    for (JsonNode m : values) {
      long v = (long) m.path("sum").asDouble();
      out[m.path("id").asText().endsWith(BINS_DONE) ? 0 : 1] += v;
    }
    return out;
  }

  /**
   * Asks Flink to cancel the job (a real cluster: stopping the client alone would not stop it) and
   * waits up to {@code wait} for it to reach a terminal state. Call it once the client is gone, so
   * that no job is submitted after it.
   *
   * @return how it went, for the log
   */
  String cancel(Duration wait) {
    try {
      if (jobId == null) {
        findJob();
      }
      if (jobId == null) {
        return "no Flink job of this session at " + base;
      }
      HttpResponse<byte[]> r =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/jobs/" + jobId + "?mode=cancel"))
                  .method("PATCH", HttpRequest.BodyPublishers.noBody())
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofByteArray());
      if (r.statusCode() != 202 && r.statusCode() != 200) {
        return "Flink refused to cancel job "
            + jobId
            + ": "
            + r.statusCode()
            + " "
            + new String(r.body(), StandardCharsets.UTF_8);
      }
      long deadline = System.nanoTime() + wait.toNanos();
      JobStatus state = null;
      while (System.nanoTime() < deadline) {
        state = status(get("/jobs/" + jobId));
        if (state != null && state.isGloballyTerminalState()) {
          return "Flink job " + jobId + " " + state;
        }
        Thread.sleep(250);
      }
      return "Flink job " + jobId + " still " + state + " after " + wait.toSeconds() + " s";
    } catch (IOException e) {
      // the job fails on its own once its peer or client is gone
      return "cannot reach Flink at " + base + ": " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  private JsonNode get(String path) throws IOException {
    HttpResponse<byte[]> r;
    try {
      r =
          http.send(
              HttpRequest.newBuilder(URI.create(base + path))
                  .GET()
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofByteArray());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    if (r.statusCode() != 200) {
      throw new IOException("Flink REST " + path + ": " + r.statusCode());
    }
    return json.readTree(r.body());
  }
}
