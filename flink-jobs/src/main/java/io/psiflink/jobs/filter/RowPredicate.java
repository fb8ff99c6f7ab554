package io.psiflink.jobs.filter;

import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import io.psiflink.query.FlinkDialect;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.fun.SqlBetweenOperator;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.types.Row;

/**
 * A party's WHERE predicate evaluated on its rows by this class rather than by Flink's SQL planner,
 * for the forms most WHERE clauses take: a column compared with a literal or with a column of the
 * same type ({@code = <> != < <= > >=}), {@code [NOT] IN} and {@code [NOT] BETWEEN} with literals,
 * {@code IS [NOT] NULL}, a BOOLEAN column alone or with {@code IS [NOT] TRUE|FALSE}, {@code AND},
 * {@code OR}, {@code NOT}. Starting the planner costs a party JVM about 3 s, most of a small join's
 * set-up (docs/benchmarks.md, issue 19), and these forms need none of it. Every other form
 * (functions, LIKE, CAST, arithmetic, FLOAT and BYTES columns, a literal of another kind than its
 * column) stays with the planner: {@link #compile} returns empty.
 *
 * <p>The result is Flink SQL's, which {@code RowPredicateTest} checks against the planner on edge
 * values: three-valued logic, a row passing when the predicate is TRUE; integer columns compared
 * exactly with exact literals and as DOUBLE with approximate ones; strings compared with literals
 * in the order of {@link String#compareTo}, as Flink does (by UTF-16 units, not code points), and
 * with other columns for equality only. Where Flink's answer is not SQL's, the form stays with the
 * planner so that both ways agree: Flink casts the literals of an IN list to the column's type,
 * wrapping {@code 2147483648} to {@code -2147483648} in an INT column's list and cutting {@code
 * 100.5} to {@code 100}, so only integers in the column type's range are compiled there; and a
 * string literal with trailing blanks is a CHAR, compared with its blanks padded.
 *
 * <p>DOUBLE values compare as in PostgreSQL: -0.0 equals 0.0, NaN equals NaN and is above every
 * other value, including +Infinity ({@link #compareDoubles}). For these two values Flink's planner
 * has no one rule: its answer depends on how its optimizer rewrote the predicate (measured with
 * Flink 2.3: {@code d > -2.5} keeps NaN and {@code d > e} does not; {@code d < 0} drops -0.0 and so
 * does {@code d = 0 OR d = 5}, while {@code d >= 0 AND d <= 0} keeps it). Both ways agree on every
 * other value.
 */
public final class RowPredicate implements FilterFunction<Row> {
  private static final long serialVersionUID = 1L;

  private final Cond root;
  private final String text;

  private RowPredicate(Cond root, String text) {
    this.root = root;
    this.text = text;
  }

  /**
   * The predicate of Flink SQL text {@code predicate} over the columns of {@code schema}, or empty
   * when it is not of the forms above (or not valid: the planner then says why).
   */
  public static Optional<RowPredicate> compile(TableSchema schema, String predicate) {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(predicate, "predicate");
    try {
      SqlNode node = FlinkDialect.parseExpression(predicate);
      return Optional.of(new RowPredicate(new Compiler(schema).cond(node, false), predicate));
    } catch (SqlParseException | Unsupported e) {
      return Optional.empty();
    }
  }

  @Override
  public boolean filter(Row row) {
    return root.test(row) == Boolean.TRUE;
  }

  /** Three-valued: {@code null} is UNKNOWN. */
  public Boolean test(Row row) {
    return root.test(row);
  }

  @Override
  public String toString() {
    return text;
  }

  /** A form left to the planner. */
  private static final class Unsupported extends Exception {
    private static final long serialVersionUID = 1L;

    Unsupported() {
      super(null, null, false, false);
    }
  }

  private static final Unsupported UNSUPPORTED = new Unsupported();

  /** One node of the predicate, over a row: TRUE, FALSE or {@code null} (UNKNOWN). */
  private interface Cond extends Serializable {
    Boolean test(Row row);
  }

  private static Boolean of(boolean b) {
    return b ? Boolean.TRUE : Boolean.FALSE;
  }

  /** AND ({@code and}) or OR of the parts: FALSE (TRUE) if one is, else UNKNOWN if one is. */
  private record Junction(Cond[] parts, boolean and) implements Cond {
    @Override
    public Boolean test(Row row) {
      Boolean decisive = of(!and);
      Boolean out = of(and);
      for (Cond c : parts) {
        Boolean b = c.test(row);
        if (b == decisive) {
          return decisive;
        }
        if (b == null) {
          out = null;
        }
      }
      return out;
    }
  }

