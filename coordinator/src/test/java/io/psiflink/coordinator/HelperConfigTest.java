package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.coordinator.CoordinatorConfig.Helper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code helpers:} of a coordinator's YAML: read as written, each error naming its helper. */
class HelperConfigTest {
  @TempDir Path dir;

  static final String BASE =
      String.join(
          "\n",
          "party: alice",
          "listen: {host: 127.0.0.1, port: 8443}",
          "tls: {certificate: a.pem, privateKey: a.key, trustedCa: ca.pem}",
          "tokensFile: tokens",
          "peer: {name: bob, url: \"https://bob:8443\", tokenFile: peer-token}",
          "bridge: {endpoint: \"alice:7443\", certificate: a.pem}",
          "");

  CoordinatorConfig load(String helpers) throws Exception {
    Path f = dir.resolve("c.yaml");
    Files.writeString(f, BASE + helpers);
    return CoordinatorConfig.load(f);
  }

  IllegalArgumentException refused(String helpers) {
    return assertThrows(
        IllegalArgumentException.class, () -> ConfigAndTokensTest.unwrap(() -> load(helpers)));
  }

  @Test
  void helpersAreReadWithTheirPinsInLowerCase() throws Exception {
    CoordinatorConfig c =
        load(
            "helpers:\n"
                + "  - {name: carol, certSha256: \""
                + "AB".repeat(32)
                + "\", description: \"  Carol Ltd, contract 7  \"}\n"
                + "  - name: dave\n"
                + "    certSha256: "
                + "cd".repeat(32)
                + "\n");
    assertEquals(
        List.of(
            new Helper("carol", "ab".repeat(32), "Carol Ltd, contract 7"),
            new Helper("dave", "cd".repeat(32), "")),
        c.helpers());
    assertEquals("dave", c.helper("dave").orElseThrow().name());
    assertTrue(c.helper("erin").isEmpty());
    // none: an empty registry, no query may name a helper
    assertEquals(List.of(), load("").helpers());
  }

  @Test
  void aBadHelperIsRefusedNamingIt() {
    String pin = "ab".repeat(32);
    IllegalArgumentException e = refused("helpers: [{name: carol, certSha256: abc}]\n");
    assertTrue(e.getMessage().contains("config: helpers: carol: certSha256"), e.getMessage());
    e = refused("helpers: [{name: carol}]\n");
    assertTrue(e.getMessage().contains("carol: certSha256"), e.getMessage());
    e = refused("helpers: [{certSha256: " + pin + "}]\n");
    assertTrue(e.getMessage().contains("config: helpers: name"), e.getMessage());
    e = refused("helpers: [{name: \"car ol\", certSha256: " + pin + "}]\n");
    assertTrue(e.getMessage().contains("'car ol'"), e.getMessage());
    e =
        refused(
            "helpers: [{name: carol, certSha256: "
                + pin
                + "}, {name: carol, certSha256: "
                + pin
                + "}]\n");
    assertTrue(e.getMessage().contains("carol is listed twice"), e.getMessage());
    e = refused("helpers: [{name: bob, certSha256: " + pin + "}]\n");
    assertTrue(e.getMessage().contains("bob is a party"), e.getMessage());
    e = refused("helpers: [{name: alice, certSha256: " + pin + "}]\n");
    assertTrue(e.getMessage().contains("alice is a party"), e.getMessage());
    // a misspelt key is not silently dropped
    assertThrows(
        Exception.class,
        () -> load("helpers: [{name: carol, certSha256: " + pin + ", pin: " + pin + "}]\n"));
  }
}
