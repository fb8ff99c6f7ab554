package io.psiflink.connectors;

import io.psiflink.api.TableSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.types.Row;

/**
 * {@link JdbcSource}'s reader: Flink's single-fetcher reader base, with the blocking JDBC reads in
 * a {@link JdbcSplitReader} on the fetcher thread. It asks the enumerator for one split at start
 * and for the next one each time a split is done, so splits go to whichever reader is free. The
 * records arrive ready-made ({@link SourceRecord}s) and are emitted as they are. A split's state is
 * the split itself: batch only, a failed reader's split is read again from its start.
 */
final class JdbcSourceReader
    extends SingleThreadMultiplexSourceReaderBase<Row, Row, JdbcSplit, JdbcSplit> {
  private final SharedConnection connection;

  JdbcSourceReader(SourceReaderContext context, JdbcTable table, TableSchema schema) {
    this(context, table, schema, new SharedConnection(table));
  }

  private JdbcSourceReader(
      SourceReaderContext context,
      JdbcTable table,
      TableSchema schema,
      SharedConnection connection) {
    super(
        () -> new JdbcSplitReader(table, schema, connection),
        (row, output, split) -> output.collect(row),
        context.getConfiguration(),
        context);
    this.connection = connection;
  }

  @Override
  public void start() {
    context.sendSplitRequest();
  }

  @Override
  protected void onSplitFinished(Map<String, JdbcSplit> finished) {
    for (int i = 0; i < finished.size(); i++) {
      context.sendSplitRequest();
    }
  }

  @Override
  protected JdbcSplit initializedState(JdbcSplit split) {
    return split;
  }

  @Override
  protected JdbcSplit toSplitType(String splitId, JdbcSplit state) {
    return state;
  }

  @Override
  public void close() throws Exception {
    try {
      super.close(); // stops the fetcher (and closes its split reader) first
    } finally {
      connection.close();
    }
  }

  /**
   * The reader's one connection, opened on first use by whichever fetcher thread reads a split. The
   * reader base shuts an idle fetcher down (between two splits) and starts a new one with a new
   * {@link JdbcSplitReader} for the next split; keeping the connection here, not in the split
   * reader, keeps one connection per reader for all its splits. Only one fetcher reads at a time.
   */
  static final class SharedConnection implements AutoCloseable {
    private final JdbcTable table;
    private Connection connection;

    SharedConnection(JdbcTable table) {
      this.table = table;
    }

    synchronized Connection get() throws SQLException {
      if (connection == null) {
        Connection c = table.connect();
        c.setAutoCommit(false); // PostgreSQL streams with a cursor only in a transaction
        c.setReadOnly(true);
        connection = c;
      }
      return connection;
    }

    /** Closes the connection, quietly (it is gone), so that the next {@link #get} opens anew. */
    synchronized void reset() {
      if (connection != null) {
        try {
          connection.close();
        } catch (SQLException ignored) {
          // a lost connection may fail to close; it is dropped either way
        }
        connection = null;
      }
    }

    @Override
    public synchronized void close() throws SQLException {
      if (connection != null) {
        connection.close();
        connection = null;
      }
    }
  }
}
