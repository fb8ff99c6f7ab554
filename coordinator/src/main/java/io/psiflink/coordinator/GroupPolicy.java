package io.psiflink.coordinator;

import io.psiflink.coordinator.CoordinatorConfig.Provider;
import io.psiflink.coordinator.Model.GroupMember;
import io.psiflink.coordinator.Model.RevealIntersection;
import io.psiflink.query.MultiJoinQuery;
import io.psiflink.query.PartyView;
import io.psiflink.query.QueryException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What an n-party query may be, checked by P1's coordinator at submission (against every party's
 * published dataset) and by each other party's on the offer (against its own, independently): the
 * SQL of the n-party subset with one table per party, explicit columns, each party's columns used
 * as its owner allows, a provider registered here with the same pin, and no dataset whose owner
 * must never learn an intersection (every party learns which of its keys all hold). Also what the
 * approval shows each party: who learns what ({@link #disclosure}).
 */
final class GroupPolicy {
  private GroupPolicy() {}

  /**
   * The query parsed, for {@code parties} parties (422 naming the clause, or the count).
   *
   * @throws ApiException 422
   */
  static MultiJoinQuery parse(String sql, int parties) {
    MultiJoinQuery q;
    try {
      q = MultiJoinQuery.parse(sql);
    } catch (QueryException e) {
      throw ApiException.invalidQuery("sql", e).with("sql", sql);
    }
    if (q.parties() != parties) {
      throw new ApiException(
              422,
              "parties: the query joins "
                  + q.parties()
                  + " tables "
                  + q.tables()
                  + ", the request names "
                  + parties
                  + " parties; party i holds the i-th table of FROM")
          .with("field", "parties");
    }
    // a star would expand, in each job, to whatever its table holds when it runs: not to what
    // its owner approved
    if (q.selectsStar()) {
      throw new ApiException(
              422,
              "sql: an n-party query names the columns it selects (no * or t.*), so that each"
                  + " owner approves exactly what its job sends")
          .with("field", "sql")
          .with("clause", "SELECT");
    }
    return q;
  }

  /**
   * Refuses (422) a use of party {@code index}'s columns its owner does not allow: a join key not
   * among its key columns, a revealed column not among its reveal columns, a WHERE column among
   * neither.
   */
  static void check(MultiJoinQuery q, int index, PartyView v, QueryValidator.Policy p) {
    String table = q.tables().get(index);
    refuseOutside(table, p, v.keyColumns(), p.key(), "a join key", "ON");
    refuseOutside(table, p, v.revealedColumns(), p.reveal(), "revealed", "SELECT");
    Set<String> filterable = new HashSet<>(p.filter());
    filterable.addAll(p.key());
    filterable.addAll(p.reveal());
    refuseOutside(table, p, v.filterColumns(), filterable, "used in WHERE", "WHERE");
  }

  private static void refuseOutside(
      String table,
      QueryValidator.Policy p,
      List<String> used,
      Set<String> allowed,
      String use,
      String clause) {
    for (String col : used) {
      if (!allowed.contains(col)) {
        throw new ApiException(
                422,
                "column "
                    + table
                    + "."
                    + col
                    + " of dataset "
                    + p.dataset()
                    + " may not be "
                    + use
                    + " (its owner allows "
                    + allowed.stream().sorted().toList()
                    + ")")
            .with("field", "sql")
            .with("clause", clause);
      }
    }
  }

  /**
   * Refuses (422) a dataset registered with {@code revealIntersection: never}: every party of an
   * n-party join learns which of its keys all parties hold.
   *
   * @param owner whose dataset, in words ("this party's", "carol's")
   */
  static void checkIntersection(String dataset, RevealIntersection setting, String owner) {
    if (setting == RevealIntersection.NEVER) {
      throw new ApiException(
              422,
              "dataset "
                  + dataset
                  + " ("
                  + owner
                  + ") is registered with revealIntersection: never, but every party of an"
                  + " n-party join learns which of its keys all parties hold")
          .with("field", "parties")
          .with("dataset", dataset);
    }
  }

  /** A dataset's public size policy as the approval shows it: unset is the default, rounded. */
  static String publicSize(String registered) {
    return registered == null ? io.psiflink.api.PublicSize.DEFAULT.text() : registered;
  }

  /** The registered provider a submission names (400, field provider, if it is not). */
  static Provider registered(CoordinatorConfig config, String name) {
    return Registrations.registered(config.party(), config.providers(), "provider", name);
  }

  /**
   * A party's check of an offer's provider against its own registry: unknown, or registered with
   * another pin, is refused (422, field provider) naming the provider.
   */
  static Provider approve(CoordinatorConfig config, String name, String pin) {
    return Registrations.approve(config.party(), config.providers(), "provider", name, pin);
  }

  /**
   * What the approval shows: every party and its dataset, what this party's table gives (its key,
   * its revealed columns, its filter) and its public size, the provider, and who learns what (as
   * docs/security.md "The multiparty join" says).
   *
   * @param views each party's view where this coordinator knows it (P1 knows all; another party
   *     only its own: the others' entries are null)
   * @param publicSizes each party's public size policy where known (null entries otherwise)
   */
  static Map<String, Object> disclosure(
      MultiJoinQuery q,
      List<GroupMember> parties,
      int localIndex,
      List<PartyView> views,
      List<String> publicSizes,
      Provider provider) {
    int n = parties.size();
    List<Map<String, Object>> tables = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Map<String, Object> t = new LinkedHashMap<>();
      t.put("role", "P" + (i + 1));
      t.put("party", parties.get(i).party());
      t.put("dataset", parties.get(i).dataset());
      t.put("table", q.tables().get(i));
      PartyView v = views.get(i);
      if (v != null) {
        t.put("joinKey", v.keyColumns());
        t.put("revealed", v.revealedColumns());
        t.put("where", v.wherePredicate().isEmpty() ? null : v.wherePredicate());
      }
      if (publicSizes.get(i) != null) { // known at P1 for all, elsewhere for its own
        t.put("publicSize", publicSizes.get(i));
      }
      tables.add(t);
    }
    String p1 = "P1 (" + parties.get(0).party() + ")";
    Map<String, Object> learns = new LinkedHashMap<>();
    learns.put(
        p1,
        "the joined rows: every party's revealed columns for the keys all "
            + n
            + " parties hold; the names and types of the columns the query names in every table;"
            + " per bin, each party's number of rows of every common key");
    learns.put(
        "every other party",
        "which of its own keys all parties hold, and the parties' names; nothing of another"
            + " party's rows");
    learns.put(
        "every party",
        "each bin's set size: the largest of the parties' public sizes (publicSize), per bin");
    learns.put(
        "the provider " + provider.name(),
        "the session, the parties' names, n, the bin count, each party's public bound per bin and"
            + " timings; no key, no token, no row (it combines encrypted filters and cannot"
            + " decrypt them)");
    learns.put(
        "the relay",
        "traffic volumes per stream; every frame is sealed end to end between parties");
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("join", "n-party inner join of " + n + " tables on one key");
    d.put("thisParty", "P" + (localIndex + 1));
    d.put("parties", tables);
    d.put("output", p1 + " writes the joined table");
    Map<String, Object> pr = new LinkedHashMap<>();
    pr.put("name", provider.name());
    pr.put("certSha256", provider.certSha256());
    pr.put("description", provider.description());
    d.put("provider", pr);
    d.put("learns", learns);
    return d;
  }
}
