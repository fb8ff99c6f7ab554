package io.psiflink.bridge;

import java.io.Serializable;
import java.time.Duration;
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
 */
public record RelayConfig(String bindHost, int port, PartyCredentials server, Set<String> allowedParties,
    Duration pairTimeout, int maxFrameBytes) implements Serializable {
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
  }

  /** 127.0.0.1, an ephemeral port, 60 s pair timeout, 4 MiB frames. */
  public static RelayConfig defaults(PartyCredentials server, Set<String> allowedParties) {
    return new RelayConfig("127.0.0.1", 0, server, allowedParties, DEFAULT_PAIR_TIMEOUT, DEFAULT_MAX_FRAME_BYTES);
  }

  public RelayConfig withBindHost(String bindHost) {
    return new RelayConfig(bindHost, port, server, allowedParties, pairTimeout, maxFrameBytes);
  }

  public RelayConfig withPort(int port) {
    return new RelayConfig(bindHost, port, server, allowedParties, pairTimeout, maxFrameBytes);
  }

  public RelayConfig withPairTimeout(Duration pairTimeout) {
    return new RelayConfig(bindHost, port, server, allowedParties, pairTimeout, maxFrameBytes);
  }

  public RelayConfig withMaxFrameBytes(int maxFrameBytes) {
    return new RelayConfig(bindHost, port, server, allowedParties, pairTimeout, maxFrameBytes);
  }

  static void checkMaxFrameBytes(int maxFrameBytes) {
    if (maxFrameBytes <= 0 || maxFrameBytes > MAX_FRAME_BYTES_LIMIT) {
      throw new IllegalArgumentException("maxFrameBytes must be 1.." + MAX_FRAME_BYTES_LIMIT + ", got " + maxFrameBytes);
    }
  }
}
