package io.psiflink.tools.bench;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The link of {@code ./psi bench join --net RATE,DELAY}: a rate in bits per second (tc's units:
 * {@code bit}, {@code kbit}, {@code mbit}, {@code gbit}, powers of 1000) and a one-way delay
 * ({@code us}, {@code ms}, {@code s}), e.g. {@code 100mbit,10ms}. Both directions get the same.
 *
 * @param rateBitsPerSecond at least 8000 (slower links make tbf's buckets meaningless)
 * @param delay what every byte pays in each direction, in [0, 10 s]
 */
public record NetSpec(long rateBitsPerSecond, Duration delay) {
  private static final Pattern RATE = Pattern.compile("(\\d+(?:\\.\\d+)?)(bit|kbit|mbit|gbit)");
  private static final Pattern DELAY = Pattern.compile("(\\d+(?:\\.\\d+)?)(us|ms|s)");

  public NetSpec {
    if (rateBitsPerSecond < 8000) {
      throw new IllegalArgumentException(
          "the rate must be at least 8kbit, not " + rateBitsPerSecond + "bit");
    }
    if (delay.isNegative() || delay.compareTo(Duration.ofSeconds(10)) > 0) {
      throw new IllegalArgumentException("the delay must be in [0, 10s], not " + delay);
    }
  }

  /** Parses {@code RATE,DELAY}; the message of the exception names what is wrong. */
  public static NetSpec parse(String text) {
    String[] parts = text.trim().toLowerCase(Locale.ROOT).split(",", -1);
    if (parts.length != 2) {
      throw new IllegalArgumentException(
          "must be RATE,DELAY such as 100mbit,10ms, not '" + text + "'");
    }
    Matcher r = RATE.matcher(parts[0].trim());
    if (!r.matches()) {
      throw new IllegalArgumentException(
          "the rate must be a number with bit, kbit, mbit or gbit (tc's units, e.g. 100mbit), not '"
              + parts[0].trim()
              + "'");
    }
    Matcher d = DELAY.matcher(parts[1].trim());
    if (!d.matches()) {
      throw new IllegalArgumentException(
          "the delay must be a number with us, ms or s (e.g. 10ms), not '" + parts[1].trim() + "'");
    }
    double rate =
        Double.parseDouble(r.group(1))
            * switch (r.group(2)) {
              case "bit" -> 1;
              case "kbit" -> 1e3;
              case "mbit" -> 1e6;
              default -> 1e9;
            };
    double micros =
        Double.parseDouble(d.group(1))
            * switch (d.group(2)) {
              case "us" -> 1;
              case "ms" -> 1e3;
              default -> 1e6;
            };
    if (rate > 1e12 || micros > 1e9) {
      throw new IllegalArgumentException("out of range: '" + text + "'");
    }
    return new NetSpec(Math.round(rate), Duration.ofNanos(Math.round(micros * 1000)));
  }

  /** The rate in bytes per second. */
  public long rateBytesPerSecond() {
    return rateBitsPerSecond / 8;
  }

  /** tc's spelling of the rate ({@code 100000000bit}). */
  public String tcRate() {
    return rateBitsPerSecond + "bit";
  }

  /** As parsed back: {@code 100mbit,10ms} (bits and microseconds when not whole). */
  public String text() {
    String rate;
    if (rateBitsPerSecond % 1_000_000_000L == 0) {
      rate = rateBitsPerSecond / 1_000_000_000L + "gbit";
    } else if (rateBitsPerSecond % 1_000_000L == 0) {
      rate = rateBitsPerSecond / 1_000_000L + "mbit";
    } else if (rateBitsPerSecond % 1000 == 0) {
      rate = rateBitsPerSecond / 1000 + "kbit";
    } else {
      rate = rateBitsPerSecond + "bit";
    }
    long us = delay.toNanos() / 1000;
    String d = us % 1000 == 0 ? us / 1000 + "ms" : us + "us";
    return rate + "," + d;
  }

  /**
   * tbf's bucket: at least 16 KiB (a few packets of 1500 bytes, so TCP's bursts pass) and 4 ms
   * worth of the rate (the timer then refills it often enough to reach the rate).
   */
  public long tbfBurstBytes() {
    return Math.max(16 * 1024, rateBytesPerSecond() / 250);
  }

  /**
   * tbf's queue: 10 ms worth of the rate, at least three buckets. The senders behind it are on the
   * same machine (round trip ~0), so a short queue keeps the link busy without adding much queueing
   * delay on top of {@link #delay()}.
   */
  public long tbfLimitBytes() {
    return Math.max(3 * tbfBurstBytes(), rateBytesPerSecond() / 100);
  }
}
