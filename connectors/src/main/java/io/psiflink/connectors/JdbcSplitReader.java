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
 *
 * <p>A lost connection (the server restarted, a network cut) is survived only where that is exact:
 * a split of which no row went on yet is read again from its start over a new connection, waiting
 * up to {@link #RECONNECT_WINDOW} for the server; a split cut after some of its rows went on fails
 * the read, naming the server, the split and the rows read, since its rest cannot be read from the
 * same snapshot and re-reading it would repeat rows downstream already has.
 */
final class JdbcSplitReader implements SplitReader<Row, JdbcSplit> {
  /** Rows the driver fetches per round trip, and rows per batch handed to the task thread. */
  static final int BATCH_ROWS = 2_000;

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(JdbcSplitReader.class);

  /**
   * How long a split of which no row went on yet waits for its server to be reachable again (a
   * restart, a failover) before the read fails.
   */
  static final java.time.Duration RECONNECT_WINDOW = java.time.Duration.ofSeconds(30);

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
    long deadline = 0;
    for (int attempt = 1; ; attempt++) {
      // rows of the current split handed over by earlier fetches; this fetch's batch is not yet
      long handedOver = rows == null ? 0 : position;
      try {
        return fetchBatch();
      } catch (SQLException e) {
        if (!lostConnection(e)) {
          throw new IOException(e.getMessage(), e);
        }
        if (handedOver > 0) {
          throw new IOException(
              "lost the connection to the PostgreSQL server while reading "
                  + source
                  + " after "
                  + handedOver
                  + " of the split's rows: "
                  + e.getMessage()
                  + "; the split cannot resume where it stopped (its snapshot ended with the"
                  + " connection and its first rows already went on), so the read fails: run the"
                  + " join again once the server is back",
              e);
        }
        // No row of the split went on yet: reading it again from its start, over a new
        // connection, reads each of its rows exactly once.
        long now = System.nanoTime();
        if (deadline == 0) {
          deadline = now + RECONNECT_WINDOW.toNanos();
        } else if (now > deadline) {
          throw new IOException(
              "cannot read "
                  + (current != null ? source : table)
                  + ": the PostgreSQL server is unreachable for "
                  + RECONNECT_WINDOW.toSeconds()
                  + " s ("
                  + attempt
                  + " attempts): "
                  + e.getMessage(),
              e);
        }
        LOG.warn(
            "lost the connection to the PostgreSQL server while reading {} before any row of the"
                + " split went on: {}; reading it again from its start over a new connection"
                + " (attempt {})",
            current != null ? source : table,
            e.getMessage(),
            attempt + 1);
        restartSplit();
        try {
          Thread.sleep(Math.min(2_000, 100L << Math.min(attempt, 5)));
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while waiting for the PostgreSQL server of " + table);
        }
      }
    }
  }

  private RecordsWithSplitIds<Row> fetchBatch() throws SQLException {
    RecordsBySplits.Builder<Row> batch = new RecordsBySplits.Builder<>();
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
  }

  /**
   * Whether {@code e} says the connection is gone (SQLSTATE class 08, or the server shutting down
   * or starting up: 57P01, 57P02, 57P03), rather than that the query is wrong.
   */
  static boolean lostConnection(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s && s.getSQLState() != null) {
        String state = s.getSQLState();
        if (state.startsWith("08") || state.startsWith("57P")) {
          return true;
        }
      }
    }
    return false;
  }

  /** Drops the dead connection and puts the current split (if any) back first, unread. */
  private void restartSplit() {
    closeQuietly();
    if (current != null) {
      pending.addFirst(current);
    }
    rows = null;
    statement = null;
    current = null;
    position = 0;
    connection.reset();
  }

  private void closeQuietly() {
    try {
      if (rows != null) {
        rows.close();
      }
      if (statement != null) {
        statement.close();
      }
    } catch (SQLException ignored) {
      // the connection is gone; so are its statement and cursor
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
    try {
      rows.close();
      statement.close();
      connection.get().commit();
    } catch (SQLException e) {
      if (!lostConnection(e)) {
        throw e;
      }
      // every row of the split arrived (the cursor said so); ending its read-only transaction
      // does not matter: the next split reconnects
      connection.reset();
    }
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
