package io.psiflink.provider;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.psiflink.api.HostPort;
import io.psiflink.bridge.Durations;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The provider service's configuration (YAML, docs/operations.md "Running a provider"):
 *
 * <pre>
 * relay: relay.example.org:7443       # the bridge relay the parties use
 * tls:                                # the provider's identity; CN = the provider's name
 *   certificate: provider.pem         # chain, leaf first
 *   privateKey: provider.key          # PKCS#8
 *   trustedCa: parties-ca.pem         # CA(s) the parties' certificates (and the relay's) chain to
 * allowedParties: [org-a, org-b, org-c]   # the parties this provider serves
 * maxParties: 64                      # the most parties of one session (default 64)
 * maxSetSize: 4194304                 # the largest set size of a bin (default 2^22)
 * sessionTimeout: 10m                 # how long the first party of a setup or a bin waits for the rest
 * idleTimeout: 2m                     # how long a party may leave the provider waiting mid-run
 * maxSessions: 8                      # sessions set up or setting up at once
 * sessionIdle: 1h                     # how long a session's setup is kept after its last bin
 * </pre>
 *
 * Relative paths are taken relative to the file's directory. Durations: 500ms, 30s, 10m, 1h or
 * ISO-8601 (PT10M).
 */
public record ProviderConfig(
    HostPort relay,
    Path certificate,
    Path privateKey,
    Path trustedCa,
    Set<String> allowedParties,
    int maxParties,
    long maxSetSize,
    Duration sessionTimeout,
    Duration idleTimeout,
    int maxSessions,
    Duration sessionIdle) {
  public static final int DEFAULT_MAX_PARTIES = 64;

  /** 2^22: the native protocol takes set sizes below it, so this admits every demand. */
  public static final long DEFAULT_MAX_SET_SIZE = ProviderWire.NATIVE_SET_SIZE_LIMIT;

  public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofMinutes(10);
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(2);
  public static final int DEFAULT_MAX_SESSIONS = 8;
  public static final Duration DEFAULT_SESSION_IDLE = Duration.ofHours(1);

  public ProviderConfig {
    Objects.requireNonNull(relay, "relay");
    Objects.requireNonNull(certificate, "certificate");
    Objects.requireNonNull(privateKey, "privateKey");
    Objects.requireNonNull(trustedCa, "trustedCa");
    if (allowedParties == null || allowedParties.size() < 2) {
      throw new IllegalArgumentException("config: allowedParties must name at least two parties");
    }
    allowedParties = Set.copyOf(allowedParties);
    if (maxParties < 2 || maxParties > ProviderWire.MAX_PARTIES) {
      throw new IllegalArgumentException(
          "config: maxParties must be 2.." + ProviderWire.MAX_PARTIES + ", got " + maxParties);
    }
    if (maxSetSize < 1 || maxSetSize > ProviderWire.NATIVE_SET_SIZE_LIMIT) {
      throw new IllegalArgumentException(
          "config: maxSetSize must be 1.."
              + ProviderWire.NATIVE_SET_SIZE_LIMIT
              + ", got "
              + maxSetSize);
    }
    requirePositive(sessionTimeout, "sessionTimeout");
    requirePositive(idleTimeout, "idleTimeout");
    requirePositive(sessionIdle, "sessionIdle");
    if (maxSessions < 1 || maxSessions > 10_000) {
      throw new IllegalArgumentException(
          "config: maxSessions must be 1..10000, got " + maxSessions);
    }
  }

  /** The defaults for everything but the relay, the identity and the parties. */
  public static ProviderConfig defaults(
      HostPort relay, Path certificate, Path privateKey, Path trustedCa, Set<String> parties) {
    return new ProviderConfig(
        relay,
        certificate,
        privateKey,
        trustedCa,
        parties,
        DEFAULT_MAX_PARTIES,
        DEFAULT_MAX_SET_SIZE,
        DEFAULT_SESSION_TIMEOUT,
        DEFAULT_IDLE_TIMEOUT,
        DEFAULT_MAX_SESSIONS,
        DEFAULT_SESSION_IDLE);
  }

  /** The file's shape; absent keys are null. */
  private record File(
      String relay,
      Tls tls,
      List<String> allowedParties,
      Integer maxParties,
      Long maxSetSize,
      String sessionTimeout,
      String idleTimeout,
      Integer maxSessions,
      String sessionIdle) {}

  private record Tls(String certificate, String privateKey, String trustedCa) {}

  /**
   * Reads a YAML config file.
   *
   * @throws IllegalArgumentException naming the key that is missing, unknown or invalid
   * @throws IOException if the file cannot be read or is not YAML
   */
  public static ProviderConfig load(Path file) throws IOException {
    ObjectMapper yaml =
        new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
    File f;
    try {
      f = yaml.readValue(file.toFile(), File.class);
    } catch (UnrecognizedPropertyException e) {
      throw new IllegalArgumentException(
          "config: unknown key '"
              + keyOf(e)
              + "' (known: "
              + e.getKnownPropertyIds().stream()
                  .map(Object::toString)
                  .collect(Collectors.toCollection(TreeSet::new))
              + ")",
          e);
    } catch (MismatchedInputException e) {
      if (e.getPath().isEmpty()) {
        throw new IllegalArgumentException("config " + file + ": expected a YAML mapping", e);
      }
      throw new IllegalArgumentException(
          "config: "
              + keyOf(e)
              + " must be "
              + (e.getTargetType() == null ? "of another type" : kind(e.getTargetType())),
          e);
    } catch (JsonMappingException e) {
      throw new IllegalArgumentException("config: " + keyOf(e) + ": " + e.getOriginalMessage(), e);
    } catch (JacksonException e) {
      throw new IOException("config " + file + " is not YAML: " + e.getOriginalMessage(), e);
    }
    if (f == null) {
      throw new IllegalArgumentException("config " + file + ": expected a YAML mapping");
    }
    if (f.tls() == null) {
      throw new IllegalArgumentException("config: tls is required");
    }
    Path dir = file.toAbsolutePath().getParent();
    HostPort relay;
    try {
      relay = HostPort.parse(required(f.relay(), "relay"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          e.getMessage().startsWith("config:")
              ? e.getMessage()
              : "config: relay: " + e.getMessage(),
          e);
    }
    List<String> parties = f.allowedParties();
    if (parties == null || parties.stream().anyMatch(p -> p == null || p.isBlank())) {
      throw new IllegalArgumentException("config: allowedParties must be a list of party names");
    }
    return new ProviderConfig(
        relay,
        dir.resolve(required(f.tls().certificate(), "tls.certificate")),
        dir.resolve(required(f.tls().privateKey(), "tls.privateKey")),
        dir.resolve(required(f.tls().trustedCa(), "tls.trustedCa")),
        Set.copyOf(parties),
        f.maxParties() == null ? DEFAULT_MAX_PARTIES : f.maxParties(),
        f.maxSetSize() == null ? DEFAULT_MAX_SET_SIZE : f.maxSetSize(),
        duration(f.sessionTimeout(), "sessionTimeout", DEFAULT_SESSION_TIMEOUT),
        duration(f.idleTimeout(), "idleTimeout", DEFAULT_IDLE_TIMEOUT),
        f.maxSessions() == null ? DEFAULT_MAX_SESSIONS : f.maxSessions(),
        duration(f.sessionIdle(), "sessionIdle", DEFAULT_SESSION_IDLE));
  }

  /** The dotted key a Jackson error is about, e.g. {@code tls.certificate}. */
  private static String keyOf(JsonMappingException e) {
    return e.getPath().stream()
        .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
        .collect(Collectors.joining("."));
  }

  private static String kind(Class<?> type) {
    if (type == Integer.class || type == Long.class || type == int.class || type == long.class) {
      return "an integer";
    }
    if (type == List.class) {
      return "a list";
    }
    if (type == Tls.class) {
      return "a mapping";
    }
    return "a text";
  }

  private static String required(String value, String key) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("config: " + key + " is required");
    }
    return value;
  }

  private static Duration duration(String text, String key, Duration otherwise) {
    if (text == null) {
      return otherwise;
    }
    try {
      return Durations.parse(text);
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
