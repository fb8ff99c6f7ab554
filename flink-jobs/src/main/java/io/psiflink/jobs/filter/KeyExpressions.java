package io.psiflink.jobs.filter;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import io.psiflink.connectors.FlinkTypes;
import io.psiflink.query.FlinkDialect;
import io.psiflink.query.JoinKey;
import io.psiflink.query.QueryException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;

/**
 * A party's join keys that are expressions over its columns ({@code LOWER(TRIM(email))}), evaluated
 * with Flink's own SQL engine on the party's rows, as its WHERE is ({@link WhereFilter}): the rows
 * come back filtered, with one column appended per computed key, which the tokenizer reads like any
 * key column. A key that is a column is read where it is.
 */
public final class KeyExpressions {
  private KeyExpressions() {}

  /**
   * The key columns, in key order: a column key is the schema's column; a computed key is named by
   * its Flink SQL text and typed by Flink (planned, not run), mapped to the column type its values
   * are tokenized as: TINYINT, SMALLINT and INT as INT, CHAR and VARCHAR as STRING, BINARY and
   * VARBINARY as BYTES.
   *
   * @throws QueryException clause {@code ON}, when Flink cannot evaluate an expression on the
   *     schema's columns, or its type cannot be a join key (DECIMAL, dates and times, ...: the
   *     message says to CAST it)
   */
  public static List<Column> columns(TableSchema schema, List<JoinKey> keys) throws QueryException {
    Objects.requireNonNull(schema, "schema");
    List<Column> out = new ArrayList<>();
    List<DataType> types = keys.stream().anyMatch(k -> !k.plain()) ? plan(schema, keys) : null;
    for (int i = 0; i < keys.size(); i++) {
      JoinKey k = keys.get(i);
      if (k.plain()) {
        out.add(schema.column(schema.indexOf(k.columns().get(0)).orElseThrow()));
      } else {
        out.add(new Column(k.name(), keyType(k, types.get(i)), true));
      }
    }
    return out;
  }

  /** Each key's Flink type, planned on an empty row of the schema's columns. */
  private static List<DataType> plan(TableSchema schema, List<JoinKey> keys) throws QueryException {
    List<String> nulls = new ArrayList<>();
    for (Column c : schema.columns()) {
      nulls.add("CAST(NULL AS " + c.type().sqlName() + ") AS " + FlinkDialect.quote(c.name()));
    }
    List<String> exprs = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      exprs.add(keys.get(i).flinkSql() + " AS " + FlinkDialect.quote("k" + i));
    }
    String sql =
        "SELECT " + String.join(", ", exprs) + " FROM (SELECT " + String.join(", ", nulls) + ")";
    TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    UnicodeNormalization.register(tEnv);
    try {
      return tEnv.sqlQuery(sql).getResolvedSchema().getColumnDataTypes();
    } catch (RuntimeException e) {
      throw new QueryException(
          "ON",
          "Flink cannot evaluate the key expression(s) "
              + keys.stream().filter(k -> !k.plain()).map(JoinKey::flinkSql).toList()
              + ": "
              + WhereFilter.reason(e),
          e);
    }
  }

  private static ColumnType keyType(JoinKey k, DataType type) throws QueryException {
    return switch (type.getLogicalType().getTypeRoot()) {
      case BOOLEAN -> ColumnType.BOOLEAN;
      case TINYINT, SMALLINT, INTEGER -> ColumnType.INT;
      case BIGINT -> ColumnType.BIGINT;
      case FLOAT -> ColumnType.FLOAT;
      case DOUBLE -> ColumnType.DOUBLE;
      case CHAR, VARCHAR -> ColumnType.STRING;
      case BINARY, VARBINARY -> ColumnType.BYTES;
      default ->
          throw new QueryException(
              "ON",
              "the key expression "
                  + k.flinkSql()
                  + " has type "
                  + type.getLogicalType().asSummaryString()
                  + ", which cannot be a join key; CAST it to STRING, BIGINT, DOUBLE, BOOLEAN or"
                  + " BYTES (on both sides alike)");
    };
  }

  /**
   * Where the tokenizer finds each key in the rows {@link #apply} returns: a column key at its
   * schema position, the i-th computed key after the schema's columns.
   */
  public static int[] fields(TableSchema schema, List<JoinKey> keys) {
    int[] out = new int[keys.size()];
    int appended = schema.size();
    for (int i = 0; i < out.length; i++) {
      JoinKey k = keys.get(i);
      out[i] = k.plain() ? schema.indexOf(k.columns().get(0)).orElseThrow() : appended++;
    }
    return out;
  }

  /**
   * Filters {@code rows} by {@code predicate} (as {@link WhereFilter} does) and appends one column
   * per computed key, CAST to its key column's type ({@link #columns}), so that the values have the
   * Java types the tokenizer expects.
   *
   * @param keyColumns {@link #columns} of these keys
   * @return rows of the schema's columns followed by the computed keys, positional
   * @throws QueryException clause {@code WHERE}, when Flink cannot evaluate the predicate or a key
   */
  public static DataStream<Row> apply(
      StreamTableEnvironment tEnv,
      DataStream<Row> rows,
      TableSchema schema,
      String predicate,
      List<JoinKey> keys,
      List<Column> keyColumns)
      throws QueryException {
    RowTypeInfo rowType = FlinkTypes.rowType(schema);
    DataStream<Row> typed = rows;
    if (!rowType.schemaEquals(rows.getType())) {
      typed =
          rows.map(new WhereFilter.Positional(schema.names().toArray(new String[0]), false))
              .returns(rowType)
              .name("as " + schema);
    }
    List<Column> out = new ArrayList<>(schema.columns());
    List<String> select = new ArrayList<>();
    select.add("*");
    String prefix = "psi_key_";
    while (startsWith(schema, prefix)) {
      prefix = "_" + prefix; // never collide with a column of the table
    }
    for (int i = 0; i < keys.size(); i++) {
      JoinKey k = keys.get(i);
      if (k.plain()) {
        continue;
      }
      String name = prefix + i;
      ColumnType type = keyColumns.get(i).type();
      select.add(
          "CAST(" + k.flinkSql() + " AS " + type.sqlName() + ") AS " + FlinkDialect.quote(name));
      out.add(new Column(name, type, true));
    }
    TableSchema extended = new TableSchema(out);
    String view = "psi_keys_" + UUID.randomUUID().toString().replace("-", "");
    UnicodeNormalization.register(tEnv);
    tEnv.createTemporaryView(view, tEnv.fromDataStream(typed));
    String sql =
        "SELECT "
            + String.join(", ", select)
            + " FROM "
            + FlinkDialect.quote(view)
            + (predicate == null || predicate.isBlank() ? "" : " WHERE " + predicate);
    try {
      Table computed;
      try {
        computed = tEnv.sqlQuery(sql);
      } catch (RuntimeException e) {
        throw new QueryException(
            "WHERE",
            "Flink cannot evaluate the predicate or the join keys: "
                + WhereFilter.reason(e)
                + " (predicate: "
                + predicate
                + ", keys: "
                + keys.stream().map(JoinKey::flinkSql).toList()
                + ")",
            e);
      }
      return tEnv.toDataStream(computed)
          .map(new WhereFilter.Positional(extended.names().toArray(new String[0]), true))
          .returns(FlinkTypes.rowType(extended))
          .name("keys " + keys.stream().map(JoinKey::name).toList());
    } finally {
      tEnv.dropTemporaryView(view);
    }
  }

  private static boolean startsWith(TableSchema schema, String prefix) {
    return schema.names().stream().anyMatch(n -> n.startsWith(prefix));
  }
}
