package io.psiflink.connectors;

import java.io.Serializable;
import java.util.Locale;

/**
 * How many bad (quarantined) rows a job tolerates before it fails: an absolute count ({@code 100})
 * or a share of the records read ({@code 1%}, {@code 0.5%}). {@code 0} tolerates none and {@code
 * 100%} any. The default is {@value #DEFAULT_TEXT}: a few stray rows in a large table are normal,
 * but a wrong delimiter, encoding or key column quarantines most rows and must not pass as a small
 * join. Immutable.
 *
 * @param count the largest tolerated count, or -1 when {@code percent} applies
 * @param percent the largest tolerated share in percent, or -1 when {@code count} applies
 */
public record BadRowLimit(long count, double percent) implements Serializable {
  public static final String DEFAULT_TEXT = "1%";
  public static final BadRowLimit DEFAULT = parse(DEFAULT_TEXT);

  public BadRowLimit {
    if ((count < 0) == (percent < 0)) {
      throw new IllegalArgumentException("exactly one of count and percent must be given");
    }
    if (percent > 100 || Double.isNaN(percent)) {
      throw new IllegalArgumentException("a share of bad rows is at most 100%: " + percent);
    }
  }

  /**
   * {@code N} or {@code P%}.
   *
   * @throws IllegalArgumentException naming the text if it is neither
   */
  public static BadRowLimit parse(String text) {
    String t = text.strip();
    try {
      if (t.endsWith("%")) {
        double p = Double.parseDouble(t.substring(0, t.length() - 1).strip());
        if (p < 0 || p > 100 || Double.isNaN(p)) {
          throw new NumberFormatException();
        }
        return new BadRowLimit(-1, p);
      }
      long n = Long.parseLong(t);
      if (n < 0) {
        throw new NumberFormatException();
      }
      return new BadRowLimit(n, -1);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--max-bad-rows must be a count (e.g. 100) or a share "
              + "of the rows read between 0% and 100% (e.g. 1%), not '"
              + text
              + "'");
    }
  }

  /** Whether {@code bad} of {@code records} (good and bad) rows are more than tolerated. */
  public boolean exceeded(long bad, long records) {
    if (count >= 0) {
      return bad > count;
    }
    // bad * 100 > percent * records, in doubles: exact enough for any realistic row count
    return bad > 0 && bad * 100.0 > percent * records;
  }

  @Override
  public String toString() {
    return count >= 0
        ? Long.toString(count)
        : (percent == Math.rint(percent)
                ? Long.toString((long) percent)
                : String.format(Locale.ROOT, "%s", percent))
            + "%";
  }
}
