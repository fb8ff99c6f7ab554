package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.types.Row;

/**
 * Reads a PostgreSQL table ({@link JdbcTable}) with Flink's source API: the splits ({@link
 * JdbcTable#plan}, one query each) are handed out one at a time to whichever parallel reader asks,
 * so a slow split does not hold up the others. Each reader ({@link JdbcSourceReader}) keeps one
 * connection and does its blocking reads in a {@link JdbcSplitReader} on Flink's fetcher thread,
 * not on the task's mailbox thread: it streams a split's rows with a cursor (autocommit off, a
 * fetch size), producing {@link SourceRecord}s; a value that cannot be read as its column's type,
 * or a NULL in a NOT NULL column, makes a malformed record naming the split, so that {@link
 * RowParser} quarantines it. Batch only: there are no checkpoints to resume from, and a failed
 * reader's split is read again from its start.
 */
public final class JdbcSource
    implements Source<Row, JdbcSplit, List<JdbcSplit>>, ResultTypeQueryable<Row> {
  private static final long serialVersionUID = 1L;

  private final JdbcTable table;
  private final TableSchema schema;
  private final List<JdbcSplit> splits;

  private JdbcSource(JdbcTable table, TableSchema schema, List<JdbcSplit> splits) {
    this.table = table;
    this.schema = schema;
    this.splits = List.copyOf(splits);
  }

  /**
   * Plans the splits and checks, with an empty query, that the table has the schema's columns with
   * types that read as the schema's (so a mismatch fails at submission, naming the column).
   */
  public static JdbcSource create(JdbcTable table, TableSchema schema, int parallelism)
      throws TableException {
    TableSchema actual = table.discover();
    for (Column c : schema.columns()) {
      int i =
          actual
              .indexOf(c.name())
              .orElseThrow(
                  () ->
                      new TableException(
                          table + " has no column '" + c.name() + "'; its columns are " + actual));
      ColumnType have = actual.column(i).type();
      boolean fits =
          have == c.type()
              || c.type() == ColumnType.STRING
              || (have == ColumnType.INT && c.type() == ColumnType.BIGINT)
              || (have == ColumnType.FLOAT && c.type() == ColumnType.DOUBLE);
      if (!fits) {
        throw new TableException(
            table
                + ": column '"
                + c.name()
                + "' is "
                + have.sqlName()
                + ", not "
                + c.type().sqlName());
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
    return new JdbcSourceReader(context, table, schema);
  }

  @Override
  public TypeInformation<Row> getProducedType() {
    return SourceRecord.type(FlinkTypes.rowType(schema));
  }

  /** Hands out the splits on request, one at a time. */
  private static final class Enumerator implements SplitEnumerator<JdbcSplit, List<JdbcSplit>> {
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
}
