package io.psiflink.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.HostPort;
import io.psiflink.bridge.ThrowawayPki;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The provider's YAML config: defaults, relative paths, and every error naming its key. */
class ProviderConfigTest {
  @TempDir Path dir;

  private static final String TLS =
      "tls:\n  certificate: p.pem\n  privateKey: p.key\n  trustedCa: ca.pem\n";

  private ProviderConfig load(String yaml) throws Exception {
    Path f = dir.resolve("provider.yaml");
    Files.writeString(f, yaml);
    return ProviderConfig.load(f);
  }

  private void assertRefused(String yaml, String... parts) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> load(yaml));
    for (String p : parts) {
      assertTrue(e.getMessage().contains(p), "should mention '" + p + "': " + e.getMessage());
    }
  }

  @Test
  void aMinimalConfigTakesTheDefaultsAndResolvesPathsAgainstItsDirectory() throws Exception {
    ProviderConfig c = load("relay: relay.example:7443\n" + TLS + "allowedParties: [a, b, c]\n");
    assertEquals(new HostPort("relay.example", 7443), c.relay());
    assertEquals(dir.resolve("p.pem").toAbsolutePath(), c.certificate());
    assertEquals(dir.resolve("ca.pem").toAbsolutePath(), c.trustedCa());
    assertEquals(Set.of("a", "b", "c"), c.allowedParties());
    assertEquals(64, c.maxParties());
    assertEquals(1L << 22, c.maxSetSize());
    assertEquals(Duration.ofMinutes(10), c.sessionTimeout());
    assertEquals(Duration.ofMinutes(2), c.idleTimeout());
    assertEquals(8, c.maxSessions());
    assertEquals(Duration.ofHours(1), c.sessionIdle());
  }

  @Test
  void everyKeyIsRead() throws Exception {
    ProviderConfig c =
        load(
            "relay: 10.0.0.1:1\n"
                + TLS
                + "allowedParties: [a, b]\nmaxParties: 5\nmaxSetSize: 1000\nsessionTimeout: 30s\n"
                + "idleTimeout: 500ms\nmaxSessions: 2\nsessionIdle: PT2H\n");
    assertEquals(5, c.maxParties());
    assertEquals(1000, c.maxSetSize());
    assertEquals(Duration.ofSeconds(30), c.sessionTimeout());
    assertEquals(Duration.ofMillis(500), c.idleTimeout());
    assertEquals(2, c.maxSessions());
    assertEquals(Duration.ofHours(2), c.sessionIdle());
  }

  @Test
  void errorsNameTheirKey() {
    assertRefused(TLS + "allowedParties: [a, b]\n", "config: relay is required");
    assertRefused("relay: x:1\nallowedParties: [a, b]\n", "config: tls is required");
    assertRefused(
        "relay: x:1\ntls:\n  certificate: p.pem\n  privateKey: p.key\nallowedParties: [a, b]\n",
        "config: tls.trustedCa is required");
    assertRefused("relay: x:1\n" + TLS, "allowedParties");
    assertRefused("relay: x:1\n" + TLS + "allowedParties: [a]\n", "at least two parties");
    assertRefused("relay: x\n" + TLS + "allowedParties: [a, b]\n", "config: relay:");
    assertRefused(
        "relay: x:1\n" + TLS + "allowedParties: [a, b]\nrelayTimeout: 5s\n",
        "unknown key 'relayTimeout'",
        "sessionIdle");
    assertRefused(
        "relay: x:1\ntls:\n  certificate: p.pem\n  privateKey: p.key\n  trustedCa: ca.pem\n"
            + "  password: x\nallowedParties: [a, b]\n",
        "unknown key 'tls.password'");
    assertRefused(
        "relay: x:1\n" + TLS + "allowedParties: [a, b]\nmaxParties: many\n",
        "config: maxParties must be an integer");
    assertRefused("relay: x:1\n" + TLS + "allowedParties: [a, b]\nmaxParties: 1\n", "maxParties");
    assertRefused(
        "relay: x:1\n" + TLS + "allowedParties: [a, b]\nmaxSetSize: 4194305\n", "maxSetSize");
    assertRefused(
        "relay: x:1\n" + TLS + "allowedParties: [a, b]\nsessionIdle: 1 hour\n",
        "config: sessionIdle: '1 hour' is not a duration");
    assertRefused(
        "relay: x:1\n" + TLS + "allowedParties: [a, b]\nidleTimeout: 0s\n",
        "idleTimeout must be positive");
    assertRefused("- a\n- b\n", "expected a YAML mapping");
  }

  @Test
  void unreadableCredentialsAreNamedAtStart() throws Exception {
    ThrowawayPki pki = ThrowawayPki.create(dir.resolve("pki"), "provider");
    var p = pki.credentials("provider");
    ProviderConfig missing =
        ProviderConfig.defaults(
            new HostPort("127.0.0.1", 1),
            dir.resolve("nowhere.pem"),
            p.privateKeyPem(),
            p.trustedCaPem(),
            Set.of("a", "b"));
    UncheckedIOException e =
        assertThrows(UncheckedIOException.class, () -> ProviderService.start(missing));
    assertTrue(e.getMessage().contains("nowhere.pem"), e.getMessage());
    Path garbage = dir.resolve("garbage.pem");
    Files.writeString(garbage, "not a certificate\n");
    ProviderConfig unreadable =
        ProviderConfig.defaults(
            new HostPort("127.0.0.1", 1),
            garbage,
            p.privateKeyPem(),
            p.trustedCaPem(),
            Set.of("a", "b"));
    IllegalArgumentException g =
        assertThrows(IllegalArgumentException.class, () -> ProviderService.start(unreadable));
    assertTrue(g.getMessage().contains("garbage.pem"), g.getMessage());
  }
}
