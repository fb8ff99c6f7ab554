package io.psiflink.connectors;

import io.psiflink.api.ColumnType;
import io.psiflink.api.Column;
import io.psiflink.api.TableSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.types.Row;

/**
 * Reads a PostgreSQL table ({@link JdbcTable}) with Flink's source API: the splits ({@link
 * JdbcTable#plan}, one query each) are handed out one at a time to whichever parallel reader asks,
 * so a slow split does not hold up the others. Each reader keeps one connection and streams a
 * split's rows with a cursor (autocommit off, a fetch size), producing {@link SourceRecord}s: a
 * value that cannot be read as its column's type, or a NULL in a NOT NULL column, makes a malformed
 * record naming the split, so that {@link RowParser} quarantines it. Batch only: there are no
 * checkpoints to resume from, and a failed reader's split is read again from its start.
 */
public final class JdbcSource
    implements Source<Row, JdbcSplit, List<JdbcSplit>>, ResultTypeQueryable<Row> {
  private static final long serialVersionUID = 1L;
  private static final int FETCH_SIZE = 2_000;

  private final JdbcTable table;
  private final TableSchema schema;
  private final List<JdbcSplit> splits;

  private JdbcSource(JdbcTable table, TableSchema schema, List<JdbcSplit> splits) {
    this.table = table;
    this.schema = schema;
    this.splits = List.copyOf(splits);
  }

  /**
   * Plans the splits and checks, with an empty query, that the table has the schema's columns
   * with types that read as the schema's (so a mismatch fails at submission, naming the column).
   */
  public static JdbcSource create(JdbcTable table, TableSchema schema, int parallelism)
      throws TableException {
    TableSchema actual = table.discover();
    for (Column c : schema.columns()) {
      int i = actual.indexOf(c.name()).orElseThrow(() -> new TableException(table
          + " has no column '" + c.name() + "'; its columns are " + actual));
      ColumnType have = actual.column(i).type();
      boolean fits = have == c.type() || c.type() == ColumnType.STRING
          || (have == ColumnType.INT && c.type() == ColumnType.BIGINT)
          || (have == ColumnType.FLOAT && c.type() == ColumnType.DOUBLE);
      if (!fits) {
        throw new TableException(table + ": column '" + c.name() + "' is " + have.sqlName()
            + ", not " + c.type().sqlName());
      }
    }
    return new JdbcSource(table, schema, table.plan(parallelism));
  }

  /** The planned splits. */
  List<JdbcSplit> splits() {
    return splits;
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.BOUNDED;
  }

  @Override
  public SplitEnumerator<JdbcSplit, List<JdbcSplit>> createEnumerator(
      SplitEnumeratorContext<JdbcSplit> context) {
    return new Enumerator(context, splits);
  }

  @Override
  public SplitEnumerator<JdbcSplit, List<JdbcSplit>> restoreEnumerator(
      SplitEnumeratorContext<JdbcSplit> context, List<JdbcSplit> checkpoint) {
    return new Enumerator(context, checkpoint);
  }

  @Override
  public SimpleVersionedSerializer<JdbcSplit> getSplitSerializer() {
    return JdbcSplit.Serializer.INSTANCE;
  }

  @Override
  public SimpleVersionedSerializer<List<JdbcSplit>> getEnumeratorCheckpointSerializer() {
    return new JdbcSplit.ListSerializer();
  }

  @Override
  public SourceReader<Row, JdbcSplit> createReader(SourceReaderContext context) {
    return new Reader(context, table, schema);
  }

  @Override
  public TypeInformation<Row> getProducedType() {
    return SourceRecord.type(FlinkTypes.rowType(schema));
  }

  /** Hands out the splits on request, one at a time. */
  private static final class Enumerator
      implements SplitEnumerator<JdbcSplit, List<JdbcSplit>> {
    private final SplitEnumeratorContext<JdbcSplit> context;
    private final Deque<JdbcSplit> remaining;

    Enumerator(SplitEnumeratorContext<JdbcSplit> context, List<JdbcSplit> splits) {
      this.context = context;
      this.remaining = new ArrayDeque<>(splits);
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtask, String hostname) {
      JdbcSplit next = remaining.poll();
      if (next != null) {
        context.assignSplit(next, subtask);
      } else {
        context.signalNoMoreSplits(subtask);
      }
    }

    @Override
    public void addSplitsBack(List<JdbcSplit> splits, int subtask) {
      remaining.addAll(splits);
    }

    @Override
    public void addReader(int subtask) {}

    @Override
    public List<JdbcSplit> snapshotState(long checkpointId) {
      return new ArrayList<>(remaining);
    }

    @Override
    public void close() {}
  }

  /** Reads its splits one after the other over one connection. */
  private static final class Reader implements SourceReader<Row, JdbcSplit> {
    private final SourceReaderContext context;
    private final JdbcTable table;
    private final TableSchema schema;
    private final List<String> columns;
    private final Deque<JdbcSplit> pending = new ArrayDeque<>();
    private CompletableFuture<Void> available = new CompletableFuture<>();
    private boolean noMoreSplits;

    private Connection connection;
    private Statement statement;
    private ResultSet rows;
    private JdbcSplit current;
    private String source;
    private long position;

    Reader(SourceReaderContext context, JdbcTable table, TableSchema schema) {
      this.context = context;
      this.table = table;
      this.schema = schema;
      this.columns = schema.names();
    }

    @Override
    public void start() {
      context.sendSplitRequest();
    }

    @Override
    public InputStatus pollNext(ReaderOutput<Row> output) throws Exception {
      if (rows == null) {
        JdbcSplit next = pending.poll();
        if (next == null) {
          return noMoreSplits ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
        }
        open(next);
      }
      if (!rows.next()) {
        finishSplit();
        context.sendSplitRequest();
        return pending.isEmpty() && !noMoreSplits ? InputStatus.NOTHING_AVAILABLE
            : InputStatus.MORE_AVAILABLE;
      }
      position++;
      output.collect(record());
      return InputStatus.MORE_AVAILABLE;
    }

    private void open(JdbcSplit split) throws SQLException {
      if (connection == null) {
        connection = table.connect();
        connection.setAutoCommit(false); // PostgreSQL streams with a cursor only in a transaction
        connection.setReadOnly(true);
      }
      current = split;
      source = table + " (split " + split.id() + ": " + split.where() + ")";
      position = 0;
      statement = connection.createStatement();
      statement.setFetchSize(FETCH_SIZE);
      try {
        rows = statement.executeQuery(table.query(columns, split));
      } catch (SQLException e) {
        throw new SQLException("cannot read " + source + ": " + e.getMessage(), e);
      }
    }

    private void finishSplit() throws SQLException {
      rows.close();
      statement.close();
      connection.commit();
      rows = null;
      statement = null;
      current = null;
    }

    /** The current row as a record; a value that does not read as its type makes it malformed. */
    private Row record() throws SQLException {
      Row row = new Row(columns.size());
      for (int i = 0; i < columns.size(); i++) {
        Column c = schema.column(i);
        Object value;
        try {
          value = value(i + 1, c.type());
        } catch (SQLException | RuntimeException e) {
          return SourceRecord.bad(source, position, "column '" + c.name() + "': "
              + e.getMessage(), raw());
        }
        if (value == null && !c.nullable()) {
          return SourceRecord.bad(source, position,
              "column '" + c.name() + "': NULL in a NOT NULL column", raw());
        }
        row.setField(i, value);
      }
      return SourceRecord.good(source, position, null, row);
    }

    private Object value(int i, ColumnType type) throws SQLException {
      Object v = switch (type) {
        case BOOLEAN -> rows.getBoolean(i);
        case INT -> rows.getInt(i);
        case BIGINT -> rows.getLong(i);
        case FLOAT -> rows.getFloat(i);
        case DOUBLE -> rows.getDouble(i);
        case STRING -> rows.getString(i);
        case BYTES -> rows.getBytes(i);
      };
      return rows.wasNull() ? null : v;
    }

    /** The row's values in PostgreSQL's text form, for the quarantine. */
    private String raw() {
      StringBuilder sb = new StringBuilder();
      try {
        for (int i = 1; i <= columns.size(); i++) {
          String s = rows.getString(i);
          sb.append(i == 1 ? "" : ",").append(s == null ? "" : s);
        }
      } catch (SQLException e) {
        sb.append("(unreadable: ").append(e.getMessage()).append(')');
      }
      return Text.truncateUtf8(sb.toString(), BadRow.RAW_LIMIT);
    }

    @Override
    public List<JdbcSplit> snapshotState(long checkpointId) {
      List<JdbcSplit> state = new ArrayList<>();
      if (current != null) {
        state.add(current);
      }
      state.addAll(pending);
      return state;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
      if (rows != null || !pending.isEmpty() || noMoreSplits) {
        return CompletableFuture.completedFuture(null);
      }
      if (available.isDone()) {
        available = new CompletableFuture<>();
      }
      return available;
    }

    @Override
    public void addSplits(List<JdbcSplit> splits) {
      pending.addAll(splits);
      available.complete(null);
    }

    @Override
    public void notifyNoMoreSplits() {
      noMoreSplits = true;
      available.complete(null);
    }

    @Override
    public void close() throws Exception {
      try {
        if (rows != null) {
          rows.close();
        }
        if (statement != null) {
          statement.close();
        }
      } finally {
        if (connection != null) {
          connection.close();
        }
      }
    }
  }
}
