package io.psiflink.query;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * An n-party join query checked against all its parties' schemas.
 *
 * @param query the query
 * @param output the result columns, in {@code SELECT} order with stars expanded, with unique output
 *     names ({@link OutputColumn#side()} is the supplying party)
 * @param views each party's view, in party order; view {@code i} equals {@code query.view(i,
 *     schemaOfParty(i))}
 */
public record ResolvedMultiJoin(
    MultiJoinQuery query, List<OutputColumn> output, List<PartyView> views)
    implements Serializable {
  public ResolvedMultiJoin {
    Objects.requireNonNull(query, "query");
    output = List.copyOf(output);
    views = List.copyOf(views);
  }

  /** The view of party {@code party} (0-based). */
  public PartyView view(int party) {
    return views.get(party);
  }
}
