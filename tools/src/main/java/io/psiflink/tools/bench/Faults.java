package io.psiflink.tools.bench;

import java.time.Duration;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a {@link DelayProxy} does wrong on purpose ({@code ./psi bench join --drop-every BYTES
 * --jitter DURATION}, a network fault drill).
 *
 * <p>Drops: each time the bytes the proxy forwarded (both directions of all its connections) pass
 * the next drop point, the connection carrying the byte at that point is reset both ways (TCP RST),
 * in the middle of whatever frame it carried. The gaps between drop points are drawn from a random
 * seeded with {@code seed}, uniform in [every/2, 3·every/2]: one drop per {@code every} bytes on
 * average, never two close together, and none in the first every/2 bytes, where the session's
 * handshake runs (a few hundred KB; unlike a bin, it is not retried). The same seed gives the same
 * drop points.
 *
 * <p>Jitter: each chunk the proxy reads waits a further uniform [0, jitter] on top of the delay,
 * independent of the rate; order is kept (a chunk never overtakes the one before it).
 *
 * @param dropEveryBytes the mean gap between drops, or 0 for none (else at least 64 KiB: less would
 *     not let a handshake through)
 * @param jitter in [0, 10 s]
 */
public record Faults(long dropEveryBytes, Duration jitter, long seed) {
  public static final Faults NONE = new Faults(0, Duration.ZERO, 0);

  private static final Pattern BYTES =
      Pattern.compile("(\\d+(?:\\.\\d+)?(?:e\\d+)?)(b|kb|mb|gb|kib|mib|gib)?");

  public Faults {
    if (dropEveryBytes != 0 && dropEveryBytes < 64 * 1024) {
      throw new IllegalArgumentException(
          "drops must be at least 64KiB apart (or 0 for none), not " + dropEveryBytes + " bytes");
    }
    if (jitter.isNegative() || jitter.compareTo(Duration.ofSeconds(10)) > 0) {
      throw new IllegalArgumentException("the jitter must be in [0, 10s], not " + jitter);
    }
  }

  public boolean drops() {
    return dropEveryBytes > 0;
  }

  /**
   * No fault at all, whatever the seed (the command line's default seed is 1, not {@link #NONE}'s):
   * then no proxy stands between party B and the relay.
   */
  public boolean isNone() {
    return dropEveryBytes == 0 && jitter.isZero();
  }

  /**
   * A byte count such as {@code 32MB} (powers of 1000), {@code 32MiB} (of 1024), {@code 32e6} or
   * {@code 33554432}; the message names what is wrong.
   */
  public static long parseBytes(String text) {
    Matcher m = BYTES.matcher(text.trim().toLowerCase(Locale.ROOT).replace("_", ""));
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "a byte count such as 32MB, 32MiB or 32e6 expected, not '" + text + "'");
    }
    double n = Double.parseDouble(m.group(1));
    String unit = m.group(2) == null ? "b" : m.group(2);
    double scale =
        switch (unit) {
          case "kb" -> 1e3;
          case "mb" -> 1e6;
          case "gb" -> 1e9;
          case "kib" -> 1024;
          case "mib" -> 1024 * 1024;
          case "gib" -> 1024.0 * 1024 * 1024;
          default -> 1;
        };
    double bytes = n * scale;
    if (bytes > Long.MAX_VALUE / 4) {
      throw new IllegalArgumentException("out of range: '" + text + "'");
    }
    return Math.round(bytes);
  }

  /** A jitter such as {@code 5ms}, {@code 500us} or {@code 0s}. */
  public static Duration parseJitter(String text) {
    try {
      return NetSpec.parse("1gbit," + text).delay();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "the jitter must be a number with us, ms or s (e.g. 5ms), not '" + text + "'");
    }
  }

  /**
   * Where the drops fall: one counter of forwarded bytes for the whole proxy, and the next drop
   * point. Thread-safe (every direction's writer asks it).
   */
  static final class DropSchedule {
    private final long every;
    private final SplittableRandom random;
    private long forwarded;
    private long next;
    private final java.util.List<Long> points = new java.util.ArrayList<>();

    DropSchedule(long every, long seed) {
      this.every = every;
      this.random = new SplittableRandom(seed);
      this.next = gap();
    }

    private long gap() {
      return every / 2 + random.nextLong(every + 1);
    }

    /**
     * Counts {@code n} bytes about to be forwarded; returns how many of them go out before a drop
     * (in [0, n)), or -1 when all of them go out and no drop falls among them.
     */
    synchronized long take(long n) {
      if (forwarded + n <= next) {
        forwarded += n;
        return -1;
      }
      long before = next - forwarded;
      forwarded = next;
      points.add(next);
      next += gap();
      return before;
    }

    synchronized long drops() {
      return points.size();
    }

    /** Where the drops fell so far: the forwarded bytes before each. */
    synchronized java.util.List<Long> points() {
      return java.util.List.copyOf(points);
    }
  }

  /** As the benchmark's report and JSON show it. */
  public String text() {
    StringBuilder s = new StringBuilder();
    if (drops()) {
      s.append(
          String.format(
              Locale.ROOT, "a connection reset every ~%,d bytes (seed %d)", dropEveryBytes, seed));
    }
    if (!jitter.isZero()) {
      s.append(s.isEmpty() ? "" : ", ")
          .append("jitter up to ")
          .append(jitter.toNanos() / 1e6)
          .append(" ms");
    }
    return s.isEmpty() ? "none" : s.toString();
  }
}
