package io.psiflink.bridge;

import java.time.Duration;

/** Durations in messages as people write them: "60 s", "1.5 s", "250 ms". */
final class Durations {
  private Durations() {}

  static String human(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + " ms";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + " s";
    }
    return String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
  }

  static Duration requirePositive(Duration d, String what) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, got " + d);
    }
    return d;
  }
}
