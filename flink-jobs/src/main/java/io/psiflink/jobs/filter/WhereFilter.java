package io.psiflink.jobs.filter;

import io.psiflink.api.TableSchema;
import io.psiflink.connectors.FlinkTypes;
import io.psiflink.query.FlinkDialect;
import io.psiflink.query.QueryException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * Applies a party's WHERE predicate ({@link PartyView#wherePredicate()}) to its rows, as part of a
 * DataStream batch job: by {@link RowPredicate} when the predicate is of its simple forms, else
 * with Flink's own SQL engine (the rows become a temporary view, the predicate is planned by
 * Flink's SQL planner and the filtered rows come back as a DataStream).
 */
public final class WhereFilter {
  private WhereFilter() {}

  /**
   * Filters {@code rows} by {@code predicate}.
   *
   * @param tEnv the table environment of the job's {@code StreamExecutionEnvironment}, created only
   *     when the planner is needed (it takes seconds)
   * @param rows rows of {@code schema}, positional, values of the types {@link
   *     io.psiflink.api.ColumnType#flinkType()} names
   * @param schema the columns of {@code rows}; the predicate refers to them by name
   * @param predicate Flink SQL boolean expression over the columns, or empty for no filter
   * @return {@code rows} itself when the predicate is empty or blank; otherwise the rows for which
   *     it is TRUE, as plain positional {@link Row}s ({@link RowKind#INSERT}) of type {@code
   *     FlinkTypes.rowType(schema)}
   * @throws QueryException clause {@code WHERE}, when Flink cannot parse or validate the predicate
   *     (unknown column or function, type error, not a boolean), thrown while the job is built
   */
  public static DataStream<Row> apply(
      Supplier<StreamTableEnvironment> tEnv,
      DataStream<Row> rows,
      TableSchema schema,
      String predicate)
      throws QueryException {
    Objects.requireNonNull(tEnv, "tEnv");
    Objects.requireNonNull(rows, "rows");
    Objects.requireNonNull(schema, "schema");
    if (predicate == null || predicate.isBlank()) {
      return rows;
    }
    Optional<RowPredicate> direct = RowPredicate.compile(schema, predicate);
    if (direct.isPresent()) {
      return typed(rows, schema).filter(direct.get()).name("WHERE " + predicate);
    }
    return planned(tEnv.get(), rows, schema, predicate);
  }

  /** {@code rows} as rows of {@code FlinkTypes.rowType(schema)}, its field names included. */
  private static DataStream<Row> typed(DataStream<Row> rows, TableSchema schema) {
    RowTypeInfo rowType = FlinkTypes.rowType(schema);
    if (rowType.schemaEquals(rows.getType())) { // equals() ignores field names
      return rows;
    }
    return rows.map(new Positional(schema.names().toArray(new String[0]), false))
        .returns(rowType)
        .name("as " + schema);
  }

  /** {@link #apply} by Flink's SQL planner, whatever the predicate's form. */
  static DataStream<Row> planned(
      StreamTableEnvironment tEnv, DataStream<Row> rows, TableSchema schema, String predicate)
      throws QueryException {
    RowTypeInfo rowType = FlinkTypes.rowType(schema);
    DataStream<Row> typed = typed(rows, schema);
    String view = "psi_where_" + UUID.randomUUID().toString().replace("-", "");
    UnicodeNormalization.register(tEnv);
    tEnv.createTemporaryView(view, tEnv.fromDataStream(typed));
    try {
      Table filtered;
      try {
        filtered =
            tEnv.sqlQuery("SELECT * FROM " + FlinkDialect.quote(view) + " WHERE " + predicate);
      } catch (RuntimeException e) {
        throw new QueryException(
            "WHERE",
            "Flink cannot evaluate the predicate: " + reason(e) + " (predicate: " + predicate + ")",
            e);
      }
      return tEnv.toDataStream(filtered)
          .map(new Positional(schema.names().toArray(new String[0]), true))
          .returns(rowType)
          .name("WHERE " + predicate);
    } finally {
      tEnv.dropTemporaryView(view);
    }
  }

  /** Flink's explanation, without the positions that refer to the generated statement. */
  static String reason(Throwable e) {
    String best = null;
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getMessage() != null && !t.getMessage().isBlank()) {
        best = t.getMessage();
      }
      if (t.getCause() == t) {
        break;
      }
    }
    if (best == null) {
      return e.getClass().getSimpleName();
    }
    String s = best.strip();
    int nl = s.indexOf('\n');
    if (nl >= 0) {
      s = s.substring(0, nl).strip();
    }
    s =
        s.replaceFirst("^From line \\d+, column \\d+ to line \\d+, column \\d+: ", "")
            .replaceFirst("^(SQL validation failed|SQL parse failed)\\.\\s*", "");
    int supported = s.indexOf(". Supported form(s)");
    if (supported >= 0) {
      s = s.substring(0, supported);
    }
    return s;
  }

  /** Copies each row into a plain positional INSERT row of the schema's arity. */
  static final class Positional implements MapFunction<Row, Row> {
    private static final long serialVersionUID = 1L;
    private final String[] names;
    private final boolean byName;

    Positional(String[] names, boolean byName) {
      this.names = names;
      this.byName = byName;
    }

    @Override
    public Row map(Row in) {
      Row out = new Row(RowKind.INSERT, names.length);
      Set<String> named = in.getFieldNames(false);
      for (int i = 0; i < names.length; i++) {
        out.setField(i, byName && named != null ? in.getField(names[i]) : in.getField(i));
      }
      return out;
    }
  }
}
