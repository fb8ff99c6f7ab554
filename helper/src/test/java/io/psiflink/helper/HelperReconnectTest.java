package io.psiflink.helper;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.HostPort;
import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeClientConfig;
import io.psiflink.bridge.BridgeRelay;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.RelayConfig;
import io.psiflink.bridge.ThrowawayPki;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The helper listens again, with backoff, when the relay restarts under it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HelperReconnectTest {
  @TempDir Path dir;
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  @Test
  void theHelperListensAgainAfterARelayRestart() throws Exception {
    ThrowawayPki pki = HelperBed.pki(dir);
    RelayConfig relayConfig =
        RelayConfig.defaults(
            pki.credentials(HelperBed.RELAY), Set.of(HelperBed.A, HelperBed.B, HelperBed.HELPER));
    BridgeRelay first = BridgeRelay.start(relayConfig);
    int port = first.port();
    PartyCredentials h = pki.credentials(HelperBed.HELPER);
    try (HelperService helper =
        HelperService.start(
            new HelperConfig(
                new HostPort("127.0.0.1", port),
                h.certChainPem(),
                h.privateKeyPem(),
                h.trustedCaPem(),
                Set.of(HelperBed.A, HelperBed.B),
                20,
                Duration.ofSeconds(20),
                Duration.ofSeconds(20),
                2))) {
      assertTrue(helper.isListening());
      first.close();
      await(() -> !helper.isListening(), "the helper noticed the relay going away");
      try (BridgeRelay second = BridgeRelay.start(relayConfig.withPort(port));
          BridgeClient a = client(pki, HelperBed.A, port);
          BridgeClient b = client(pki, HelperBed.B, port)) {
        await(helper::isListening, "the helper listens on the restarted relay");
        Duration t = Duration.ofSeconds(20);
        Future<HelperBed.Received> fa =
            HelperBed.receive(
                pool,
                a,
                pki.credentials(HelperBed.A),
                HelperBed.request("after-restart", Role.A, 10, t));
        Future<HelperBed.Received> fb =
            HelperBed.receive(
                pool,
                b,
                pki.credentials(HelperBed.B),
                HelperBed.request("after-restart", Role.B, 10, t));
        HelperBed.assertCorrelated(
            fa.get(30, TimeUnit.SECONDS), fb.get(30, TimeUnit.SECONDS), 10, 11);
      }
    }
  }

  private static BridgeClient client(ThrowawayPki pki, String party, int port) throws Exception {
    return BridgeClient.connect(
        BridgeClientConfig.defaults("127.0.0.1", port, pki.credentials(party)));
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertTrue(condition.getAsBoolean(), what);
  }
}
