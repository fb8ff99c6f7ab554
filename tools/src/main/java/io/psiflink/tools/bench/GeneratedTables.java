package io.psiflink.tools.bench;

import java.nio.file.Path;
import java.util.Locale;

/**
 * The two generated CSV files and what is known about them by construction.
 *
 * @param expectedJoinRows rows of {@link TableGenerator#DEFAULT_QUERY} (an inner equi-join on
 *     (card, zip), duplicates expanded n×m, NULL keys never joining), computed without any join
 * @param seconds wall time of generating both files
 */
public record GeneratedTables(
    Path a, Path b, long expectedJoinRows, GeneratorSpec spec, SideStats statsA, SideStats statsB,
    double seconds) {

  /**
   * Facts about one generated table.
   *
   * @param rows rows written (header excluded)
   * @param nullKeyRows rows with card or zip NULL
   * @param matchingRows rows whose (card, zip) occurs in the other table
   * @param sharedKeys distinct keys that occur in both tables
   * @param distinctKeys distinct non-null keys of this table
   * @param duplicateRows rows repeating an earlier key of this table (= non-null rows − distinct keys)
   * @param nearMissRows non-matching rows whose card equals the card of a shared key (zip differs)
   * @param bytes file size
   */
  public record SideStats(
      long rows, long nullKeyRows, long matchingRows, long sharedKeys, long distinctKeys,
      long duplicateRows, long nearMissRows, long bytes) {

    String toJson() {
      return String.format(Locale.ROOT,
          "{\"rows\":%d,\"nullKeyRows\":%d,\"matchingRows\":%d,\"sharedKeys\":%d,"
              + "\"distinctKeys\":%d,\"duplicateRows\":%d,\"nearMissRows\":%d,\"bytes\":%d}",
          rows, nullKeyRows, matchingRows, sharedKeys, distinctKeys, duplicateRows, nearMissRows,
          bytes);
    }
  }

  /** A one-line JSON summary (what the generator's main prints). */
  public String toJson() {
    return String.format(Locale.ROOT,
        "{\"a\":\"%s\",\"b\":\"%s\",\"expectedJoinRows\":%d,\"spec\":{\"rowsA\":%d,\"rowsB\":%d,"
            + "\"overlap\":%s,\"duplicateFraction\":%s,\"nullKeyFraction\":%s,\"seed\":%d},"
            + "\"statsA\":%s,\"statsB\":%s,\"seconds\":%.3f}",
        Json.escape(a.toString()), Json.escape(b.toString()), expectedJoinRows, spec.rowsA(),
        spec.rowsB(), spec.overlap(), spec.duplicateFraction(), spec.nullKeyFraction(), spec.seed(),
        statsA.toJson(), statsB.toJson(), seconds);
  }
}
