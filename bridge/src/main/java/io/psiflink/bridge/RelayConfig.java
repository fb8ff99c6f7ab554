package io.psiflink.bridge;

import java.io.Serializable;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Configuration of a {@link BridgeRelay}.
 *
 * @param bindHost address to listen on ("0.0.0.0" for all interfaces)
 * @param port TCP port; 0 picks a free ephemeral port (see {@link BridgeRelay#port()})
 * @param server the relay's TLS identity and the CA(s) client certificates must chain to
 * @param allowedParties CNs of the client certificates allowed to open streams
 * @param pairTimeout how long a stream waits for its peer before failing
 * @param maxFrameBytes the largest DATA payload a client may send
 * @param partyTrust per allowed party, the CA(s) or pinned certificates that may speak for it; when
 *     not empty, every allowed party must have an entry and a client certificate is admitted for
 *     party P (its CN) only if it chains to P's CA or matches P's pin. Empty: the CN alone decides
 *     (any CA the relay trusts may issue any party's CN), which is only fit for a single-CA setup.
 */
public record RelayConfig(
    String bindHost,
    int port,
    PartyCredentials server,
    Set<String> allowedParties,
    Duration pairTimeout,
    int maxFrameBytes,
    Map<String, PartyTrust> partyTrust)
    implements Serializable {
  public static final Duration DEFAULT_PAIR_TIMEOUT = Duration.ofSeconds(60);
  public static final int DEFAULT_MAX_FRAME_BYTES = 4 << 20;

  /** Frames are held whole in memory; keep them well inside what a JVM array and gRPC can carry. */
  public static final int MAX_FRAME_BYTES_LIMIT = 256 << 20;

  public RelayConfig {
    Objects.requireNonNull(bindHost, "bindHost");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be 0..65535, got " + port);
    }
    Objects.requireNonNull(server, "server");
    if (allowedParties == null || allowedParties.isEmpty()) {
      throw new IllegalArgumentException("allowedParties must name at least one party");
    }
    allowedParties = Set.copyOf(allowedParties);
    Durations.requirePositive(pairTimeout, "pairTimeout");
    checkMaxFrameBytes(maxFrameBytes);
    partyTrust = partyTrust == null ? Map.of() : Map.copyOf(partyTrust);
    if (!partyTrust.isEmpty() && !partyTrust.keySet().equals(allowedParties)) {
      throw new IllegalArgumentException(
          "partyTrust must name exactly the allowed parties "
              + allowedParties
              + ", not "
              + partyTrust.keySet());
    }
  }

  /** Without per-party trust (the CN alone decides). */
  public RelayConfig(
      String bindHost,
      int port,
      PartyCredentials server,
      Set<String> allowedParties,
      Duration pairTimeout,
      int maxFrameBytes) {
    this(bindHost, port, server, allowedParties, pairTimeout, maxFrameBytes, Map.of());
  }

  /** Ties each allowed party to its own CA(s) or pinned certificates. */
  public RelayConfig withPartyTrust(Map<String, PartyTrust> partyTrust) {
    return new RelayConfig(
        bindHost, port, server, allowedParties, pairTimeout, maxFrameBytes, partyTrust);
  }

  /** 127.0.0.1, an ephemeral port, 60 s pair timeout, 4 MiB frames. */
  public static RelayConfig defaults(PartyCredentials server, Set<String> allowedParties) {
    return new RelayConfig(
        "127.0.0.1", 0, server, allowedParties, DEFAULT_PAIR_TIMEOUT, DEFAULT_MAX_FRAME_BYTES);
  }

  public RelayConfig withBindHost(String bindHost) {
    return new RelayConfig(
        bindHost, port, server, allowedParties, pairTimeout, maxFrameBytes, partyTrust);
  }

  public RelayConfig withPort(int port) {
    return new RelayConfig(
        bindHost, port, server, allowedParties, pairTimeout, maxFrameBytes, partyTrust);
  }

  public RelayConfig withPairTimeout(Duration pairTimeout) {
    return new RelayConfig(
        bindHost, port, server, allowedParties, pairTimeout, maxFrameBytes, partyTrust);
  }

  public RelayConfig withMaxFrameBytes(int maxFrameBytes) {
    return new RelayConfig(
        bindHost, port, server, allowedParties, pairTimeout, maxFrameBytes, partyTrust);
  }

  static void checkMaxFrameBytes(int maxFrameBytes) {
    if (maxFrameBytes <= 0 || maxFrameBytes > MAX_FRAME_BYTES_LIMIT) {
      throw new IllegalArgumentException(
          "maxFrameBytes must be 1.." + MAX_FRAME_BYTES_LIMIT + ", got " + maxFrameBytes);
    }
  }
}
