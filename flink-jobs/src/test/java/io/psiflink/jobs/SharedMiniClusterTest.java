package io.psiflink.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster ./psi local's parties share: its REST endpoint answers no request of Flink's web API
 * (nobody on the machine can list, submit or cancel jobs through it), and closing it leaves its
 * work directory's tmp empty.
 */
class SharedMiniClusterTest {
  @TempDir Path work;

  @Test
  void restEndpointServesNothingAndCloseLeavesNoFiles() throws Exception {
    try (SharedMiniCluster cluster = SharedMiniCluster.start(2, work)) {
      URI rest = cluster.restAddress();
      HttpClient http = HttpClient.newHttpClient();
      for (String path : List.of("/overview", "/jobs", "/jars/upload", "/config")) {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(rest.resolve(path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(404, r.statusCode(), path + ": " + r.body());
      }
    }
    try (Stream<Path> left = Files.list(work.resolve("tmp"))) {
      assertEquals(List.of(), left.toList());
    }
  }
}
