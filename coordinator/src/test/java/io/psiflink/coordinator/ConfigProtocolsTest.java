package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.psiflink.nativepsi.ProtocolInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The protocols a coordinator offers are checked against the native library's descriptions. */
class ConfigProtocolsTest {
  @TempDir Path dir;

  private Path config(String protocols) throws Exception {
    Path file = dir.resolve("coordinator.yaml");
    Files.writeString(
        file,
        String.join(
            "\n",
            "party: alice",
            "listen: {host: 127.0.0.1, port: 1}",
            "tls: {certificate: a.pem, privateKey: a.key, trustedCa: ca.pem}",
            "tokensFile: tokens",
            "peer: {name: bob, url: 'https://localhost:1', tokenFile: peer-token}",
            "bridge: {endpoint: 'alice.example:7443', certificate: a.pem}",
            protocols,
            ""));
    return file;
  }

  @Test
  void everyProtocolTheLibraryListsMayBeOffered() throws Exception {
    List<String> all = ProtocolInfo.all().stream().map(ProtocolInfo::name).toList();
    CoordinatorConfig c = CoordinatorConfig.load(config("protocols: " + all));
    assertEquals(all, c.protocols());
  }

  @Test
  void anUnknownProtocolIsRefusedNamingTheKnownOnes() throws Exception {
    Path file = config("protocols: [kkrt, rsa]");
    Exception e = assertThrows(Exception.class, () -> CoordinatorConfig.load(file));
    Throwable cause = e;
    while (!(cause instanceof IllegalArgumentException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    assertEquals(
        "config: protocols: unknown protocol 'rsa' (known: " + ProtocolInfo.knownNames() + ")",
        cause.getMessage());
  }
}
