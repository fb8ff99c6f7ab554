package io.psiflink.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import javax.net.ssl.SSLContext;

/** A test HTTPS client of one coordinator, with a given bearer token (or none). */
public final class Client {
  public static final ObjectMapper JSON = new ObjectMapper();

  /** A response: status, parsed JSON body (or null), raw body. */
  public record Reply(int status, JsonNode json, String raw) {
    public String error() {
      return json == null ? raw : json.path("error").asText();
    }

    @Override
    public String toString() {
      return status + " " + raw;
    }
  }

  private final HttpClient http;
  private final String base;
  private final String authorization;

  public Client(SSLContext trust, String base, String authorization) {
    this.http =
        HttpClient.newBuilder()
            .sslContext(trust)
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    this.base = base;
    this.authorization = authorization;
  }

  /** The same coordinator with another Authorization header value (null: none). */
  public Client withAuthorization(String authorization) {
    return new Client(http, base, authorization);
  }

  private Client(HttpClient http, String base, String authorization) {
    this.http = http;
    this.base = base;
    this.authorization = authorization;
  }

  public Reply get(String path) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
  }

  public Reply delete(String path) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).DELETE());
  }

  public Reply post(String path, Object body) {
    try {
      byte[] bytes =
          body instanceof String s
              ? s.getBytes(StandardCharsets.UTF_8)
              : JSON.writeValueAsBytes(body);
      return send(
          HttpRequest.newBuilder(URI.create(base + path))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofByteArray(bytes)));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private Reply send(HttpRequest.Builder b) {
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    try {
      HttpResponse<String> r =
          http.send(
              b.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
      JsonNode json = null;
      String ct = r.headers().firstValue("Content-Type").orElse("");
      if (ct.startsWith("application/json") && !r.body().isEmpty()) {
        json = JSON.readTree(r.body());
      }
      return new Reply(r.statusCode(), json, r.body());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
