package io.psiflink.coordinator;

import io.psiflink.api.JoinMode;
import io.psiflink.api.PublicSize;
import io.psiflink.api.Role;
import io.psiflink.query.OutputColumn;
import io.psiflink.query.ResolvedJoin;
import java.util.List;

/**
 * What each party learns from a query, as the approval shows it: which mode runs, and for this
 * party, what the peer learns about its table and what it learns about the peer's. Party A is the
 * output party: it receives B's revealed columns for the matching rows (its own revealed columns
 * never leave it). In mode {@code both} both learn the intersection (which of their own keys
 * match); in mode {@code labeled} B learns nothing of it, not even its size (only A's padded size),
 * and every key of B travels as a label of {@code labelBytes} bytes (public, shown). A count-only
 * query tells A only the number of common keys and B nothing of the intersection, in either mode.
 * Each learns the other's size n as the other's public size policy fixes it (flink-jobs
 * PublicSize), and the bin count.
 *
 * <p>The approval shows the join too: its kind (what A's output holds: inner, left, semi- or
 * anti-join, after SQL's rules for a WHERE after a LEFT JOIN), each key equality as the parties
 * compute it (a column, or an expression each party evaluates on its own rows), and how SQL's rules
 * changed the kind, if they did. A semi- or anti-join sends no column of B.
 *
 * <p>Stored as JSON with the query ({@code queries.disclosure_json}) and shown by the API.
 *
 * @param mode {@code both} or {@code labeled}
 * @param labelBytes labeled mode: the size every key's rows from B are padded to; else null
 * @param modeText the mode and its consequences in plain words
 */
record Disclosure(
    String summary,
    JoinMode mode,
    Integer labelBytes,
    String modeText,
    String join,
    List<String> keys,
    List<String> notes,
    Table peerLearnsAboutMine,
    Table iLearnAboutPeer) {

  /** What the other party learns of the intersection through one table. */
  enum Intersection implements Model.Wire {
    /** Which of its own join keys also occur in the table. */
    KEYS,
    /** Only the number of join keys both tables hold. */
    COUNT,
    /** Nothing of which keys are common. */
    NONE
  }

  /** A table's size as its owner discloses it ({@code policy} unknown: not published). */
  record Size(String policy, String description) {}

  /** What the other party learns about one table, with {@code text} in plain words. */
  record Table(
      String table,
      String dataset,
      Size size,
      List<String> columns,
      Intersection intersection,
      String text) {}

  /**
   * @param mySide this party's table in the query
   * @param r the query resolved against this party's registered schema and the peer's published one
   * @param labelBytes the label size of mode labeled (null in mode both)
   */
  static Disclosure of(
      Role mySide,
      ResolvedJoin r,
      JoinMode mode,
      Integer labelBytes,
      String myDataset,
      String myPolicy,
      String peerDataset,
      String peerPolicy) {
    boolean countOnly = r.count() != null;
    Table mine = table(mySide, r, mode, myDataset, myPolicy, countOnly);
    Table theirs = table(mySide.peer(), r, mode, peerDataset, peerPolicy, countOnly);
    String modeText = modeText(mode, labelBytes, countOnly);
    List<String> keys = new java.util.ArrayList<>();
    for (int i = 0; i < r.a().keys().size(); i++) {
      keys.add(key(Role.A, r.a().keys().get(i)) + " = " + key(Role.B, r.b().keys().get(i)));
    }
    String join = countOnly ? "count of common keys" : r.kind().text();
    return new Disclosure(
        "A "
            + join
            + " on "
            + String.join(" AND ", keys)
            + ". "
            + modeText
            + " The peer learns "
            + mine.text()
            + " I learn "
            + theirs.text(),
        mode,
        mode == JoinMode.LABELED ? labelBytes : null,
        modeText,
        join,
        keys,
        r.notes(),
        mine,
        theirs);
  }

  private static String modeText(JoinMode mode, Integer labelBytes, boolean countOnly) {
    if (countOnly) {
      // no row of B travels: the labels have nothing to carry, and B learns nothing already
      return "Mode "
          + mode.text()
          + ": a count-only query; A learns only the number of common keys and B nothing of the"
          + " intersection, in either mode.";
    }
    if (mode == JoinMode.LABELED) {
      return "Mode labeled: B learns A's padded size only (not the intersection, not its size);"
          + " A learns its matching rows and B's columns for them. Every key of B travels as a"
          + " label of "
          + labelBytes
          + " bytes: the rows of one key must fit.";
    }
    return "Mode both: A and B each learn which of their own keys match; A receives B's columns"
        + " for them.";
  }

  /** A column key as {@code a.email}, an expression as {@code (LOWER(`email`) of a)}. */
  private static String key(Role side, io.psiflink.query.JoinKey k) {
    return k.plain()
        ? side.table() + "." + k.name()
        : "(" + k.flinkSql() + " of " + side.table() + ")";
  }

  /** What the other party learns about the table of {@code owner}. */
  private static Table table(
      Role owner, ResolvedJoin r, JoinMode mode, String dataset, String policy, boolean countOnly) {
    Size size;
    String sizeText;
    if (policy == null) {
      size = new Size("unknown", "not published by its owner");
      sizeText = "a size its owner did not publish";
    } else {
      PublicSize p = PublicSize.parse(policy);
      size = new Size(p.text(), p.describe());
      sizeText = p.describe();
    }
    // only B's columns travel, to A
    List<String> columns =
        Role.B.equals(owner) && !countOnly
            ? r.output().stream()
                .filter(o -> Role.B.equals(o.side()))
                .map(OutputColumn::column)
                .distinct()
                .toList()
            : List.of();
    Intersection intersection;
    String intersectionText;
    if (countOnly) {
      intersection = Role.B.equals(owner) ? Intersection.COUNT : Intersection.NONE;
      intersectionText =
          Role.B.equals(owner)
              ? "only the number of join keys both tables hold"
              : "nothing of which keys are common";
    } else if (mode == JoinMode.LABELED && Role.A.equals(owner)) {
      // B, the other party, learns nothing through A's table but its padded size
      intersection = Intersection.NONE;
      intersectionText = "nothing of which keys are common, not even how many";
    } else {
      intersection = Intersection.KEYS;
      intersectionText = "which of its own join keys also occur in table " + owner.table();
    }
    String table = "table " + owner.table() + " (" + dataset + ")";
    return new Table(
        owner.table(),
        dataset,
        size,
        columns,
        intersection,
        "about "
            + table
            + ": its size as "
            + sizeText
            + "; "
            + (columns.isEmpty()
                ? "no columns"
                : "the columns " + columns + " of the matching rows")
            + "; "
            + intersectionText
            + ".");
  }
}
