package io.psiflink.query;

import io.psiflink.api.Role;
import java.io.Serializable;
import java.util.List;

/**
 * The parts of a join query as written, before resolution against schemas. Unqualified column
 * references have a null qualifier: which table they belong to is decided by {@link Resolver}.
 *
 * @param qualifierA how table {@code a} is referred to in the query (its alias, or {@code a})
 * @param qualifierB how table {@code b} is referred to in the query
 * @param select the SELECT items in order (empty for a count)
 * @param count the query's {@code COUNT(DISTINCT ...)}, or null when it selects columns
 * @param on the ON equalities in order
 * @param where the WHERE conjuncts in order
 * @param canonical the canonical text the fingerprint is computed from
 */
record ParsedQuery(
    String qualifierA,
    String qualifierB,
    List<Item> select,
    Count count,
    List<Equality> on,
    List<Conjunct> where,
    String canonical)
    implements Serializable {

  ParsedQuery {
    select = List.copyOf(select);
    on = List.copyOf(on);
    where = List.copyOf(where);
  }

  String qualifier(Role side) {
    return Role.A.equals(side) ? qualifierA : qualifierB;
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

  /** One ON equality {@code left = right}, as written. */
  record Equality(Ref left, Ref right, SourceSpan span) implements Serializable {}

  /**
   * One AND-ed condition of WHERE: the columns it uses, and its Flink SQL text with identifiers
   * unqualified and backtick-quoted.
   */
  record Conjunct(List<Ref> refs, String flinkSql, SourceSpan span) implements Serializable {
    Conjunct {
      refs = List.copyOf(refs);
    }
  }
}
