package io.psiflink.tools.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;

/**
 * The two generated CSV files and what is known about them by construction.
 *
 * @param expectedJoinRows rows of {@link TableGenerator#DEFAULT_QUERY} (an inner equi-join on
 *     (card, zip), duplicates expanded n×m, NULL keys never joining), computed without any join
 * @param seconds wall time of generating both files
 */
public record GeneratedTables(
    Path a,
    Path b,
    long expectedJoinRows,
    GeneratorSpec spec,
    SideStats statsA,
    SideStats statsB,
    double seconds) {

  /**
   * Facts about one generated table.
   *
   * @param rows rows written (header excluded)
   * @param nullKeyRows rows with card or zip NULL
   * @param matchingRows rows whose (card, zip) occurs in the other table
   * @param sharedKeys distinct keys that occur in both tables
   * @param distinctKeys distinct non-null keys of this table
   * @param duplicateRows rows repeating an earlier key of this table (= non-null rows − distinct
   *     keys)
   * @param nearMissRows non-matching rows whose card equals the card of a shared key (zip differs)
   * @param bytes file size
   */
  public record SideStats(
      long rows,
      long nullKeyRows,
      long matchingRows,
      long sharedKeys,
      long distinctKeys,
      long duplicateRows,
      long nearMissRows,
      long bytes) {

    ObjectNode toJsonNode() {
      ObjectNode n = Json.object();
      n.put("rows", rows);
      n.put("nullKeyRows", nullKeyRows);
      n.put("matchingRows", matchingRows);
      n.put("sharedKeys", sharedKeys);
      n.put("distinctKeys", distinctKeys);
      n.put("duplicateRows", duplicateRows);
      n.put("nearMissRows", nearMissRows);
      n.put("bytes", bytes);
      return n;
    }
  }

  /** A one-line JSON summary (what the generator's main prints). */
  public String toJson() {
    ObjectNode n = Json.object();
    n.put("a", a.toString());
    n.put("b", b.toString());
    n.put("expectedJoinRows", expectedJoinRows);
    ObjectNode s = n.putObject("spec");
    s.put("rowsA", spec.rowsA());
    s.put("rowsB", spec.rowsB());
    s.put("overlap", spec.overlap());
    s.put("duplicateFraction", spec.duplicateFraction());
    s.put("nullKeyFraction", spec.nullKeyFraction());
    s.put("seed", spec.seed());
    n.set("statsA", statsA.toJsonNode());
    n.set("statsB", statsB.toJsonNode());
    n.put("seconds", Json.three(seconds));
    return Json.write(n);
  }
}
