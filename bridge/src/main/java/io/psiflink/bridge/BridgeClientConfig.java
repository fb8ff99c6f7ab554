package io.psiflink.bridge;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * Configuration of a {@link BridgeClient}.
 *
 * @param host the relay's host name or IP; must match the relay certificate's SAN
 * @param port the relay's port
 * @param self this party's TLS identity and the CA(s) the relay's certificate must chain to
 * @param pairTimeout how long {@link BridgeClient#open} waits for the peer
 * @param idleTimeout how long {@link BridgeStream#receive} waits for a frame, and {@link
 *     BridgeStream#send} for the peer to take one
 * @param maxFrameBytes the largest DATA payload this client sends or accepts
 *     <p>Serializable (credentials travel as file paths), so it can be part of a Flink operator.
 */
public record BridgeClientConfig(
    String host,
    int port,
    PartyCredentials self,
    Duration pairTimeout,
    Duration idleTimeout,
    int maxFrameBytes)
    implements Serializable {
  public static final Duration DEFAULT_PAIR_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);

  public BridgeClientConfig {
    Objects.requireNonNull(host, "host");
    if (port <= 0 || port > 65535) {
      throw new IllegalArgumentException("port must be 1..65535, got " + port);
    }
    Objects.requireNonNull(self, "self");
    Durations.requirePositive(pairTimeout, "pairTimeout");
    Durations.requirePositive(idleTimeout, "idleTimeout");
    RelayConfig.checkMaxFrameBytes(maxFrameBytes);
  }

  /** 60 s pair timeout, 60 s idle timeout, 4 MiB frames. */
  public static BridgeClientConfig defaults(String host, int port, PartyCredentials self) {
    return new BridgeClientConfig(
        host,
        port,
        self,
        DEFAULT_PAIR_TIMEOUT,
        DEFAULT_IDLE_TIMEOUT,
        RelayConfig.DEFAULT_MAX_FRAME_BYTES);
  }

  public BridgeClientConfig withPairTimeout(Duration pairTimeout) {
    return new BridgeClientConfig(host, port, self, pairTimeout, idleTimeout, maxFrameBytes);
  }

  public BridgeClientConfig withIdleTimeout(Duration idleTimeout) {
    return new BridgeClientConfig(host, port, self, pairTimeout, idleTimeout, maxFrameBytes);
  }

  public BridgeClientConfig withMaxFrameBytes(int maxFrameBytes) {
    return new BridgeClientConfig(host, port, self, pairTimeout, idleTimeout, maxFrameBytes);
  }
}
