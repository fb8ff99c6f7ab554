package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalType;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.GenericFixed;

/**
 * How table columns map to Avro, both ways.
 *
 * <p>Reading (Avro type to column type): boolean, int, long, float, double, string, bytes map to
 * BOOLEAN, INT, BIGINT, FLOAT, DOUBLE, STRING, BYTES; enum maps to STRING (the symbol) and fixed to
 * BYTES. A union of null and one type is that type, nullable; anything else is NOT NULL. Logical
 * types on int and long (date, time-millis, time-micros, timestamp-*, local-timestamp-*) map to
 * their physical INT / BIGINT value (days, millis or micros since the epoch or midnight), uuid maps
 * to STRING; decimal, records, arrays, maps, null alone and wider unions are rejected.
 *
 * <p>Writing: a record {@code io.psiflink.JoinedRow}; each column is a field of type union [null,
 * T] with default null. Avro names must match {@code [A-Za-z_][A-Za-z0-9_]*}, so every other
 * character becomes {@code _}, a leading digit gets a {@code _} prefix, and a name that then
 * collides gets {@code _2}, {@code _3}, ... appended. Every field carries the original column name
 * as the property {@value #COLUMN_PROPERTY}, which reading prefers over the field name, so names
 * survive a round trip unchanged.
 */
public final class AvroColumns {
  /** Field property holding the original column name. */
  public static final String COLUMN_PROPERTY = "psi.column";

  public static final String RECORD_NAME = "JoinedRow";
  public static final String RECORD_NAMESPACE = "io.psiflink";

  private AvroColumns() {}

  /** The column name of a field: its {@value #COLUMN_PROPERTY} property if set, else its name. */
  public static String columnName(Schema.Field field) {
    Object prop = field.getObjectProp(COLUMN_PROPERTY);
    return prop instanceof String s && !s.isEmpty() ? s : field.name();
  }

  /** The column a field of an Avro record maps to. */
  public static Column column(Schema.Field field) throws TableException {
    String name = columnName(field);
    Schema s = field.schema();
    boolean nullable = false;
    if (s.getType() == Schema.Type.UNION) {
      List<Schema> branches = new ArrayList<>(s.getTypes());
      nullable = branches.removeIf(b -> b.getType() == Schema.Type.NULL);
      if (branches.size() != 1) {
        throw unsupported(name, s);
      }
      s = branches.get(0);
    }
    return new Column(name, columnType(name, s), nullable);
  }

  private static ColumnType columnType(String name, Schema s) throws TableException {
    LogicalType logical = s.getLogicalType();
    if (logical != null
        && s.getType() != Schema.Type.INT
        && s.getType() != Schema.Type.LONG
        && !logical.getName().equals("uuid")) {
      throw unsupported(name, s);
    }
    return switch (s.getType()) {
      case BOOLEAN -> ColumnType.BOOLEAN;
      case INT -> ColumnType.INT;
      case LONG -> ColumnType.BIGINT;
      case FLOAT -> ColumnType.FLOAT;
      case DOUBLE -> ColumnType.DOUBLE;
      case STRING, ENUM -> ColumnType.STRING;
      case BYTES, FIXED -> ColumnType.BYTES;
      default -> throw unsupported(name, s);
    };
  }

  private static TableException unsupported(String name, Schema s) {
    return new TableException(
        "column '"
            + name
            + "' has Avro type "
            + s
            + ", which is not supported: use boolean, int, long, float, double, string, bytes, enum,"
            + " fixed or a union of null and one of these");
  }

  /** The record schema written for rows of {@code schema}. */
  public static Schema recordSchema(TableSchema schema) {
    List<Schema.Field> fields = new ArrayList<>();
    Set<String> used = new HashSet<>();
    for (Column c : schema.columns()) {
      String base = sanitize(c.name());
      String name = base;
      for (int n = 2; !used.add(name); n++) {
        name = base + "_" + n;
      }
      Schema union = Schema.createUnion(Schema.create(Schema.Type.NULL), avroType(c.type()));
      Schema.Field f = new Schema.Field(name, union, null, JsonProperties.NULL_VALUE);
      f.addProp(COLUMN_PROPERTY, c.name());
      fields.add(f);
    }
    return Schema.createRecord(RECORD_NAME, null, RECORD_NAMESPACE, false, fields);
  }

  /** A valid Avro name for a column name (see the class comment). */
  public static String sanitize(String name) {
    StringBuilder sb = new StringBuilder(name.length() + 1);
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok =
          (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || (c >= '0' && c <= '9');
      sb.append(ok ? c : '_');
    }
    if (sb.length() == 0 || (sb.charAt(0) >= '0' && sb.charAt(0) <= '9')) {
      sb.insert(0, '_');
    }
    return sb.toString();
  }

  private static Schema avroType(ColumnType type) {
    return Schema.create(
        switch (type) {
          case BOOLEAN -> Schema.Type.BOOLEAN;
          case INT -> Schema.Type.INT;
          case BIGINT -> Schema.Type.LONG;
          case FLOAT -> Schema.Type.FLOAT;
          case DOUBLE -> Schema.Type.DOUBLE;
          case STRING -> Schema.Type.STRING;
          case BYTES -> Schema.Type.BYTES;
        });
  }

  /**
   * The row value of an Avro datum for a column of the given type: Utf8 to String, ByteBuffer and
   * fixed to byte[], enum symbol to String; an int is widened to BIGINT and a float to DOUBLE,
   * exactly. Null stays null.
   *
   * @throws IllegalArgumentException if the datum does not fit the type
   */
  public static Object toRowValue(Object datum, ColumnType type) {
    if (datum == null) {
      return null;
    }
    switch (type) {
      case BOOLEAN:
        if (datum instanceof Boolean) {
          return datum;
        }
        break;
      case INT:
        if (datum instanceof Integer) {
          return datum;
        }
        break;
      case BIGINT:
        if (datum instanceof Long) {
          return datum;
        }
        if (datum instanceof Integer i) {
          return i.longValue();
        }
        break;
      case FLOAT:
        if (datum instanceof Float) {
          return datum;
        }
        break;
      case DOUBLE:
        if (datum instanceof Double) {
          return datum;
        }
        if (datum instanceof Float f) {
          return f.doubleValue();
        }
        break;
      case STRING:
        if (datum instanceof CharSequence || datum instanceof GenericEnumSymbol<?>) {
          return datum.toString();
        }
        break;
      case BYTES:
        if (datum instanceof ByteBuffer bb) {
          ByteBuffer d = bb.duplicate();
          byte[] out = new byte[d.remaining()];
          d.get(out);
          return out;
        }
        if (datum instanceof GenericFixed f) {
          return f.bytes().clone();
        }
        break;
      default:
        break;
    }
    throw new IllegalArgumentException(
        "an Avro " + datum.getClass().getSimpleName() + " is not a " + type.sqlName());
  }
}
