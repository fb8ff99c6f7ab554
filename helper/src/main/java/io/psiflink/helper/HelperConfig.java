package io.psiflink.helper;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.psiflink.api.HostPort;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The helper service's configuration (YAML, docs/operations.md "Running a helper"):
 *
 * <pre>
 * relay: relay.example.org:7443       # the bridge relay the parties use
 * tls:                                # the helper's identity; CN = the helper's party name
 *   certificate: helper.pem           # chain, leaf first
 *   privateKey: helper.key            # PKCS#8
 *   trustedCa: parties-ca.pem         # CA(s) the parties' certificates (and the relay's) chain to
 * allowedParties: [bank-a, bank-b]    # the parties this helper serves
 * maxFilterBits: 34                   # largest L accepted (default 34: 2 GiB per filter)
 * sessionTimeout: 10m                 # how long the first party waits for the second
 * idleTimeout: 2m                     # how long a stream may stay silent mid-session
 * maxSessions: 8                      # sessions served at once
 * partyCas:                           # optional: each party's own CA(s); then a certificate
 *   bank-a: bank-a-ca.pem             #   speaks for a party only if it chains to that party's
 *   bank-b: bank-b-ca.pem             #   CA (trustedCa alone lets either CA issue either name)
 * </pre>
 *
 * Relative paths are taken relative to the file's directory. Durations: 500ms, 30s, 10m, 1h or
 * ISO-8601 (PT10M).
 */
