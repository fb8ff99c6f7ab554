package io.psiflink.query;

import io.psiflink.api.Role;
import java.io.Serializable;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The parts of a join query as written, before resolution against schemas: a two-party query
 * ({@link JoinQuery}) or an n-party one ({@link MultiJoinQuery}). Unqualified column references
 * have a null qualifier: which table they belong to is decided by {@link Resolver}.
 *
 * @param tables the tables' names in party order ({@code a}, {@code b} for two parties)
 * @param qualifiers how each table is referred to in the query (its alias, or its name)
 * @param kind the join kind as written: INNER or LEFT for {@code a [LEFT] JOIN b}, SEMI for {@code
 *     EXISTS}/{@code IN}, ANTI for {@code NOT EXISTS}/{@code NOT IN} (a LEFT JOIN may still become
 *     an inner or anti-join by its WHERE: {@link Resolver})
 * @param notIn the anti-join was written {@code NOT IN}: its keys must be provably non-NULL
 * @param select the SELECT items in order (empty for a count)
 * @param count the query's {@code COUNT(DISTINCT ...)}, or null when it selects columns
 * @param on the candidate key equalities in order: of ON, of the subquery's WHERE, or the pairs of
 *     an IN
 * @param onConditions the other AND-ed conditions of ON or of the subquery's WHERE
 * @param onSpan the ON condition (or the subquery) as written, for messages
 * @param where the conjuncts of the (outer) WHERE in order, without the subquery
 * @param keys for an n-party join, each party's key expressions in key order (the ON equalities
 *     checked to join every table on the same key); empty for two parties, whose keys are the
 *     equalities of {@code on} that compare the tables
 * @param canonical the canonical text the fingerprint is computed from
 */
record ParsedQuery(
    List<String> tables,
    List<String> qualifiers,
    JoinKind kind,
    boolean notIn,
    List<Item> select,
    Count count,
    List<Equality> on,
    List<Conjunct> onConditions,
    SourceSpan onSpan,
    List<Conjunct> where,
    List<List<Expr>> keys,
    String canonical)
    implements Serializable {

  ParsedQuery {
    tables = List.copyOf(tables);
    qualifiers = List.copyOf(qualifiers);
    keys = keys.stream().map(List::copyOf).toList();
    select = List.copyOf(select);
    on = List.copyOf(on);
    onConditions = List.copyOf(onConditions);
    where = List.copyOf(where);
  }

  /** Party {@code index} of {@code parties}: {@link Role#A} and {@link Role#B} when two. */
  static Role party(int index, int parties) {
    return parties == 2 ? (index == 0 ? Role.A : Role.B) : Role.party(index, parties);
  }

  /** The parties, in table order. */
  List<Role> parties() {
    return IntStream.range(0, tables.size()).mapToObj(i -> party(i, tables.size())).toList();
  }

  String qualifier(Role side) {
    return qualifiers.get(side.index());
  }

  String qualifierA() {
    return qualifiers.get(0);
  }

  String qualifierB() {
    return qualifiers.get(1);
  }

  /** The name of {@code side}'s table. */
  String table(Role side) {
    return tables.get(side.index());
  }

  /**
   * {@code COUNT(DISTINCT keys) [AS name]}: how many distinct join keys both tables hold.
   *
   * @param name the result column's name ({@code count} unless aliased)
   */
  record Count(List<Ref> keys, String name, SourceSpan span) implements Serializable {
    Count {
      keys = List.copyOf(keys);
    }
  }

  /** A column reference; {@code qualifier} is null when the column was written without a table. */
  record Ref(Role qualifier, String column, SourceSpan span) implements Serializable {
    /** The reference as written, e.g. {@code x.spend} or {@code spend}. */
    String written() {
      return span == null ? column : span.text();
    }
  }

  /**
   * A SELECT item: a column ({@code ref} non-null, optional {@code alias}), or a star ({@code ref}
   * null) of one table ({@code starSide}) or of both ({@code starSide} null).
   */
  record Item(Ref ref, Role starSide, String alias, SourceSpan span) implements Serializable {
    boolean star() {
      return ref == null;
    }
  }

  /**
   * An expression over one table's columns (one side of a key equality).
   *
   * @param refs the column references in it, in order
   * @param flinkSql its Flink SQL text, identifiers unqualified and backtick-quoted
   * @param canonical its canonical text (qualified by table names, see the fingerprint)
   * @param column the reference when the expression is just a column, else null
   * @param strictRefs the references whose NULL makes the whole expression NULL
   */
  record Expr(
      List<Ref> refs,
      String flinkSql,
      String canonical,
      Ref column,
      List<Ref> strictRefs,
      SourceSpan span)
      implements Serializable {
    Expr {
      refs = List.copyOf(refs);
      strictRefs = List.copyOf(strictRefs);
    }
  }

  /**
   * A candidate key equality {@code left = right}, as written. Whether it compares the two tables
   * (a key) or two expressions of one table (then {@code asCondition}, a plain condition; null for
   * the pairs of an IN, which must compare the tables) is known once each reference's table is.
   */
  record Equality(Expr left, Expr right, Conjunct asCondition, SourceSpan span)
      implements Serializable {}

  /**
   * One AND-ed condition: the columns it uses, and its Flink SQL text with identifiers unqualified
   * and backtick-quoted.
   *
   * @param canonical its text for the fingerprint
   * @param isNullOf the column when the condition is {@code <column> IS NULL}, else null
   * @param isNotNullOf the column when the condition is {@code <column> IS NOT NULL}, else null
   * @param rejectsNull whether the condition cannot be TRUE when all its columns are NULL (SQL's
   *     null-rejecting predicate), as far as a conservative analysis proves it
   */
  record Conjunct(
      List<Ref> refs,
      String flinkSql,
      SourceSpan span,
      String canonical,
      Ref isNullOf,
      Ref isNotNullOf,
      boolean rejectsNull)
      implements Serializable {
    Conjunct {
      refs = List.copyOf(refs);
    }
  }
}
