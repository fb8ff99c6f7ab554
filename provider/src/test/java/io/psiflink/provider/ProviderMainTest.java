package io.psiflink.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.ServiceProcess;
import io.psiflink.bridge.ThrowawayPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** ProviderMain as `./psi provider` runs it: a JVM of its own, stopped by SIGTERM. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProviderMainTest {
  @TempDir Path dir;

  @Test
  void aBadConfigExitsTwoNamingTheKey() throws Exception {
    Path config = dir.resolve("provider.yaml");
    Files.writeString(config, "relay: localhost:1\nrelayTimeout: 5s\n");
    ServiceProcess sp =
        ServiceProcess.start(ProviderMain.class, config, "", new CompletableFuture<>());
    Process p = sp.process();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(2, p.exitValue());
    Thread.sleep(100);
    assertTrue(
        sp.lines().stream()
            .anyMatch(l -> l.contains("psi provider:") && l.contains("'relayTimeout'")),
        sp.output());
  }

  @Test
  void itServesUntilSigtermThenEndsItsSessionsAndStops() throws Exception {
    ThrowawayPki pki = ProviderBed.pki(dir.resolve("pki"));
    ExecutorService pool = Executors.newCachedThreadPool();
    try (ProviderBed bed = new ProviderBed(pki)) {
      PartyCredentials c = pki.credentials(ProviderBed.PROVIDER);
      Path config = dir.resolve("provider.yaml");
      Files.writeString(
          config,
          "relay: 127.0.0.1:"
              + bed.relay.port()
              + "\ntls:\n  certificate: "
              + c.certChainPem()
              + "\n  privateKey: "
              + c.privateKeyPem()
              + "\n  trustedCa: "
              + c.trustedCaPem()
              + "\nallowedParties: [party-a, party-b]\nsessionTimeout: 20s\n");
      CompletableFuture<String> listening = new CompletableFuture<>();
      ServiceProcess sp =
          ServiceProcess.start(ProviderMain.class, config, "listens on relay", listening);
      Process p = sp.process();
      try {
        listening.get(30, TimeUnit.SECONDS);
        ProviderBed.links(bed.connectAll(pool, "until-sigterm", 2, ""));
        p.toHandle().destroy(); // SIGTERM
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), "stopped on SIGTERM");
        assertEquals(143, p.exitValue());
        Thread.sleep(300);
        String all = sp.output();
        assertTrue(all.contains("session until-sigterm: ended (provider shutting down)"), all);
        assertTrue(all.contains("provider 'provider' stopped"), all);
      } finally {
        p.destroyForcibly();
        pool.shutdownNow();
      }
    }
  }
}
