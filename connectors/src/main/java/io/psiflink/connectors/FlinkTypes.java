package io.psiflink.connectors;

import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.RowTypeInfo;

/**
 * The Flink types of the column types and schemas of {@code psi-api}, which knows no Flink (the
 * control plane uses it without the Flink runtime).
 */
public final class FlinkTypes {
  private FlinkTypes() {}

  /** The Flink type of values of this column type inside a {@link org.apache.flink.types.Row}. */
  public static TypeInformation<?> of(ColumnType type) {
    return switch (type) {
      case BOOLEAN -> Types.BOOLEAN;
      case INT -> Types.INT;
      case BIGINT -> Types.LONG;
      case FLOAT -> Types.FLOAT;
      case DOUBLE -> Types.DOUBLE;
      case STRING -> Types.STRING;
      case BYTES -> Types.PRIMITIVE_ARRAY(Types.BYTE);
    };
  }

  /** Flink type of rows of this table (field names = column names). */
  public static RowTypeInfo rowType(TableSchema schema) {
    TypeInformation<?>[] types = new TypeInformation<?>[schema.size()];
    String[] names = new String[schema.size()];
    for (int i = 0; i < types.length; i++) {
      types[i] = of(schema.column(i).type());
      names[i] = schema.column(i).name();
    }
    return new RowTypeInfo(types, names);
  }
}
