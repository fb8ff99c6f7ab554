package io.psiflink.helper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.HostPort;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HelperConfigTest {
  @TempDir Path dir;

  private static final String FULL =
      """
      relay: relay.example.org:7443
      tls:
        certificate: certs/helper.pem
        privateKey: certs/helper.key
        trustedCa: /etc/psi/ca.pem
      allowedParties: [bank-a, bank-b]
      maxFilterBits: 30
      sessionTimeout: 5m
      idleTimeout: 45s
      maxSessions: 3
      """;

  private HelperConfig load(String yaml) throws Exception {
    Path f = dir.resolve("helper.yaml");
    Files.writeString(f, yaml);
    return HelperConfig.load(f);
  }

  private void assertRefused(String yaml, String... parts) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> load(yaml));
    for (String p : parts) {
      assertTrue(e.getMessage().contains(p), "'" + p + "' in: " + e.getMessage());
    }
  }

  @Test
  void readsEveryKeyAndResolvesRelativePaths() throws Exception {
    HelperConfig c = load(FULL);
    assertEquals(new HostPort("relay.example.org", 7443), c.relay());
    assertEquals(dir.resolve("certs/helper.pem"), c.certificate());
    assertEquals(dir.resolve("certs/helper.key"), c.privateKey());
    assertEquals(Path.of("/etc/psi/ca.pem"), c.trustedCa());
    assertEquals(Set.of("bank-a", "bank-b"), c.allowedParties());
    assertEquals(30, c.maxFilterBits());
    assertEquals(Duration.ofMinutes(5), c.sessionTimeout());
    assertEquals(Duration.ofSeconds(45), c.idleTimeout());
    assertEquals(3, c.maxSessions());
  }

  @Test
  void defaults() throws Exception {
    HelperConfig c =
        load(
            FULL.replaceAll(
                "(?m)^(maxFilterBits|sessionTimeout|idleTimeout|maxSessions):.*\\n", ""));
    assertEquals(34, c.maxFilterBits());
    assertEquals(Duration.ofMinutes(10), c.sessionTimeout());
    assertEquals(HelperConfig.DEFAULT_IDLE_TIMEOUT, c.idleTimeout());
    assertEquals(HelperConfig.DEFAULT_MAX_SESSIONS, c.maxSessions());
  }

  @Test
  void badConfigsAreRefusedNamingTheKey() {
    assertRefused(FULL + "relayHost: x\n", "unknown key 'relayHost'");
    assertRefused(
        FULL.replace("  privateKey: certs/helper.key\n", ""), "tls.privateKey is required");
    assertRefused(FULL.replace("trustedCa:", "trustedCas:"), "unknown key 'tls.trustedCas'");
    assertRefused(FULL.replace("relay: relay.example.org:7443\n", ""), "relay is required");
    assertRefused(FULL.replace("relay.example.org:7443", "relay.example.org"), "relay");
    assertRefused(FULL.replace("5m", "five minutes"), "sessionTimeout", "not a duration");
    assertRefused(FULL.replace("45s", "0s"), "idleTimeout must be positive");
    assertRefused(
        FULL.replace("maxFilterBits: 30", "maxFilterBits: 40"), "maxFilterBits must be 6..36");
    assertRefused(
        FULL.replace("maxSessions: 3", "maxSessions: many"), "maxSessions must be an integer");
    assertRefused(FULL.replace("[bank-a, bank-b]", "bank-a"), "allowedParties must be a list");
    assertRefused(FULL.replace("[bank-a, bank-b]", "[]"), "allowedParties must name at least one");
  }

  @Test
  void theExampleConfigOfDeployLoads() throws Exception {
    Path example =
        Path.of(System.getProperty("psi.repo.root", ".."), "deploy", "helper", "helper.yaml");
    HelperConfig c = HelperConfig.load(example);
    assertEquals(Set.of("alice", "bob"), c.allowedParties());
    assertEquals(HelperConfig.DEFAULT_MAX_FILTER_BITS, c.maxFilterBits());
    assertEquals(HelperConfig.DEFAULT_SESSION_TIMEOUT, c.sessionTimeout());
    assertTrue(c.certificate().endsWith(Path.of("certs", "helper", "bridge.pem")));
  }

  @Test
  void partyCasTieEachAllowedPartyToItsCa() throws Exception {
    HelperConfig c = load(FULL + "partyCas:\n  bank-a: cas/a.pem\n  bank-b: /etc/psi/b.pem\n");
    assertEquals(dir.resolve("cas/a.pem"), c.partyCas().get("bank-a"));
    assertEquals(Path.of("/etc/psi/b.pem"), c.partyCas().get("bank-b"));
    assertEquals(java.util.Map.of(), load(FULL).partyCas());
    assertRefused(
        FULL + "partyCas:\n  bank-a: cas/a.pem\n",
        "partyCas must name exactly the allowed parties [bank-a, bank-b]");
    assertRefused(FULL + "partyCas: [a.pem]\n", "partyCas must map each allowed party");
  }

  @Test
  void toYamlReadsBackEqual() throws Exception {
    HelperConfig c =
        new HelperConfig(
                new HostPort("relay.example.org", 7443),
                dir.resolve("a dir/helper \"1\".pem"),
                dir.resolve("helper.key"),
                dir.resolve("ca.pem"),
                Set.of("bank-a", "bank-b"),
                28,
                Duration.ofMillis(1500),
                Duration.ofMinutes(3),
                5)
            .withPartyCas(
                java.util.Map.of("bank-a", dir.resolve("a.pem"), "bank-b", dir.resolve("b.pem")));
    assertEquals(c, load(c.toYaml()));
  }

  @Test
  void durations() {
    assertEquals(Duration.ofMillis(500), HelperConfig.parseDuration("500ms"));
    assertEquals(Duration.ofHours(1), HelperConfig.parseDuration("1h"));
    assertEquals(Duration.ofMinutes(10), HelperConfig.parseDuration("PT10M"));
    assertThrows(IllegalArgumentException.class, () -> HelperConfig.parseDuration("10 minutes"));
  }
}
