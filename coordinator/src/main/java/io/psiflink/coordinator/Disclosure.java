package io.psiflink.coordinator;

import io.psiflink.api.JoinMode;
import io.psiflink.api.Prefilter;
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
 * <p>With a pre-filter ({@code prefilter: helper}) the approval names the helper (name, the
 * description this party registered, the certificate pin) and states what it adds: each party
 * learns the other's candidate count instead of its size, and a few bits of a keyed hash of the
 * other's keys outside the join; the helper receives no data (docs/security.md).
 *
 * <p>Stored as JSON with the query ({@code queries.disclosure_json}) and shown by the API.
 *
 * @param mode {@code both} or {@code labeled}
 * @param labelBytes labeled mode: the size every key's rows from B are padded to; else null
 * @param modeText the mode and its consequences in plain words
 * @param helper the pre-filter's helper and what it adds to what each learns; null without one
 */
record Disclosure(
    String summary,
    JoinMode mode,
    Integer labelBytes,
    String modeText,
    String join,
    List<String> keys,
    List<String> notes,
    HelperText helper,
    Table peerLearnsAboutMine,
    Table iLearnAboutPeer) {

  /**
   * The helper of a pre-filter as this party registered it, and the leakage in plain words.
   *
   * @param filterBits log2 of the filter's size; 0: the jobs choose
   * @param filterHashes hash functions per key; 0: the jobs choose
   */
  record HelperText(
      String name,
      String description,
      String certSha256,
      int filterBits,
      int filterHashes,
      String text) {}

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
   * @param p the query's pre-filter
   * @param helper with a pre-filter: the helper as this party registered it (its description)
   */
  static Disclosure of(
      Role mySide,
      ResolvedJoin r,
      JoinMode mode,
      Integer labelBytes,
      Model.Prefiltering p,
      CoordinatorConfig.Helper helper,
      String myDataset,
      String myPolicy,
      String peerDataset,
      String peerPolicy) {
    boolean countOnly = r.count() != null;
    boolean helped = p.helped();
    Table mine = table(mySide, r, mode, helped, myDataset, myPolicy, countOnly);
    Table theirs = table(mySide.peer(), r, mode, helped, peerDataset, peerPolicy, countOnly);
    HelperText helperText =
        helped
            ? new HelperText(
                p.helper(),
                helper == null ? "" : helper.description(),
                p.helperCertSha256(),
                p.filterBits(),
                p.filterHashes(),
                helperText(p))
            : null;
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
            + (helped
                ? ", pre-filtered by helper "
                    + p.helper()
                    + (p.prefilter() == Prefilter.AUTO ? " if that saves time" : "")
                : "")
            + ". "
            + modeText
            + " The peer learns "
            + mine.text()
            + " I learn "
            + theirs.text()
            + (helped ? " " + helperText.text() : ""),
        mode,
        mode == JoinMode.LABELED ? labelBytes : null,
        modeText,
        join,
        keys,
        r.notes(),
        helperText,
        mine,
        theirs);
  }

  /** What a pre-filter adds to what each party and the helper learn (docs/security.md). */
  static String helperText(Model.Prefiltering p) {
    return (p.prefilter() == Prefilter.AUTO
            ? "If the jobs' cost model expects it to save time (prefilter auto, decided at their"
                + " handshake from both tables' public sizes, assuming "
                + (p.expectedOverlapPpm() == Model.Prefiltering.ALL
                    ? "every key of the smaller table may be common"
                    : String.format(java.util.Locale.ROOT, "%.4g", 100 * p.expectedOverlap())
                            .replaceAll("\\.?0+$", "")
                        + " % of the smaller table's keys are common")
                + "): "
            : "")
        + "Pre-filter by helper "
        + p.helper()
        + " (server-aided sample filtering). Each party learns the other's candidate count"
        + " (rounded by its public-size policy) instead of its table size, and, for each of its"
        + " own Bloom filter positions, whether the other party's filter has it set too (a few"
        + " bits of a keyed hash of keys outside the join). The helper receives no data: it learns"
        + " the session, the parties' names and the filter size, nothing about either table. It"
        + " must not collude with either party. A helper that deviates from the protocol can make"
        + " the join miss matches (never add wrong ones).";
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
      Role owner,
      ResolvedJoin r,
      JoinMode mode,
      boolean helped,
      String dataset,
      String policy,
      boolean countOnly) {
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
            // the jobs publish the candidate count after a pre-filter, under the same policy
            + (helped
                ? ": its candidate count (its rows the pre-filter leaves) as "
                : ": its size as ")
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
