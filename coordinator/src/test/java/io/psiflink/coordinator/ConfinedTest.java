package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Peer ids and the paths built from them: direct children of their base, or refused. */
class ConfinedTest {
  static final List<String> HOSTILE =
      List.of(
          "../../x",
          "/tmp/x",
          "hdfs://elsewhere/x",
          "..",
          ".",
          "",
          "a/../../x",
          "x/y",
          "..\\x",
          "%2e%2e",
          "x?y",
          "x#y",
          "c:x",
          "a\nb");

  @Test
  void onlyCanonicalUuidsAreIds() {
    String u = UUID.randomUUID().toString();
    assertTrue(Confined.isUuid(u));
    assertFalse(Confined.isUuid(u.toUpperCase(java.util.Locale.ROOT)));
    assertFalse(Confined.isUuid("0-0-0-0-0"));
    assertFalse(Confined.isUuid(u + "/.."));
    assertFalse(Confined.isUuid(null));
    for (String h : HOSTILE) {
      assertFalse(Confined.isUuid(h), h);
    }
  }

  @Test
  void localPathsStayDirectlyUnderTheirBase() {
    Path base = Path.of("/srv/psi/work");
    assertEquals(Path.of("/srv/psi/work/s1"), Confined.under(base, "s1"));
    for (String h : HOSTILE) {
      assertThrows(IllegalArgumentException.class, () -> Confined.under(base, h), h);
    }
  }

  @Test
  void uriLocationsStayDirectlyUnderTheirBase() {
    assertEquals(
        "hdfs://nn:8020/psi/results/s1", Confined.under("hdfs://nn:8020/psi/results/", "s1"));
    assertEquals("file:///data/out/s1", Confined.under("file:///data/out", "s1"));
    assertEquals("/data/out/s1", Confined.under("/data/out//", "s1"));
    for (String base : List.of("hdfs://nn:8020/psi/results", "s3://bucket/out", "/data/out")) {
      for (String h : HOSTILE) {
        assertThrows(
            IllegalArgumentException.class, () -> Confined.under(base, h), base + " + " + h);
      }
    }
  }

  @Test
  void endpointsAndFingerprints() {
    assertTrue(Confined.isEndpoint("alice.example:7443"));
    assertTrue(Confined.isEndpoint("127.0.0.1:1"));
    assertTrue(Confined.isEndpoint("[::1]:7443"));
    assertFalse(Confined.isEndpoint("alice.example:0"));
    assertFalse(Confined.isEndpoint("alice.example:70000"));
    assertFalse(Confined.isEndpoint("alice.example"));
    assertFalse(Confined.isEndpoint("-x:1 --key /etc/shadow"));
    assertTrue(Confined.isFingerprint("ab".repeat(32)));
    assertFalse(Confined.isFingerprint("AB".repeat(32)));
    assertFalse(Confined.isFingerprint("ab".repeat(31)));
  }
}