  private record Const(Boolean value) implements Cond {
    @Override
    public Boolean test(Row row) {
      return value;
    }
  }

  /** A BOOLEAN column, or its negation. */
  private record BoolColumn(int field, boolean negated) implements Cond {
    @Override
    public Boolean test(Row row) {
      Boolean v = (Boolean) row.getField(field);
      return v == null ? null : of(v != negated);
    }
  }

  /** {@code IS [NOT] TRUE|FALSE} of a BOOLEAN column: never UNKNOWN. */
  private record Is(int field, boolean value, boolean negated) implements Cond {
    @Override
    public Boolean test(Row row) {
      Boolean v = (Boolean) row.getField(field);
      return of((v != null && v == value) != negated);
    }
  }

  private record IsNull(int field, boolean negated) implements Cond {
    @Override
    public Boolean test(Row row) {
      return of((row.getField(field) == null) != negated);
    }
  }

  /**
   * The comparisons, on the sign of a comparison ({@link Long#compare}, {@link #compareDoubles}).
   */
  private enum Op {
    EQ,
    NE,
    LT,
    LE,
    GT,
    GE;

    boolean onSign(int sign) {
      return switch (this) {
        case EQ -> sign == 0;
        case NE -> sign != 0;
        case LT -> sign < 0;
        case LE -> sign <= 0;
        case GT -> sign > 0;
        case GE -> sign >= 0;
      };
    }

    /** NOT of this comparison. */
    Op negate() {
      return switch (this) {
        case EQ -> NE;
        case NE -> EQ;
        case LT -> GE;
        case LE -> GT;
        case GT -> LE;
        case GE -> LT;
      };
    }

    /** The comparison with its operands swapped: {@code 5 < x} is {@code x > 5}. */
    Op mirror() {
      return switch (this) {
        case EQ, NE -> this;
        case LT -> GT;
        case LE -> GE;
        case GT -> LT;
        case GE -> LE;
      };
    }
  }

  /** An INT or BIGINT column against an exact literal, compared exactly. */
  private record IntegerVsExact(int field, Op op, BigDecimal literal, long asLong, boolean fits)
      implements Cond {
    @Override
    public Boolean test(Row row) {
      Number v = (Number) row.getField(field);
      if (v == null) {
        return null;
      }
      int sign =
          fits
              ? Long.compare(v.longValue(), asLong)
              : BigDecimal.valueOf(v.longValue()).compareTo(literal);
      return of(op.onSign(sign));
    }
  }

  /** A DOUBLE column, or an INT or BIGINT column widened to DOUBLE, against a DOUBLE. */
  private record NumberVsDouble(int field, Op op, double literal) implements Cond {
    @Override
    public Boolean test(Row row) {
      Number v = (Number) row.getField(field);
      return v == null ? null : of(op.onSign(compareDoubles(v.doubleValue(), literal)));
    }
  }

  private record StringVsString(int field, Op op, String literal) implements Cond {
    @Override
    public Boolean test(Row row) {
      String v = (String) row.getField(field);
      return v == null ? null : of(op.onSign(v.compareTo(literal)));
    }
  }

  private record BooleanVsBoolean(int field, Op op, boolean literal) implements Cond {
    @Override
    public Boolean test(Row row) {
      Boolean v = (Boolean) row.getField(field);
      return v == null ? null : of(op.onSign(Boolean.compare(v, literal)));
    }
  }

  /** Two columns of the same kind: integer, DOUBLE, BOOLEAN, or STRING (for equality only). */
  private record Columns(int left, int right, Op op, ColumnType.KeyClass kind) implements Cond {
    @Override
    public Boolean test(Row row) {
      Object a = row.getField(left);
      Object b = row.getField(right);
      if (a == null || b == null) {
        return null;
      }
      return of(
          switch (kind) {
            case INTEGER ->
                op.onSign(Long.compare(((Number) a).longValue(), ((Number) b).longValue()));
            case FLOATING -> op.onSign(compareDoubles((Double) a, (Double) b));
            case STRING -> op.onSign(a.equals(b) ? 0 : 1);
            case BOOLEAN -> op.onSign(Boolean.compare((Boolean) a, (Boolean) b));
            case BYTES -> throw new IllegalStateException("BYTES columns are not compiled");
          });
    }
  }

