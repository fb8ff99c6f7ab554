package io.psiflink.query;

import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * A conservative analysis of SQL's NULL propagation, on the parsed expression: what it proves is
 * true, what it cannot prove is taken to be false (so a predicate it does not know is never taken
 * for null-rejecting). Used to decide what a WHERE on b's columns after a LEFT JOIN means, and
 * whether {@code b.k IS NULL} can only hold for a's rows without a match.
 */
final class Nulls {
  private Nulls() {}

  /** Operators that are NULL when any operand is NULL. */
  private static final Set<SqlKind> STRICT_KINDS =
      Set.of(
          SqlKind.EQUALS,
          SqlKind.NOT_EQUALS,
          SqlKind.LESS_THAN,
          SqlKind.GREATER_THAN,
          SqlKind.LESS_THAN_OR_EQUAL,
          SqlKind.GREATER_THAN_OR_EQUAL,
          SqlKind.LIKE,
          SqlKind.SIMILAR,
          SqlKind.PLUS,
          SqlKind.MINUS,
          SqlKind.TIMES,
          SqlKind.DIVIDE,
          SqlKind.MOD,
          SqlKind.MINUS_PREFIX,
          SqlKind.PLUS_PREFIX,
          SqlKind.CAST,
          SqlKind.NOT,
          SqlKind.TRIM,
          SqlKind.LTRIM,
          SqlKind.RTRIM,
          SqlKind.POSITION,
          SqlKind.FLOOR,
          SqlKind.CEIL);

  /** Functions (by name) that are NULL when any argument is NULL, in Flink SQL. */
  private static final Set<String> STRICT_FUNCTIONS =
      Set.of(
          "||",
          "UPPER",
          "LOWER",
          "TRIM",
          "LTRIM",
          "RTRIM",
          "SUBSTRING",
          "SUBSTR",
          "CHAR_LENGTH",
          "CHARACTER_LENGTH",
          "ABS",
          "CONCAT",
          "INITCAP",
          "REPLACE",
          "LPAD",
          "RPAD",
          "ROUND",
          "MOD",
          "REVERSE",
          "OVERLAY",
          "POSITION",
          "NFC",
          "NFD",
          "NFKC",
          "NFKD");

  /** Predicates that are NULL when their first operand is (whatever the others are). */
  private static final Set<SqlKind> STRICT_IN_FIRST =
      Set.of(SqlKind.BETWEEN, SqlKind.IN, SqlKind.NOT_IN);

  /**
   * Whether {@code n} is NULL whenever the columns {@code isNull} accepts are NULL (provably, and
   * only if it uses one of them).
   */
  static boolean nullish(SqlNode n, Predicate<SqlIdentifier> isNull) {
    if (n instanceof SqlIdentifier id) {
      return !id.isStar() && isNull.test(id);
    }
    if (n instanceof SqlLiteral lit) {
      return lit.getTypeName() == SqlTypeName.NULL;
    }
    if (!(n instanceof SqlCall call)) {
      return false;
    }
    if (STRICT_IN_FIRST.contains(call.getKind())) {
      return nullish(call.operand(0), isNull);
    }
    String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
    if (STRICT_KINDS.contains(call.getKind()) || STRICT_FUNCTIONS.contains(name)) {
      for (SqlNode o : call.getOperandList()) {
        if (o != null && nullish(o, isNull)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether the predicate {@code p} cannot be TRUE when all the columns it uses are NULL: SQL's
   * null-rejecting predicate (a WHERE with it on b's columns turns a LEFT JOIN into a JOIN).
   */
  static boolean rejects(SqlNode p) {
    if (nullish(p, id -> true)) {
      return true;
    }
    if (!(p instanceof SqlCall call)) {
      return false;
    }
    return switch (call.getKind()) {
      case AND -> call.getOperandList().stream().anyMatch(Nulls::rejects);
      case OR -> call.getOperandList().stream().allMatch(Nulls::rejects);
      case IS_NOT_NULL -> nullish(call.operand(0), id -> true);
      case IS_TRUE -> rejects(call.operand(0));
      case IS_FALSE -> nullish(call.operand(0), id -> true);
      default -> false;
    };
  }
}
