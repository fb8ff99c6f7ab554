package io.psiflink.query;

import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * A private join query between party A's table {@code a} and party B's table {@code b}, parsed by
 * Calcite and checked to be inside the supported subset, but not yet checked against schemas.
 * Immutable and serializable. A join of three or more tables is a {@link MultiJoinQuery}.
 *
 * <h2>The subset</h2>
 *
 * <pre>
 * SELECT &lt;items&gt; FROM a [AS x] [INNER | LEFT [OUTER]] JOIN b [AS y]
 *   ON &lt;key of a&gt; = &lt;key of b&gt; [AND ...] [AND &lt;condition on one table&gt; ...]
 *   [WHERE &lt;conjunct&gt; [AND &lt;conjunct&gt; ...]]
 *
 * SELECT &lt;items of a&gt; FROM a [AS x]
 *   WHERE [NOT] EXISTS (SELECT ... FROM b [AS y] WHERE &lt;key of b&gt; = &lt;key of a&gt; [AND ...])
 *   [AND &lt;conjunct on a&gt; ...]
 *
 * SELECT &lt;items of a&gt; FROM a [AS x]
 *   WHERE &lt;key of a&gt; [NOT] IN (SELECT &lt;key of b&gt; FROM b [WHERE ...]) [AND ...]
 * </pre>
 *
 * <ul>
 *   <li>SELECT items are column references ({@code a.spend}, {@code x.spend}, or {@code spend} if
 *       only one table has it), optionally {@code AS name}, or {@code *}, {@code a.*}, {@code b.*}
 *       (all columns in table order, a's before b's for {@code *}; only a's in a semi- or
 *       anti-join).
 *   <li>{@code a} comes first in FROM. With an alias, columns are qualified by the alias (standard
 *       SQL), and an alias may not be the other table's name.
 *   <li>A key is a column or an expression over one table's columns ({@code LOWER(TRIM(a.email))},
 *       {@code CAST}, {@code SUBSTRING}, {@code ||}, {@code COALESCE}, ...), which its party
 *       evaluates with Flink SQL on its own rows ({@link JoinKey}); an expression mixing the tables
 *       is refused naming it. {@code NFC(x)}, {@code NFD}, {@code NFKC} and {@code NFKD} normalise
 *       Unicode (the jobs provide them; {@code NORMALIZE} is a reserved word of Flink SQL). Keys
 *       compare by SQL equality: strings by their exact characters. The two keys of an equality
 *       must have the same {@link io.psiflink.api.ColumnType.KeyClass}.
 *   <li>ON (or the subquery's WHERE) holds the key equalities and conditions on one table's
 *       columns: a filter of that table, except a's in a LEFT JOIN and inside NOT EXISTS (refused:
 *       SQL would keep a's rows that fail it).
 *   <li>WHERE is a conjunction; each AND-ed condition may use the columns of one table only, and
 *       must use at least one. Inside a condition anything Flink SQL can evaluate on one row is
 *       allowed (comparisons, BETWEEN, IN lists, LIKE, IS [NOT] NULL, arithmetic, CAST, functions,
 *       OR and NOT); aggregate and window functions and {@code ?} parameters are not.
 *   <li>The join kind ({@link JoinKind}): JOIN is INNER, LEFT JOIN is LEFT, [NOT] EXISTS and [NOT]
 *       IN are SEMI and ANTI. After a LEFT JOIN, a WHERE condition on b's columns that NULL never
 *       satisfies makes it INNER, {@code b.k IS NULL} on a key column of b makes it ANTI, any other
 *       is refused ({@link ResolvedJoin#kind()}, {@link PartyView#notes()}). NOT IN is accepted
 *       only where its keys are columns that cannot be NULL (NOT NULL in the schema, or tested
 *       {@code IS NOT NULL} in the query).
 *   <li>Everything else is rejected with a {@link QueryException} naming the clause: set
 *       operations, WITH, ORDER BY, LIMIT/OFFSET, GROUP BY, HAVING, DISTINCT, WINDOW, QUALIFY,
 *       hints, RIGHT and FULL joins (they would give A rows of b outside the intersection), cross,
 *       comma, NATURAL and USING joins, other tables, other subqueries, expressions in SELECT.
 * </ul>
 *
 * <h2>Identifiers and quoting</h2>
 *
 * <p>The query is read with Calcite's {@code Lex.JAVA} (the lexical convention of Flink SQL):
 * identifiers are case-sensitive and keep their case whether quoted or not; an identifier is quoted
 * with <b>backticks</b> ({@code a.`home city`}; a backtick inside is doubled), which is how to name
 * a column containing spaces or other characters, or one spelled like a keyword. Double quotes are
 * <i>not</i> identifier quotes (a syntax error says so). String literals use single quotes ({@code
 * 'it''s'}). Keywords and function names are case-insensitive. An unquoted niladic SQL function
 * name ({@code CURRENT_DATE}, {@code USER}, ...) means the function; quote it to mean a column.
 *
 * <h2>Output column names</h2>
 *
 * <p>Each output column is named by its {@code AS} alias, or else by its column name. When that
 * name was already taken by an earlier output column, an un-aliased column is renamed {@code
 * <table>_<name>} with its table's name {@code a} or {@code b} (so {@code SELECT a.email, b.email}
 * gives {@code email, b_email}); an {@code AS} name is never changed, so repeating one is an error.
 * If the names are still not unique after this, resolution fails and asks for an {@code AS} name.
 */
public final class JoinQuery extends SqlQuery implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The two parties of a join query, in table order: A (table {@code a}), then B. */
  public static final List<Role> PARTIES = List.of(Role.A, Role.B);

  private JoinQuery(String sql, ParsedQuery parsed) {
    super(sql, parsed);
  }

  /** Parses and checks a query; the message of the exception says what is wrong and where. */
  public static JoinQuery parse(String sql) throws QueryException {
    Objects.requireNonNull(sql, "sql");
    return new JoinQuery(sql, QueryParser.parse(sql));
  }

  /**
   * Resolves the query against the two schemas: unknown columns (the message lists the available
   * ones), ambiguous unqualified names, ON columns of different key classes ({@code "ON: a.k
   * (BIGINT) = b.k (STRING): types do not compare"}), conditions that turn out to mix both tables;
   * expands stars and assigns output names.
   */
  public ResolvedJoin resolve(TableSchema a, TableSchema b) throws QueryException {
    Objects.requireNonNull(a, "a");
    Objects.requireNonNull(b, "b");
    return Resolver.resolve(this, parsed, a, b);
  }

  /**
   * This query with every {@code *} and {@code t.*} of SELECT replaced, where it stands in the
   * text, by the columns it expands to against {@code a} and {@code b} (qualified as the query
   * qualifies the table, with {@code AS} where the output name differs from the column); the text
   * is otherwise as given, so it resolves to the same output columns and names. A query without a
   * star is returned unchanged. Coordinators expand against the registered schemas, so that the
   * jobs never expand a star against whatever columns the files have by then.
   */
  public String expandStars(TableSchema a, TableSchema b) throws QueryException {
    if (parsed.select().stream().noneMatch(ParsedQuery.Item::star)) {
      return sql;
    }
    List<OutputColumn> out = resolve(a, b).output();
    SourceText text = new SourceText(sql);
    StringBuilder sb = new StringBuilder();
    int copied = 0;
    int next = 0; // the output column the current SELECT item starts at
    for (ParsedQuery.Item item : parsed.select()) {
      if (!item.star()) {
        next++;
        continue;
      }
      List<String> cols = new java.util.ArrayList<>();
      boolean subquery = parsed.kind() == JoinKind.SEMI || parsed.kind() == JoinKind.ANTI;
      List<Role> starSides =
          item.starSide() != null ? List.of(item.starSide()) : subquery ? List.of(Role.A) : PARTIES;
      for (Role s : starSides) {
        for (int i = 0; i < (Role.A.equals(s) ? a : b).names().size(); i++) {
          OutputColumn oc = out.get(next++);
          cols.add(
              FlinkDialect.quote(parsed.qualifier(s))
                  + "."
                  + FlinkDialect.quote(oc.column())
                  + (oc.outputName().equals(oc.column())
                      ? ""
                      : " AS " + FlinkDialect.quote(oc.outputName())));
        }
      }
      int at = text.offsetOf(item.span());
      if (at < copied) {
        throw new QueryException(
            "SELECT",
            "cannot place the columns of " + item.span().text() + " in the query text",
            item.span());
      }
      sb.append(sql, copied, at).append(String.join(", ", cols));
      copied = at + item.span().text().length();
    }
    return sb.append(sql.substring(copied)).toString();
  }

  /**
   * What one party needs, from its own schema only. Checks that side's qualified references against
   * {@code own}; an unqualified name not in {@code own} is taken to be the other table's (so this
   * cannot detect a name that is ambiguous between the tables: {@link #resolve} can). When {@link
   * #resolve} succeeds, its views equal the views computed here.
   */
  public PartyView view(Role side, TableSchema own) throws QueryException {
    Objects.requireNonNull(side, "side");
    Objects.requireNonNull(own, "own");
    return Resolver.view(parsed, side, own);
  }

  /** Whether the query is {@code SELECT COUNT(DISTINCT keys)}: only a count is revealed. */
  public boolean countOnly() {
    return parsed.count() != null;
  }

  /**
   * The join kind as written: INNER or LEFT for a JOIN, SEMI for EXISTS/IN, ANTI for NOT EXISTS/NOT
   * IN. What A outputs may differ by SQL's rules for WHERE after a LEFT JOIN: see {@link
   * ResolvedJoin#kind()} and {@link PartyView#kind()}.
   */
  public JoinKind writtenKind() {
    return parsed.kind();
  }

  /**
   * SHA-256 (lower-case hex) of a canonical unparse of the parsed query: equal for queries that
   * differ only in whitespace, comments, keyword and function-name case, {@code JOIN} versus {@code
   * INNER JOIN}, parenthesisation of the AND-ed conditions, the order of the two sides of an ON
   * equality whose columns are all qualified, {@code EXISTS} versus {@code IN} for the same keys,
   * or table aliases; different when the join kind, a key expression, a column, an alias of a
   * column, a predicate or a literal changes. An inner join of columns has the fingerprint it had
   * before join kinds and key expressions existed.
   */
  public String fingerprint() {
    return fingerprint;
  }

  /**
   * Where the query names column {@code column} of {@code side}'s table in {@code clause} ({@code
   * "SELECT"}, {@code "ON"} or {@code "WHERE"}), in query order: qualified references to that
   * table, unqualified references with that name, and (for SELECT) stars that expand to that
   * table's columns. For error messages about a column that resolved but is not allowed (e.g. by a
   * dataset's owner); empty when nothing matches.
   */
  public java.util.List<SourceSpan> references(Role side, String column, String clause) {
    Objects.requireNonNull(side, "side");
    Objects.requireNonNull(column, "column");
    java.util.List<SourceSpan> out = new java.util.ArrayList<>();
    java.util.function.Predicate<ParsedQuery.Ref> matches =
        r ->
            r != null
                && r.column().equals(column)
                && (r.qualifier() == null || r.qualifier() == side);
    switch (clause) {
      case "SELECT" -> {
        for (ParsedQuery.Item item : parsed.select()) {
          if (item.star()
              ? item.starSide() == null || item.starSide() == side
              : matches.test(item.ref())) {
            out.add(item.span());
          }
        }
      }
      case "ON" -> {
        for (ParsedQuery.Equality e : parsed.on()) {
          for (ParsedQuery.Expr x : java.util.List.of(e.left(), e.right())) {
            for (ParsedQuery.Ref r : x.refs()) {
              if (matches.test(r)) {
                out.add(r.span());
              }
            }
          }
        }
        for (ParsedQuery.Conjunct c : parsed.onConditions()) {
          for (ParsedQuery.Ref r : c.refs()) {
            if (matches.test(r)) {
              out.add(r.span());
            }
          }
        }
      }
      case "WHERE" -> {
        java.util.List<ParsedQuery.Conjunct> conds = new java.util.ArrayList<>(parsed.where());
        conds.addAll(parsed.onConditions());
        for (ParsedQuery.Conjunct c : conds) {
          for (ParsedQuery.Ref r : c.refs()) {
            if (matches.test(r)) {
              out.add(r.span());
            }
          }
        }
      }
      default ->
          throw new IllegalArgumentException("clause must be SELECT, ON or WHERE: " + clause);
    }
    out.removeIf(Objects::isNull);
    return java.util.List.copyOf(out);
  }
}
