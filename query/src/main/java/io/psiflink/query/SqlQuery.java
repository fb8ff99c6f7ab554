package io.psiflink.query;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A query as given and as parsed ({@link JoinQuery}, {@link MultiJoinQuery}); equal to a query of
 * its class with the same text.
 */
abstract class SqlQuery implements Serializable {
  private static final long serialVersionUID = 1L;

  final String sql;
  final ParsedQuery parsed;
  final String fingerprint;

  SqlQuery(String sql, ParsedQuery parsed) {
    this.sql = sql;
    this.parsed = parsed;
    this.fingerprint = sha256(parsed.canonical());
  }

  /** The query text as given. */
  public String sql() {
    return sql;
  }

  /** The canonical text the fingerprint is computed from. */
  String canonical() {
    return parsed.canonical();
  }

  ParsedQuery parsed() {
    return parsed;
  }

  /** Whether SELECT has a {@code *} or {@code t.*}, which expands to whatever a table holds. */
  public boolean selectsStar() {
    return parsed.select().stream().anyMatch(ParsedQuery.Item::star);
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public final boolean equals(Object o) {
    return o != null && o.getClass() == getClass() && sql.equals(((SqlQuery) o).sql);
  }

  @Override
  public final int hashCode() {
    return sql.hashCode();
  }

  @Override
  public final String toString() {
    return sql;
  }
}
