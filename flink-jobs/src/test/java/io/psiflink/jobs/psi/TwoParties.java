package io.psiflink.jobs.psi;

import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeClientConfig;
import io.psiflink.bridge.BridgeRelay;
import io.psiflink.bridge.RelayConfig;
import io.psiflink.bridge.ThrowawayPki;
import java.nio.file.Path;
import java.util.Set;

/** A bridge relay on loopback with TLS, and a connected client for each of party-a and party-b. */
public final class TwoParties implements AutoCloseable {
  public final BridgeRelay relay;
  public final BridgeClient a;
  public final BridgeClient b;

  public TwoParties(Path pkiDir) throws Exception {
    ThrowawayPki pki = ThrowawayPki.create(pkiDir, "relay", "party-a", "party-b");
    relay =
        BridgeRelay.start(
            RelayConfig.defaults(pki.credentials("relay"), Set.of("party-a", "party-b")));
    a =
        BridgeClient.connect(
            BridgeClientConfig.defaults("127.0.0.1", relay.port(), pki.credentials("party-a")));
    b =
        BridgeClient.connect(
            BridgeClientConfig.defaults("127.0.0.1", relay.port(), pki.credentials("party-b")));
  }

  @Override
  public void close() throws Exception {
    try (BridgeRelay r = relay;
        BridgeClient ca = a;
        BridgeClient cb = b) {
      // closes the clients, then the relay
    }
  }
}