public record HelperConfig(
    HostPort relay,
    Path certificate,
    Path privateKey,
    Path trustedCa,
    Set<String> allowedParties,
    int maxFilterBits,
    Duration sessionTimeout,
    Duration idleTimeout,
    int maxSessions,
    Map<String, Path> partyCas) {
  public static final int DEFAULT_MAX_FILTER_BITS = 34;
  public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofMinutes(10);
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(2);
  public static final int DEFAULT_MAX_SESSIONS = 8;

  private static final Set<String> KEYS =
      Set.of(
          "relay",
          "tls",
          "allowedParties",
          "maxFilterBits",
          "sessionTimeout",
          "idleTimeout",
          "maxSessions",
          "partyCas");
  private static final Set<String> TLS_KEYS = Set.of("certificate", "privateKey", "trustedCa");

  public HelperConfig {
    Objects.requireNonNull(relay, "relay");
    Objects.requireNonNull(certificate, "certificate");
    Objects.requireNonNull(privateKey, "privateKey");
    Objects.requireNonNull(trustedCa, "trustedCa");
    if (allowedParties == null || allowedParties.isEmpty()) {
      throw new IllegalArgumentException("config: allowedParties must name at least one party");
    }
    allowedParties = Set.copyOf(allowedParties);
    if (maxFilterBits < HelperClient.MIN_FILTER_BITS
        || maxFilterBits > HelperClient.MAX_FILTER_BITS) {
      throw new IllegalArgumentException(
          "config: maxFilterBits must be "
              + HelperClient.MIN_FILTER_BITS
              + ".."
              + HelperClient.MAX_FILTER_BITS
              + ", got "
              + maxFilterBits);
    }
    requirePositive(sessionTimeout, "sessionTimeout");
    requirePositive(idleTimeout, "idleTimeout");
    if (maxSessions < 1 || maxSessions > 10_000) {
      throw new IllegalArgumentException(
          "config: maxSessions must be 1..10000, got " + maxSessions);
    }
    partyCas = partyCas == null ? Map.of() : Map.copyOf(partyCas);
    if (!partyCas.isEmpty() && !partyCas.keySet().equals(allowedParties)) {
      throw new IllegalArgumentException(
          "config: partyCas must name exactly the allowed parties "
              + new java.util.TreeSet<>(allowedParties)
              + ", not "
              + new java.util.TreeSet<>(partyCas.keySet()));
    }
  }

  /** Without per-party CAs: any certificate of an allowed name from {@code trustedCa}. */
  public HelperConfig(
      HostPort relay,
      Path certificate,
      Path privateKey,
      Path trustedCa,
      Set<String> allowedParties,
      int maxFilterBits,
      Duration sessionTimeout,
      Duration idleTimeout,
      int maxSessions) {
    this(
        relay,
        certificate,
        privateKey,
        trustedCa,
        allowedParties,
        maxFilterBits,
        sessionTimeout,
        idleTimeout,
        maxSessions,
        Map.of());
  }

  /** This config with each party tied to its own CA(s). */
  public HelperConfig withPartyCas(Map<String, Path> partyCas) {
    return new HelperConfig(
        relay,
        certificate,
        privateKey,
        trustedCa,
        allowedParties,
        maxFilterBits,
        sessionTimeout,
        idleTimeout,
        maxSessions,
        partyCas);
  }

  /**
   * Reads a YAML config file.
   *
   * @throws IllegalArgumentException naming the key that is missing, unknown or invalid
   * @throws IOException if the file cannot be read or is not YAML
   */
  public static HelperConfig load(Path file) throws IOException {
    JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("config " + file + ": expected a YAML mapping");
    }
    Path dir = file.toAbsolutePath().getParent();
    unknownKeys(root, KEYS, "");
    JsonNode tls = required(root, "tls");
    if (!tls.isObject()) {
      throw new IllegalArgumentException("config: tls must be a mapping");
    }
    unknownKeys(tls, TLS_KEYS, "tls.");
    HostPort relay;
    try {
      relay = HostPort.parse(text(root, "relay"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("config: relay: " + e.getMessage(), e);
    }
    JsonNode parties = required(root, "allowedParties");
    if (!parties.isArray()) {
      throw new IllegalArgumentException("config: allowedParties must be a list of party names");
    }
    Set<String> allowed = new LinkedHashSet<>();
    for (JsonNode p : parties) {
      if (!p.isTextual() || p.asText().isBlank()) {
        throw new IllegalArgumentException(
            "config: allowedParties must be a list of party names, not " + p);
      }
      allowed.add(p.asText());
    }
    Map<String, Path> partyCas = new LinkedHashMap<>();
    JsonNode cas = root.get("partyCas");
    if (cas != null && !cas.isNull()) {
      if (!cas.isObject()) {
        throw new IllegalArgumentException(
            "config: partyCas must map each allowed party to its CA file");
      }
      for (Iterator<String> it = cas.fieldNames(); it.hasNext(); ) {
        String party = it.next();
        partyCas.put(party, dir.resolve(text(cas, party, "partyCas.")));
      }
    }
    return new HelperConfig(
        relay,
        dir.resolve(text(tls, "certificate", "tls.")),
        dir.resolve(text(tls, "privateKey", "tls.")),
        dir.resolve(text(tls, "trustedCa", "tls.")),
        allowed,
        integer(root, "maxFilterBits", DEFAULT_MAX_FILTER_BITS),
        duration(root, "sessionTimeout", DEFAULT_SESSION_TIMEOUT),
        duration(root, "idleTimeout", DEFAULT_IDLE_TIMEOUT),
        integer(root, "maxSessions", DEFAULT_MAX_SESSIONS),
        partyCas);
  }

  /**
   * This config as YAML that {@link #load} reads back equal (absolute paths; durations in
   * ISO-8601), e.g. for a tool that starts {@code HelperMain} in a JVM of its own.
   */
  public String toYaml() {
    StringBuilder y = new StringBuilder();
    y.append("relay: ").append(quote(relay.toString())).append('\n');
    y.append("tls:\n");
    y.append("  certificate: ").append(quote(certificate.toAbsolutePath().toString())).append('\n');
    y.append("  privateKey: ").append(quote(privateKey.toAbsolutePath().toString())).append('\n');
    y.append("  trustedCa: ").append(quote(trustedCa.toAbsolutePath().toString())).append('\n');
    y.append("allowedParties:\n");
    for (String p : new java.util.TreeSet<>(allowedParties)) {
      y.append("  - ").append(quote(p)).append('\n');
    }
    y.append("maxFilterBits: ").append(maxFilterBits).append('\n');
    y.append("sessionTimeout: ").append(sessionTimeout).append('\n');
    y.append("idleTimeout: ").append(idleTimeout).append('\n');
    y.append("maxSessions: ").append(maxSessions).append('\n');
    if (!partyCas.isEmpty()) {
      y.append("partyCas:\n");
      for (String p : new java.util.TreeSet<>(partyCas.keySet())) {
        y.append("  ")
            .append(quote(p))
            .append(": ")
            .append(quote(partyCas.get(p).toAbsolutePath().toString()))
            .append('\n');
      }
    }
    return y.toString();
  }

  /** A YAML double-quoted scalar. */
  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** Parses 500ms, 30s, 10m, 1h or ISO-8601. */
  static Duration parseDuration(String text) {
    return io.psiflink.bridge.Durations.parse(text);
  }

  private static void unknownKeys(JsonNode node, Set<String> known, String prefix) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!known.contains(k)) {
        throw new IllegalArgumentException(
            "config: unknown key '"
                + prefix
                + k
                + "' (known: "
                + List.copyOf(new java.util.TreeSet<>(known))
                + ")");
      }
    }
  }

  private static JsonNode required(JsonNode node, String key) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      throw new IllegalArgumentException("config: " + key + " is required");
    }
    return v;
  }

  private static String text(JsonNode node, String key) {
    return text(node, key, "");
  }

  private static String text(JsonNode node, String key, String prefix) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      throw new IllegalArgumentException("config: " + prefix + key + " is required");
    }
    if (!v.isTextual() || v.asText().isBlank()) {
      throw new IllegalArgumentException("config: " + prefix + key + " must be a non-empty text");
    }
    return v.asText();
  }

  private static int integer(JsonNode node, String key, int otherwise) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      return otherwise;
    }
    if (!v.isInt()) {
      throw new IllegalArgumentException("config: " + key + " must be an integer, not " + v);
    }
    return v.asInt();
  }

  private static Duration duration(JsonNode node, String key, Duration otherwise) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      return otherwise;
    }
    try {
      return parseDuration(v.asText());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("config: " + key + ": " + e.getMessage(), e);
    }
  }

  private static void requirePositive(Duration d, String key) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("config: " + key + " must be positive, got " + d);
    }
  }
}
