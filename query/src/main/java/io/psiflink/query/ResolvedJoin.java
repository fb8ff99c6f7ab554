package io.psiflink.query;

import io.psiflink.api.Role;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * A join query checked against both parties' schemas.
 *
 * @param query the query
 * @param kind what A outputs, after WHERE ({@link PartyView#kind()})
 * @param on the key equalities in query order, each with the key of {@code a} first (its column, or
 *     its expression's Flink SQL text: {@link JoinKey#name()})
 * @param output the result columns, in {@code SELECT} order with stars expanded, with unique output
 *     names; empty for a count
 * @param count for {@code SELECT COUNT(DISTINCT keys)}, the name of the one result column (a
 *     BIGINT: how many distinct keys both tables hold); null when the query selects columns
 * @param a party A's view; equal to {@code query.view(Role.A, schemaOfA)}
 * @param b party B's view; equal to {@code query.view(Role.B, schemaOfB)}
 */
public record ResolvedJoin(
    JoinQuery query,
    JoinKind kind,
    List<KeyPair> on,
    List<OutputColumn> output,
    String count,
    PartyView a,
    PartyView b)
    implements Serializable {
  public ResolvedJoin {
    Objects.requireNonNull(query, "query");
    Objects.requireNonNull(kind, "kind");
    on = List.copyOf(on);
    output = List.copyOf(output);
    Objects.requireNonNull(a, "a");
    Objects.requireNonNull(b, "b");
  }

  /** How the query was read where SQL's rules changed its join kind ({@link PartyView#notes()}). */
  public List<String> notes() {
    return a.notes();
  }

  /** The view of the given party. */
  public PartyView view(Role side) {
    return Role.A.equals(side) ? a : b;
  }
}
