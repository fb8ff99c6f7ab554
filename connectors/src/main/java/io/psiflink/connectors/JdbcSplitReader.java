package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.io.IOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.types.Row;

/**
 * The blocking part of {@link JdbcSource}: runs on the source reader's fetcher thread, never on the
 * task's mailbox thread. Reads its splits one after the other over the reader's one connection
 * ({@link JdbcSourceReader.SharedConnection}), streaming each split's rows with a cursor
 * (autocommit off, a fetch size) and handing them over in batches of at most {@value #BATCH_ROWS}
 * rows, so a fetch returns promptly and {@link #wakeUp()} has nothing to interrupt.
 *
 * <p>Each row becomes a {@link SourceRecord}: a value that cannot be read as its column's type, or
 * a NULL in a NOT NULL column, makes a malformed record naming the split, so that {@link RowParser}
 * quarantines it. Not thread-safe: the fetcher calls it from one thread.
 */
final class JdbcSplitReader implements SplitReader<Row, JdbcSplit> {
  /** Rows the driver fetches per round trip, and rows per batch handed to the task thread. */
  static final int BATCH_ROWS = 2_000;

  private final JdbcTable table;
  private final TableSchema schema;
  private final List<String> columns;
  private final JdbcSourceReader.SharedConnection connection;
  private final Deque<JdbcSplit> pending = new ArrayDeque<>();

  private Statement statement;
  private ResultSet rows;
  private JdbcSplit current;
  private String source;
  private long position;

  JdbcSplitReader(
      JdbcTable table, TableSchema schema, JdbcSourceReader.SharedConnection connection) {
    this.table = table;
    this.schema = schema;
    this.columns = schema.names();
    this.connection = connection;
  }

  @Override
  public RecordsWithSplitIds<Row> fetch() throws IOException {
    RecordsBySplits.Builder<Row> batch = new RecordsBySplits.Builder<>();
    try {
      if (rows == null) {
        JdbcSplit next = pending.poll();
        if (next == null) {
          return batch.build(); // nothing assigned: the fetcher goes idle
        }
        open(next);
      }
      for (int n = 0; n < BATCH_ROWS; n++) {
        if (!rows.next()) {
          String id = current.id();
          finishSplit();
          batch.addFinishedSplit(id);
          break;
        }
        position++;
        batch.add(current.id(), record());
      }
      return batch.build();
    } catch (SQLException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  @Override
  public void handleSplitsChanges(SplitsChange<JdbcSplit> change) {
    if (!(change instanceof SplitsAddition)) {
      throw new UnsupportedOperationException("JDBC splits are only ever added, not " + change);
    }
    pending.addAll(change.splits());
  }

  /** Nothing to interrupt: a fetch returns after at most one batch. */
  @Override
  public void wakeUp() {}

  @Override
  public void close() throws Exception {
    // the connection is the source reader's; it closes it after its fetcher
    try {
      if (rows != null) {
        rows.close();
      }
    } finally {
      if (statement != null) {
        statement.close();
      }
    }
  }

  private void open(JdbcSplit split) throws SQLException {
    current = split;
    source = table + " (split " + split.id() + ": " + split.where() + ")";
    position = 0;
    statement = connection.get().createStatement();
    statement.setFetchSize(BATCH_ROWS);
    try {
      rows = statement.executeQuery(table.query(columns, split));
    } catch (SQLException e) {
      throw new SQLException("cannot read " + source + ": " + e.getMessage(), e);
    }
  }

  private void finishSplit() throws SQLException {
    rows.close();
    statement.close();
    connection.get().commit();
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
        return SourceRecord.bad(
            source, position, "column '" + c.name() + "': " + e.getMessage(), raw());
      }
      if (value == null && !c.nullable()) {
        return SourceRecord.bad(
            source, position, "column '" + c.name() + "': NULL in a NOT NULL column", raw());
      }
      row.setField(i, value);
    }
    return SourceRecord.good(source, position, null, row);
  }

  private Object value(int i, ColumnType type) throws SQLException {
    Object v =
        switch (type) {
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
}
