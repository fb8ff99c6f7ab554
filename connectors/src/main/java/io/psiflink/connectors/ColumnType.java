package io.psiflink.connectors;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * The column types a joined table may carry. Integer types share one key class, as do the floating
 * types, so that {@code INT 5} joins {@code BIGINT 5} exactly as SQL compares them.
 */
public enum ColumnType {
  BOOLEAN(KeyClass.BOOLEAN, Types.BOOLEAN, "BOOLEAN"),
  INT(KeyClass.INTEGER, Types.INT, "INT"),
  BIGINT(KeyClass.INTEGER, Types.LONG, "BIGINT"),
  FLOAT(KeyClass.FLOATING, Types.FLOAT, "FLOAT"),
  DOUBLE(KeyClass.FLOATING, Types.DOUBLE, "DOUBLE"),
  STRING(KeyClass.STRING, Types.STRING, "STRING"),
  BYTES(KeyClass.BYTES, Types.PRIMITIVE_ARRAY(Types.BYTE), "BYTES");

  /** Types that compare equal in an {@code ON} clause; tokens are encoded per key class. */
  public enum KeyClass {
    BOOLEAN,
    INTEGER,
    FLOATING,
    STRING,
    BYTES
  }

  private final KeyClass keyClass;
  private final TypeInformation<?> flinkType;
  private final String sqlName;

  ColumnType(KeyClass keyClass, TypeInformation<?> flinkType, String sqlName) {
    this.keyClass = keyClass;
    this.flinkType = flinkType;
    this.sqlName = sqlName;
  }

  public KeyClass keyClass() {
    return keyClass;
  }

  /** The Flink type of values of this column inside a {@link org.apache.flink.types.Row}. */
  public TypeInformation<?> flinkType() {
    return flinkType;
  }

  /** The class of values of this column inside a {@link org.apache.flink.types.Row}. */
  public Class<?> javaClass() {
    return switch (this) {
      case BOOLEAN -> Boolean.class;
      case INT -> Integer.class;
      case BIGINT -> Long.class;
      case FLOAT -> Float.class;
      case DOUBLE -> Double.class;
      case STRING -> String.class;
      case BYTES -> byte[].class;
    };
  }

  /** The Flink SQL type name. */
  public String sqlName() {
    return sqlName;
  }
}
