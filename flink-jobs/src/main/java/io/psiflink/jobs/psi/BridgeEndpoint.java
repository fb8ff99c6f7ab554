package io.psiflink.jobs.psi;

import io.psiflink.bridge.BridgeClientConfig;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.PartyCredentials;
import java.io.Serializable;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Where a job reaches the bridge and with which identity: file paths, so task managers load the
 * credentials themselves (the paths must be readable there).
 */
public record BridgeEndpoint(
    String host,
    int port,
    String certChainPem,
    String privateKeyPem,
    String trustedCaPem,
    Duration pairTimeout,
    Duration idleTimeout)
    implements Serializable {

  public PartyCredentials credentials() throws BridgeException {
    return PartyCredentials.load(
        Path.of(certChainPem), Path.of(privateKeyPem), Path.of(trustedCaPem));
  }

  public BridgeClientConfig clientConfig() throws BridgeException {
    BridgeClientConfig d = BridgeClientConfig.defaults(host, port, credentials());
    return new BridgeClientConfig(
        host, port, d.self(), pairTimeout, idleTimeout, d.maxFrameBytes());
  }
}
