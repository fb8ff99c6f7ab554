package io.psiflink.bridge;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people write them: in messages "60 s", "1.5 s", "250 ms"; in the config files of the
 * services on the relay (helper, provider) {@link #parse} reads 500ms, 30s, 10m, 1h or ISO-8601.
 */
public final class Durations {
  private static final Pattern SHORT = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

  private Durations() {}

  /**
   * Parses 500ms, 30s, 10m, 1h or ISO-8601 (PT10M).
   *
   * @throws IllegalArgumentException naming the text if it is none of these
   */
  public static Duration parse(String text) {
    Matcher m = SHORT.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        default -> Duration.ofHours(n);
      };
    }
    try {
      return Duration.parse(text.trim());
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a duration (500ms, 30s, 10m, 1h or ISO-8601 such as PT10M)");
    }
  }

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
