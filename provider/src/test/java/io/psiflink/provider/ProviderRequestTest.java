package io.psiflink.provider;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A party's request and link: what the client refuses before any stream, and the link's bytes. */
class ProviderRequestTest {
  private static final List<String> ABC = List.of("a", "b", "c");

  private static void assertRefused(Runnable r, String part) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
    assertTrue(e.getMessage().contains(part), "should mention '" + part + "': " + e.getMessage());
  }

  @Test
  void aRequestIsCheckedBeforeAnyStream() {
    assertRefused(() -> new ProviderRequest("s", "p", null, List.of("a"), 0, ""), "2 to 1024");
    assertRefused(() -> new ProviderRequest("s", "p", null, List.of("a", "a"), 0, ""), "twice");
    assertRefused(() -> new ProviderRequest("s", "a", null, ABC, 0, ""), "cannot be one of");
    assertRefused(() -> new ProviderRequest("s", "p", null, ABC, 3, ""), "index 3");
    assertRefused(() -> new ProviderRequest("s p", "p", null, ABC, 0, ""), "session");
    assertRefused(() -> new ProviderRequest("s", "p", new byte[31], ABC, 0, ""), "32 bytes");
    for (String reserved : List.of("parties=3", "index=0", "instance=1", "set_size=9")) {
      assertRefused(
          () -> new ProviderRequest("s", "p", null, ABC, 0, "fpr=1e-9," + reserved),
          "must not set");
    }
    assertRefused(() -> new ProviderRequest("s", "p", null, ABC, 0, "fpr"), "without '='");
    byte[] pin = new byte[32];
    ProviderRequest r = new ProviderRequest("s", "p", pin, ABC, 1, "fpr=1e-9");
    pin[0] = 1; // copied in
    assertEquals(0, r.providerCertSha256()[0]);
    assertEquals("b", r.party());
  }

  @Test
  void aLinkTravelsAsBytesAndNothingElseReadsAsOne() throws Exception {
    ProviderRequest r = new ProviderRequest("s", "p", new byte[32], ABC, 2, "fpr=1e-9");
    byte[] key = new byte[32];
    key[5] = 9;
    ProviderLink l = new ProviderLink(r, key, new byte[] {1, 2, 3});
    ProviderLink back = ProviderLink.fromBytes(l.toBytes());
    assertEquals(r, back.request());
    assertArrayEquals(key, back.linkKey());
    assertEquals(3, back.parties());
    assertEquals(2, back.index());
    assertEquals("ProviderLink[session=s, provider=p, party P3 ('c') of 3]", back.toString());
    assertThrows(ProviderException.class, () -> ProviderLink.fromBytes(new byte[] {(byte) 0xff}));
    assertThrows(ProviderException.class, () -> ProviderLink.fromBytes(new byte[0]));
  }
}
