package io.psiflink.coordinator;

import io.psiflink.api.Role;
import io.psiflink.jobs.PublicSize;
import io.psiflink.jobs.query.OutputColumn;
import io.psiflink.jobs.query.ResolvedJoin;
import io.psiflink.jobs.query.Side;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What each party learns from a query, as the approval shows it: for this party, what the peer
 * learns about its table and what it learns about the peer's. Party A is the output party: it
 * receives B's revealed columns for the matching rows (its own revealed columns never leave it);
 * both learn the intersection (which of their own keys match), except for a count-only query, where
 * A learns only the number of common keys and B nothing of the intersection. Each learns the other's
 * size n as the other's public size policy fixes it (flink-jobs PublicSize), and the bin count.
 */
final class Disclosure {
  private Disclosure() {}

  /**
   * @param mySide this party's table in the query
   * @param r the query resolved against this party's registered schema and the peer's published one
   */
  static Map<String, Object> of(Role mySide, ResolvedJoin r, String myDataset, String myPolicy,
      String peerDataset, String peerPolicy) {
    boolean countOnly = r.count() != null;
    Map<String, Object> m = new LinkedHashMap<>();
    Map<String, Object> mine = party(Roles.side(mySide), r, myDataset, myPolicy, countOnly);
    Map<String, Object> theirs = party(Roles.side(mySide.peer()), r, peerDataset, peerPolicy,
        countOnly);
    m.put("summary", "The peer learns " + mine.get("text") + " I learn " + theirs.get("text"));
    m.put("peerLearnsAboutMine", mine);
    m.put("iLearnAboutPeer", theirs);
    return m;
  }

  /** What the other party learns about the table of {@code owner}. */
  private static Map<String, Object> party(Side owner, ResolvedJoin r, String dataset,
      String policy, boolean countOnly) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("table", owner.table());
    m.put("dataset", dataset);
    String sizeText;
    if (policy == null) {
      m.put("size", Map.of("policy", "unknown", "description", "not published by its owner"));
      sizeText = "a size its owner did not publish";
    } else {
      PublicSize p = PublicSize.parse(policy);
      m.put("size", Map.of("policy", p.text(), "description", p.describe()));
      sizeText = p.describe();
    }
    // only B's columns travel, to A
    List<String> columns = owner == Side.B && !countOnly
        ? r.output().stream().filter(o -> o.side() == Side.B).map(OutputColumn::column)
            .distinct().toList()
        : List.of();
    m.put("columns", columns);
    String intersection;
    String intersectionText;
    if (countOnly) {
      intersection = owner == Side.B ? "count" : "none";
      intersectionText = owner == Side.B ? "only the number of join keys both tables hold"
          : "nothing of which keys are common";
    } else {
      intersection = "keys";
      intersectionText = "which of its own join keys also occur in table " + owner.table();
    }
    m.put("intersection", intersection);
    String table = "table " + owner.table() + " (" + dataset + ")";
    m.put("text", "about " + table + ": its size as " + sizeText + "; "
        + (columns.isEmpty() ? "no columns" : "the columns " + columns + " of the matching rows")
        + "; " + intersectionText + ".");
    return m;
  }
}
