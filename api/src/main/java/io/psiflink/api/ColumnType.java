package io.psiflink.api;

/**
 * The column types a joined table may carry. Integer types share one key class, as do the floating
 * types, so that {@code INT 5} joins {@code BIGINT 5} exactly as SQL compares them.
 */
public enum ColumnType {
  BOOLEAN(KeyClass.BOOLEAN, "BOOLEAN"),
  INT(KeyClass.INTEGER, "INT"),
  BIGINT(KeyClass.INTEGER, "BIGINT"),
  FLOAT(KeyClass.FLOATING, "FLOAT"),
  DOUBLE(KeyClass.FLOATING, "DOUBLE"),
  STRING(KeyClass.STRING, "STRING"),
  BYTES(KeyClass.BYTES, "BYTES");

  /** Types that compare equal in an {@code ON} clause; tokens are encoded per key class. */
  public enum KeyClass {
    BOOLEAN,
    INTEGER,
    FLOATING,
    STRING,
    BYTES
  }

  private final KeyClass keyClass;
  private final String sqlName;

  ColumnType(KeyClass keyClass, String sqlName) {
    this.keyClass = keyClass;
    this.sqlName = sqlName;
  }

  public KeyClass keyClass() {
    return keyClass;
  }

  /** The class of values of this column inside a Flink {@code Row}. */
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
