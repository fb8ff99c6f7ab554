package io.psiflink.helper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
import io.psiflink.bridge.ServiceProcess;
import io.psiflink.bridge.ThrowawayPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** HelperMain as `./psi helper` runs it: a JVM of its own, stopped by SIGTERM. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HelperMainTest {
  @TempDir Path dir;

  /** HelperMain on {@code config}; its output collected, {@code seen} as the first with text. */
  private static ServiceProcess start(Path config, String text, CompletableFuture<String> seen)
      throws Exception {
    return ServiceProcess.start(HelperMain.class, config, text, seen);
  }

  @Test
  void aBadConfigExitsTwoNamingTheKey() throws Exception {
    Path config = dir.resolve("helper.yaml");
    Files.writeString(config, "relay: localhost:1\nrelayTimeout: 5s\n");
    ServiceProcess sp = start(config, "", new CompletableFuture<>());
    Process p = sp.process();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(2, p.exitValue());
    Thread.sleep(100);
    assertTrue(
        sp.lines().stream()
            .anyMatch(l -> l.contains("psi helper:") && l.contains("'relayTimeout'")),
        sp.output());
  }

  @Test
  void itServesUntilSigtermThenStopsCleanly() throws Exception {
    ThrowawayPki pki = HelperBed.pki(dir.resolve("pki"));
    try (HelperBed bed = new HelperBed(pki)) {
      Path config = dir.resolve("helper.yaml");
      Files.writeString(config, bed.config(Duration.ofMinutes(1)).toYaml());
      CompletableFuture<String> listening = new CompletableFuture<>();
      ServiceProcess sp = start(config, "listens on relay", listening);
      Process p = sp.process();
      try {
        listening.get(30, TimeUnit.SECONDS);
        assertEquals(1, bed.relay.listeningParties());
        p.toHandle().destroy(); // SIGTERM (Process.destroy would also close our end of its output)
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), "stopped on SIGTERM");
        Thread.sleep(500);
        assertTrue(
            sp.lines().stream().anyMatch(l -> l.contains("helper 'helper' stopped")),
            "exit " + p.exitValue() + ":\n" + sp.output());
      } finally {
        p.destroyForcibly();
      }
    }
  }

  @Test
  void aHelperKilledMidRunFailsThePartiesClearlyWithinTheirTimeout() throws Exception {
    ThrowawayPki pki = HelperBed.pki(dir.resolve("pki"));
    ExecutorService pool = Executors.newCachedThreadPool();
    try (HelperBed bed = new HelperBed(pki)) {
      Path config = dir.resolve("helper.yaml");
      Files.writeString(config, bed.config(Duration.ofMinutes(1)).toYaml());
      CompletableFuture<String> listening = new CompletableFuture<>();
      Process p = start(config, "listens on relay", listening).process();
      try {
        listening.get(30, TimeUnit.SECONDS);
        int bits = 24; // 4 chunks
        Duration timeout = Duration.ofSeconds(20);
        CountDownLatch atChunk1 = new CountDownLatch(1);
        Future<?> fa =
            pool.submit(
                () -> {
                  HelperClient.receive(
                      bed.client(HelperBed.A),
                      bed.creds(HelperBed.A),
                      HelperBed.request("killed", Role.A, bits, timeout),
                      (c, w) -> {
                        if (c == 1) {
                          atChunk1.countDown();
                        }
                        try {
                          Thread.sleep(200); // keeps the session going while the helper dies
                        } catch (InterruptedException e) {
                          Thread.currentThread().interrupt();
                        }
                      });
                  return null;
                });
        Future<HelperBed.Received> fb =
            HelperBed.receive(
                pool,
                bed.client(HelperBed.B),
                bed.creds(HelperBed.B),
                HelperBed.request("killed", Role.B, bits, timeout));
        assertTrue(atChunk1.await(30, TimeUnit.SECONDS));
        long start = System.nanoTime();
        p.destroyForcibly(); // SIGKILL: no goodbye from the helper
        HelperException ea = HelperServiceTest.failure(fa);
        HelperException eb = HelperServiceTest.failure(fb);
        HelperServiceTest.assertMentions(ea, "helper 'helper'");
        HelperServiceTest.assertMentions(eb, "helper 'helper'");
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(ms < timeout.toMillis(), "failed after " + ms + " ms: " + ea + " / " + eb);
      } finally {
        p.destroyForcibly();
        pool.shutdownNow();
      }
    }
  }
}