  /** {@code [NOT] IN} a set of an INT, BIGINT or STRING column's values. */
  private record In(int field, Set<Object> values, boolean negated) implements Cond {
    @Override
    public Boolean test(Row row) {
      Object v = row.getField(field);
      if (v == null) {
        return null;
      }
      Object key = v instanceof Integer i ? Long.valueOf(i) : v;
      return of(values.contains(key) != negated);
    }
  }

  /** PostgreSQL's order of DOUBLE values: -0.0 equal to 0.0, NaN equal to NaN and above all. */
  static int compareDoubles(double a, double b) {
    return a == b ? 0 : Double.compare(a, b);
  }

  private static final class Compiler {
    private final TableSchema schema;

    Compiler(TableSchema schema) {
      this.schema = schema;
    }

    /** {@code node}, or NOT {@code node} pushed down to the leaves. */
    Cond cond(SqlNode node, boolean negated) throws Unsupported {
      if (node instanceof SqlIdentifier id) {
        int f = field(id);
        require(type(f) == ColumnType.BOOLEAN);
        return new BoolColumn(f, negated);
      }
      if (node instanceof SqlLiteral lit && lit.getTypeName() == SqlTypeName.BOOLEAN) {
        Boolean b = (Boolean) lit.getValue();
        require(b != null);
        return new Const(of(b != negated));
      }
      if (!(node instanceof SqlCall call)) {
        throw UNSUPPORTED;
      }
      List<SqlNode> ops = call.getOperandList();
      switch (call.getKind()) {
        case AND, OR -> {
          Cond[] parts = new Cond[ops.size()];
          for (int i = 0; i < parts.length; i++) {
            parts[i] = cond(ops.get(i), negated);
          }
          return new Junction(parts, (call.getKind() == SqlKind.AND) != negated);
        }
        case NOT -> {
          return cond(ops.get(0), !negated);
        }
        case IS_NULL, IS_NOT_NULL -> {
          require(ops.get(0) instanceof SqlIdentifier);
          return new IsNull(
              field((SqlIdentifier) ops.get(0)),
              (call.getKind() == SqlKind.IS_NOT_NULL) != negated);
        }
        case IS_TRUE, IS_NOT_TRUE, IS_FALSE, IS_NOT_FALSE -> {
          require(ops.get(0) instanceof SqlIdentifier);
          int f = field((SqlIdentifier) ops.get(0));
          require(type(f) == ColumnType.BOOLEAN);
          SqlKind k = call.getKind();
          boolean value = k == SqlKind.IS_TRUE || k == SqlKind.IS_NOT_TRUE;
          boolean not = k == SqlKind.IS_NOT_TRUE || k == SqlKind.IS_NOT_FALSE;
          return new Is(f, value, not != negated);
        }
        case EQUALS,
            NOT_EQUALS,
            LESS_THAN,
            LESS_THAN_OR_EQUAL,
            GREATER_THAN,
            GREATER_THAN_OR_EQUAL -> {
          Op op = op(call.getKind());
          return compare(ops.get(0), ops.get(1), negated ? op.negate() : op);
        }
        case IN, NOT_IN -> {
          require(ops.get(1) instanceof SqlNodeList);
          return in(
              ops.get(0), (SqlNodeList) ops.get(1), (call.getKind() == SqlKind.NOT_IN) != negated);
        }
        case BETWEEN -> {
          SqlBetweenOperator between = (SqlBetweenOperator) call.getOperator();
          require(between.flag == SqlBetweenOperator.Flag.ASYMMETRIC);
          // x BETWEEN lo AND hi is x >= lo AND x <= hi; NOT BETWEEN is x < lo OR x > hi (Calcite's)
          boolean not = between.isNegated() != negated;
          Cond lo = compare(ops.get(0), ops.get(1), not ? Op.LT : Op.GE);
          Cond hi = compare(ops.get(0), ops.get(2), not ? Op.GT : Op.LE);
          return new Junction(new Cond[] {lo, hi}, !not);
        }
        default -> throw UNSUPPORTED;
      }
    }

    private static Op op(SqlKind kind) {
      return switch (kind) {
        case EQUALS -> Op.EQ;
        case NOT_EQUALS -> Op.NE;
        case LESS_THAN -> Op.LT;
        case LESS_THAN_OR_EQUAL -> Op.LE;
        case GREATER_THAN -> Op.GT;
        default -> Op.GE;
      };
    }

