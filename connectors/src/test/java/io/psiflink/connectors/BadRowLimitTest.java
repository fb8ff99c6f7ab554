package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BadRowLimitTest {
  @Test
  void countsAndShares() {
    BadRowLimit n = BadRowLimit.parse("10");
    assertFalse(n.exceeded(10, 10));
    assertTrue(n.exceeded(11, 1_000_000));

    BadRowLimit p = BadRowLimit.parse(" 1% ");
    assertFalse(p.exceeded(10, 1000)); // exactly 1%
    assertTrue(p.exceeded(11, 1000));
    assertFalse(p.exceeded(0, 0));

    BadRowLimit frac = BadRowLimit.parse("0.5%");
    assertTrue(frac.exceeded(6, 1000));
    assertFalse(frac.exceeded(5, 1000));

    assertTrue(BadRowLimit.parse("0").exceeded(1, 1_000_000_000));
    assertTrue(BadRowLimit.parse("0%").exceeded(1, 1_000_000_000));
    assertFalse(BadRowLimit.parse("100%").exceeded(1000, 1000));
    assertEquals(BadRowLimit.parse("1%"), BadRowLimit.DEFAULT);
    assertEquals("1%", BadRowLimit.DEFAULT.toString());
    assertEquals("0.5%", frac.toString());
    assertEquals("10", n.toString());
  }

  @Test
  void refusesNonsenseNamingIt() {
    for (String bad : new String[] {"", "-1", "101%", "x", "1%%", "NaN%", "1.5"}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> BadRowLimit.parse(bad), bad);
      assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
    }
  }
}
