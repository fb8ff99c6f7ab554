package io.psiflink.coordinator;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The configuration of one party's coordinator, read from a YAML file. Relative paths are resolved
 * against the directory of the file. Example (see docs/coordinator.md):
 *
 * <pre>
 * party: alice
 * listen: {host: 127.0.0.1, port: 8443}
 * tls: {certificate: alice.pem, privateKey: alice.key, trustedCa: ca.pem}
 * database: {url: "jdbc:sqlite:coordinator.db"}
 * tokensFile: tokens
 * peer: {name: bob, url: "https://bob.example:8443", tokenFile: peer-token}
 * bridge: {endpoint: "alice.example:7443", certificate: alice.pem}
 * approvalTtl: PT24H
 * </pre>
 *
 * @param party this party's name (one party per coordinator)
 * @param listen where the HTTPS API listens
 * @param tls the server's certificate chain and key (PEM), and the CA trusted for the peer coordinator
 * @param database JDBC URL (SQLite by default; {@code jdbc:postgresql://...} supported) and credentials
 * @param tokensFile the API tokens this coordinator accepts, as SHA-256 hashes ({@link Tokens})
 * @param peer the other party: its name, its coordinator's URL and the file holding the token this
 *     coordinator presents to it
 * @param bridge this party's bridge endpoint (host:port) and the certificate its job presents there;
 *     the session records carry the endpoint and the certificate's SHA-256 fingerprint
 * @param approvalTtl how long a submitted query waits for the other party's decision
 * @param sweepInterval how often pending queries are checked for expiry and polled at the peer
 * @param defaults session defaults: σ, protocol, bins (0: chosen by the job)
 * @param protocols the native PSI protocols this party's jobs offer (default: kkrt); a query
 *     naming another one is refused
 */
@JsonIgnoreProperties(ignoreUnknown = false)
public record CoordinatorConfig(
    String party,
    Listen listen,
    Tls tls,
    Database database,
    Path tokensFile,
    Peer peer,
    Bridge bridge,
    Duration approvalTtl,
    Duration sweepInterval,
    Defaults defaults,
    List<String> protocols) {

  public record Listen(String host, int port) {}

  public record Tls(Path certificate, Path privateKey, Path trustedCa) {}

  public record Database(String url, String user, String password) {}

  public record Peer(String name, String url, Path tokenFile) {}

  public record Bridge(String endpoint, Path certificate) {}

  public record Defaults(Integer sigma, String protocol, Integer bins) {}

  public static final Duration DEFAULT_TTL = Duration.ofHours(24);
  public static final Duration DEFAULT_SWEEP = Duration.ofSeconds(5);

  public CoordinatorConfig {
    require(party, "party");
    require(listen, "listen");
    require(tls, "tls");
    require(tls.certificate(), "tls.certificate");
    require(tls.privateKey(), "tls.privateKey");
    require(tls.trustedCa(), "tls.trustedCa");
    require(tokensFile, "tokensFile");
    require(peer, "peer");
    require(peer.name(), "peer.name");
    require(peer.url(), "peer.url");
    require(peer.tokenFile(), "peer.tokenFile");
    require(bridge, "bridge");
    require(bridge.endpoint(), "bridge.endpoint");
    require(bridge.certificate(), "bridge.certificate");
    if (peer.name().equals(party)) {
      throw new IllegalArgumentException("config: peer.name must differ from party");
    }
    if (database == null || database.url() == null) {
      database = new Database("jdbc:sqlite:coordinator.db", null, null);
    }
    approvalTtl = approvalTtl == null ? DEFAULT_TTL : approvalTtl;
    sweepInterval = sweepInterval == null ? DEFAULT_SWEEP : sweepInterval;
    if (approvalTtl.isNegative() || approvalTtl.isZero() || sweepInterval.isNegative()
        || sweepInterval.isZero()) {
      throw new IllegalArgumentException("config: approvalTtl and sweepInterval must be positive");
    }
    Defaults d = defaults == null ? new Defaults(null, null, null) : defaults;
    defaults = new Defaults(d.sigma() == null ? 40 : d.sigma(),
        d.protocol() == null ? "kkrt" : d.protocol(), d.bins() == null ? 0 : d.bins());
    protocols = protocols == null || protocols.isEmpty() ? List.of("kkrt") : List.copyOf(protocols);
    if (!protocols.contains(defaults.protocol())) {
      throw new IllegalArgumentException("config: defaults.protocol " + defaults.protocol()
          + " is not among protocols " + protocols);
    }
  }

  private static void require(Object value, String name) {
    if (value == null) {
      throw new IllegalArgumentException("config: " + name + " is required");
    }
  }

  /** Reads a YAML config file; relative paths are taken relative to the file's directory. */
  public static CoordinatorConfig load(Path file) throws IOException {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory())
        .registerModule(new JavaTimeModule())
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    CoordinatorConfig c = yaml.readValue(file.toFile(), CoordinatorConfig.class);
    return c.relativeTo(file.toAbsolutePath().getParent());
  }

  /** This config with relative paths (and a relative SQLite file) resolved against {@code dir}. */
  public CoordinatorConfig relativeTo(Path dir) {
    Objects.requireNonNull(dir, "dir");
    String url = database.url();
    String prefix = "jdbc:sqlite:";
    if (url.startsWith(prefix) && !url.startsWith(prefix + "/") && !url.contains(":memory:")
        && !url.startsWith(prefix + "file:")) {
      url = prefix + dir.resolve(url.substring(prefix.length()));
    }
    return new CoordinatorConfig(party, listen,
        new Tls(dir.resolve(tls.certificate()), dir.resolve(tls.privateKey()),
            dir.resolve(tls.trustedCa())),
        new Database(url, database.user(), database.password()),
        dir.resolve(tokensFile),
        new Peer(peer.name(), peer.url(), dir.resolve(peer.tokenFile())),
        new Bridge(bridge.endpoint(), dir.resolve(bridge.certificate())),
        approvalTtl, sweepInterval, defaults, protocols);
  }
}
