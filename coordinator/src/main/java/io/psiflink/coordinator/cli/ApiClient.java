package io.psiflink.coordinator.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A client of one coordinator's party API over HTTPS, with a party token. Errors are {@link
 * ApiError}s that say in words what the coordinator's error JSON says.
 */
public final class ApiClient {
  static final ObjectMapper JSON = new ObjectMapper();

  /** The coordinator answered with an error (or could not be reached: status 0). */
  public static final class ApiError extends Exception {
    private static final long serialVersionUID = 1L;
    public final int status;
    public final transient JsonNode body;

    ApiError(int status, JsonNode body, String message) {
      super(message);
      this.status = status;
      this.body = body;
    }
  }

  private final HttpClient http;
  private final String base;
  private final String token;

  /**
   * @param ca PEM file with the CA(s) that signed the coordinator's certificate; null: the JVM's
   *     default trust store
   */
  public ApiClient(String baseUrl, String token, Path ca) {
    HttpClient.Builder b =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(10))
            .version(HttpClient.Version.HTTP_1_1);
    if (ca != null) {
      b.sslContext(trusting(ca));
    }
    this.http = b.build();
    this.base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.token = token;
  }

  private static SSLContext trusting(Path ca) {
    try (InputStream in = Files.newInputStream(ca)) {
      KeyStore ts = KeyStore.getInstance("PKCS12");
      ts.load(null, null);
      int i = 0;
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        ts.setCertificateEntry("ca" + i++, c);
      }
      if (i == 0) {
        throw new IllegalArgumentException("no certificate in " + ca);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ts);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "cannot read the CA certificate " + ca + ": " + e.getMessage(), e);
    }
  }

  public JsonNode get(String path) throws ApiError {
    return send("GET", path, null);
  }

  public JsonNode post(String path, Object body) throws ApiError {
    return send("POST", path, body == null ? Map.of() : body);
  }

  private JsonNode send(String method, String path, Object body) throws ApiError {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(120))
            .header("Authorization", "Bearer " + token);
    try {
      if (body != null) {
        b.header("Content-Type", "application/json")
            .method(method, HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
      } else {
        b.method(method, HttpRequest.BodyPublishers.noBody());
      }
      HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
      JsonNode json = null;
      try {
        json = r.body().length == 0 ? null : JSON.readTree(r.body());
      } catch (IOException e) {
        json = null;
      }
      if (r.statusCode() / 100 != 2) {
        throw new ApiError(r.statusCode(), json, describe(r.statusCode(), json));
      }
      return json;
    } catch (IOException e) {
      throw new ApiError(
          0,
          null,
          "cannot reach the coordinator at "
              + base
              + ": "
              + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiError(0, null, "interrupted");
    }
  }

  /** The coordinator's error JSON in words: what, then where (field, clause, position). */
  static String describe(int status, JsonNode e) {
    String what =
        switch (status) {
          case 400 -> "bad request";
          case 401 -> "not authenticated (check the token)";
          case 403 -> "forbidden";
          case 404 -> "not found";
          case 409 -> "conflict";
          case 422 -> "the query does not validate";
          case 502 -> "the peer coordinator is unavailable";
          default -> "error";
        };
    StringBuilder sb = new StringBuilder("the coordinator answered " + status + " (" + what + ")");
    if (e == null) {
      return sb.toString();
    }
    sb.append(": ").append(e.path("error").asText("(no message)"));
    StringBuilder where = new StringBuilder();
    for (Iterator<Map.Entry<String, JsonNode>> it = e.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      if (!f.getKey().equals("error")
          && !f.getKey().equals("status")
          && !f.getValue().isNull()
          && f.getValue().isValueNode()) {
        where
            .append(where.isEmpty() ? "" : ", ")
            .append(f.getKey())
            .append(' ')
            .append(f.getValue().asText());
      }
    }
    JsonNode peer = e.get("peer");
    if (peer != null && peer.isObject() && peer.has("error")) {
      where
          .append(where.isEmpty() ? "" : ", ")
          .append("peer said: ")
          .append(peer.path("error").asText());
    }
    if (!where.isEmpty()) {
      sb.append(" [").append(where).append(']');
    }
    return sb.toString();
  }
}
