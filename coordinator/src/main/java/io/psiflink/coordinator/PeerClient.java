package io.psiflink.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import javax.net.ssl.SSLContext;

/**
 * Calls the peer coordinator's {@code /v1/peer/...} API over HTTPS: the peer's server certificate
 * must chain to the configured CA and match its host name; this coordinator authenticates with the
 * bearer token the peer issued to it.
 */
final class PeerClient {
  /** The peer answered with an error status. */
  static final class PeerError extends Exception {
    private static final long serialVersionUID = 1L;
    final int status;
    final JsonNode body;

    PeerError(int status, JsonNode body) {
      super(
          "peer coordinator answered "
              + status
              + ": "
              + (body != null && body.has("error") ? body.get("error").asText() : "(no message)"));
      this.status = status;
      this.body = body;
    }
  }

  private final HttpClient http;
  private final String baseUrl;
  private final String token;
  private final ObjectMapper json;

  PeerClient(SSLContext tls, String baseUrl, String token, ObjectMapper json) {
    this.http =
        HttpClient.newBuilder()
            .sslContext(tls)
            .connectTimeout(Duration.ofSeconds(10))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.token = token;
    this.json = json;
  }

  JsonNode get(String path) throws IOException, PeerError {
    return send(HttpRequest.newBuilder(uri(path)).GET());
  }

  JsonNode post(String path, Object body) throws IOException, PeerError {
    return send(
        HttpRequest.newBuilder(uri(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body))));
  }

  static String segment(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private URI uri(String path) {
    return URI.create(baseUrl + path);
  }

  private JsonNode send(HttpRequest.Builder b) throws IOException, PeerError {
    HttpRequest req =
        b.header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(30)).build();
    HttpResponse<byte[]> resp;
    try {
      resp = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    JsonNode body = null;
    if (resp.body().length > 0) {
      try {
        body = json.readTree(resp.body());
      } catch (IOException e) {
        body = null;
      }
    }
    if (resp.statusCode() / 100 != 2) {
      throw new PeerError(resp.statusCode(), body);
    }
    return body;
  }
}
