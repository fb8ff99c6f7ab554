package io.psiflink.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The public size policies, against values worked out by hand. */
class PublicSizeTest {
  @Test
  void roundedKeepsThreeLeadingBinaryDigits() {
    assertEquals(0, PublicSize.roundUp(0));
    assertEquals(7, PublicSize.roundUp(7));
    assertEquals(8, PublicSize.roundUp(8));
    assertEquals(10, PublicSize.roundUp(9)); // 1001 -> 1010
    assertEquals(1_048_576, PublicSize.roundUp(1_000_000)); // 0b1111... -> 2^20
    assertEquals(1_310_720, PublicSize.roundUp(1_048_577)); // 2^20 + 1 -> 2^20 + 2^18: +25 %
    assertEquals(10_485_760, PublicSize.roundUp(10_000_000)); // 5 * 2^21
    for (long n = 1; n < 100_000; n += 7) {
      long r = PublicSize.roundUp(n);
      assertTrue(r >= n && r <= n * 1.25 + 1, n + " -> " + r);
    }
  }

  @Test
  void whatEachPolicyAnnounces() {
    // 800 rows passed the WHERE of a table of 10,000 records (of them some quarantined)
    assertEquals(10_240, PublicSize.ROUNDED.announce(800, 10_000));
    assertEquals(10_240, PublicSize.ROUNDED.announce(5, 10_000));
    assertEquals(800, PublicSize.EXACT.announce(800, 10_000));
    assertEquals(5_000, PublicSize.declared(5_000).announce(800, 10_000));
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class, () -> PublicSize.declared(500).announce(800, 10_000));
    assertTrue(
        e.getMessage().contains("800 rows passed the WHERE, more than the 500"), e.getMessage());
    assertEquals(10_240, PublicSize.ROUNDED.estimate(10_000));
    assertEquals(5_000, PublicSize.declared(5_000).estimate(10_000));
  }

  @Test
  void parsesWhatItPrints() {
    for (PublicSize p :
        new PublicSize[] {
          PublicSize.ROUNDED,
          PublicSize.EXACT,
          PublicSize.declared(0),
          PublicSize.declared(123_456_789)
        }) {
      assertEquals(p, PublicSize.parse(p.text()));
    }
    assertThrows(IllegalArgumentException.class, () -> PublicSize.parse("declared:"));
    assertThrows(IllegalArgumentException.class, () -> PublicSize.parse("declared:1.5"));
    assertThrows(IllegalArgumentException.class, () -> PublicSize.parse("round"));
  }
}