    private Cond compare(SqlNode left, SqlNode right, Op op) throws Unsupported {
      if (!(left instanceof SqlIdentifier) && right instanceof SqlIdentifier) {
        return compare(right, left, op.mirror());
      }
      require(left instanceof SqlIdentifier);
      int f = field((SqlIdentifier) left);
      ColumnType type = type(f);
      if (right instanceof SqlIdentifier r) {
        int g = field(r);
        ColumnType other = type(g);
        boolean integers = integer(type) && integer(other);
        require(integers || (type == other && type != ColumnType.BYTES));
        require(type != ColumnType.FLOAT);
        require(type != ColumnType.STRING || op == Op.EQ || op == Op.NE);
        return new Columns(f, g, op, type.keyClass());
      }
      Object v = literal(right);
      if (integer(type) && v instanceof BigDecimal exact) {
        boolean fits = isLong(exact);
        return new IntegerVsExact(f, op, exact, fits ? exact.longValueExact() : 0, fits);
      }
      if (integer(type) && v instanceof Double d) {
        return new NumberVsDouble(f, op, d);
      }
      if (type == ColumnType.DOUBLE && (v instanceof BigDecimal || v instanceof Double)) {
        return new NumberVsDouble(f, op, ((Number) v).doubleValue());
      }
      if (type == ColumnType.STRING && v instanceof String s) {
        return new StringVsString(f, op, s);
      }
      if (type == ColumnType.BOOLEAN && v instanceof Boolean b) {
        return new BooleanVsBoolean(f, op, b);
      }
      throw UNSUPPORTED;
    }

    private Cond in(SqlNode left, SqlNodeList list, boolean negated) throws Unsupported {
      require(left instanceof SqlIdentifier && !list.isEmpty());
      int f = field((SqlIdentifier) left);
      ColumnType type = type(f);
      Set<Object> values = new HashSet<>();
      for (SqlNode item : list) {
        Object v = literal(item);
        if (integer(type) && v instanceof BigDecimal exact) {
          require(isLong(exact));
          long x = exact.longValueExact();
          require(type == ColumnType.BIGINT || x == (int) x);
          values.add(x);
        } else if (type == ColumnType.STRING && v instanceof String s) {
          values.add(s);
        } else {
          // DOUBLE and BOOLEAN lists, and literals of another kind than the column
          throw UNSUPPORTED;
        }
      }
      return new In(f, Set.copyOf(values), negated);
    }

    /** A literal's value: {@link BigDecimal} (exact), {@link Double}, {@link String}, Boolean. */
    private static Object literal(SqlNode node) throws Unsupported {
      boolean minus = false;
      while (node instanceof SqlBasicCall c
          && (c.getKind() == SqlKind.MINUS_PREFIX || c.getKind() == SqlKind.PLUS_PREFIX)) {
        minus ^= c.getKind() == SqlKind.MINUS_PREFIX;
        node = c.operand(0);
      }
      if (node instanceof SqlNumericLiteral num) {
        BigDecimal v = num.bigDecimalValue();
        require(v != null);
        // an exact literal's digits must fit in a long (Calcite's validator), before the sign
        require(!num.isExact() || v.unscaledValue().bitLength() <= 63);
        if (minus) {
          v = v.negate();
        }
        if (num.isExact()) {
          return v;
        }
        double d = v.doubleValue();
        require(Double.isFinite(d));
        return d;
      }
      require(!minus);
      if (node instanceof SqlCharStringLiteral s) {
        // 'DE ' is a CHAR(3), which Flink compares with its blanks padded ("DE" < 'DE ' is false)
        String v = s.getValueAs(String.class);
        require(!v.endsWith(" "));
        return v;
      }
      if (node instanceof SqlLiteral lit
          && lit.getTypeName() == SqlTypeName.BOOLEAN
          && lit.getValue() != null) {
        return lit.getValue();
      }
      throw UNSUPPORTED;
    }

    private int field(SqlIdentifier id) throws Unsupported {
      require(id.isSimple());
      return schema.indexOf(id.getSimple()).orElseThrow(() -> UNSUPPORTED);
    }

    private ColumnType type(int field) {
      return schema.column(field).type();
    }

    private static boolean integer(ColumnType t) {
      return t == ColumnType.INT || t == ColumnType.BIGINT;
    }

    /** Whether {@code v} is an integer in BIGINT's range. */
    private static boolean isLong(BigDecimal v) {
      return v.stripTrailingZeros().scale() <= 0
          && v.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) >= 0
          && v.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0;
    }

    private static void require(boolean ok) throws Unsupported {
      if (!ok) {
        throw UNSUPPORTED;
      }
    }
  }
}
