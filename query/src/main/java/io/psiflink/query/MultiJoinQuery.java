package io.psiflink.query;

import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * A private join query of n ≥ 3 parties' tables (the multiparty private join), parsed by Calcite
 * and checked to be inside the supported subset, but not yet checked against schemas. Immutable and
 * serializable.
 *
 * <h2>The subset</h2>
 *
 * <pre>
 * SELECT &lt;items&gt; FROM t1 [AS x1] JOIN t2 [AS x2] ON &lt;key equalities&gt;
 *   JOIN t3 [AS x3] ON &lt;key equalities&gt; [JOIN ...]
 *   [WHERE &lt;conjunct&gt; [AND &lt;conjunct&gt; ...]]
 * </pre>
 *
 * <ul>
 *   <li>An inner equi-join of all tables on one key: the tables are named freely; party {@code i}
 *       ({@code Role.party(i, n)}, 0-based) holds the i-th table in FROM order; party 0 receives
 *       and writes the result. Each table appears once.
 *   <li>Each ON is a conjunction of equalities between an expression of one table and one of
 *       another ({@code a.k = b.k}, {@code LOWER(a.email) = LOWER(c.email)}: the key expressions of
 *       {@link JoinQuery}), every column qualified, using only the tables joined so far. The first
 *       ON sets the key (one expression per key column); every later ON must equate its table's
 *       expressions with those of the key, column by column: {@code JOIN c ON a.k = c.k} (star) and
 *       {@code JOIN c ON b.k = c.k} (chain) are the same join.
 *   <li>SELECT and WHERE are as in {@link JoinQuery}: column references, {@code *} and {@code t.*}
 *       (all tables' columns in FROM order for {@code *}); each WHERE conjunct uses the columns of
 *       one table only, and filters that table's rows at its party.
 *   <li>Everything else is rejected with a {@link QueryException} naming the clause: two tables (a
 *       {@link JoinQuery}), LEFT, RIGHT, FULL, CROSS and comma joins, OR and other conditions in
 *       ON, subqueries, COUNT and other aggregates, GROUP BY, HAVING, ORDER BY, LIMIT, DISTINCT.
 * </ul>
 *
 * <p>Identifiers, quoting, and output column names follow {@link JoinQuery}; a repeated column name
 * is prefixed with its table's name.
 */
public final class MultiJoinQuery extends SqlQuery implements Serializable {
  private static final long serialVersionUID = 1L;

  private MultiJoinQuery(String sql, ParsedQuery parsed) {
    super(sql, parsed);
  }

  /** Parses and checks a query; the message of the exception says what is wrong and where. */
  public static MultiJoinQuery parse(String sql) throws QueryException {
    Objects.requireNonNull(sql, "sql");
    return new MultiJoinQuery(sql, MultiQueryParser.parse(sql));
  }

  /** How many parties (tables) the query joins. */
  public int parties() {
    return parsed.tables().size();
  }

  /** How the query refers to each table (its alias, or its name), in FROM (party) order. */
  public List<String> tables() {
    return parsed.qualifiers();
  }

  /**
   * SHA-256 (lower-case hex) of a canonical form: equal for queries that differ only in whitespace,
   * comments, keyword case, aliases or in which tables each ON equates (chain or star), different
   * when a table name, key, column or predicate changes; never a two-party query's fingerprint.
   */
  public String fingerprint() {
    return fingerprint;
  }

  /**
   * What party {@code party} (0-based) needs, from its own schema only. An unqualified name not in
   * {@code own} is taken to be another table's (so this cannot detect an ambiguous name: {@link
   * #resolve} can). When {@link #resolve} succeeds, its views equal the views computed here.
   */
  public PartyView view(int party, TableSchema own) throws QueryException {
    Objects.requireNonNull(own, "own");
    Objects.checkIndex(party, parties());
    return Resolver.view(parsed, Role.party(party, parties()), own);
  }

  /**
   * Resolves the query against all parties' schemas, in party order: unknown and ambiguous columns,
   * key columns whose types do not compare; expands stars and assigns output names.
   */
  public ResolvedMultiJoin resolve(List<TableSchema> schemas) throws QueryException {
    Objects.requireNonNull(schemas, "schemas");
    if (schemas.size() != parties()) {
      throw new IllegalArgumentException(
          "the query joins " + parties() + " tables, not " + schemas.size());
    }
    schemas.forEach(s -> Objects.requireNonNull(s, "schema"));
    return Resolver.resolve(this, parsed, schemas);
  }
}
