package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.util.List;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.types.Row;

/**
 * Writes quarantined records as CSV part files (columns source, line, reason, raw) into a
 * directory, with the same file rules as {@link TableSink}.
 */
public final class QuarantineSink {
  /** The columns of a quarantine file. */
  public static final TableSchema SCHEMA =
      new TableSchema(
          List.of(
              new Column("source", ColumnType.STRING, false),
              new Column("line", ColumnType.BIGINT, false),
              new Column("reason", ColumnType.STRING, false),
              new Column("raw", ColumnType.STRING, true)));

  private QuarantineSink() {}

  /**
   * Writes with a {@link QuarantineWriter}, whose files are complete when it emits its count (one
   * per parallel instance), even if the job fails later, e.g. in a {@link BadRowGate}.
   */
  public static DataStream<Long> writeFiles(DataStream<BadRow> bad, String dir)
      throws TableException {
    TableSink.prepareDirectory(dir);
    return bad.transform("quarantine", Types.LONG, new QuarantineWriter(dir))
        .setDescription("write quarantined records to " + dir);
  }

  public static DataStreamSink<Row> write(DataStream<BadRow> bad, String dir)
      throws TableException {
    DataStream<Row> rows =
        bad.map((MapFunction<BadRow, Row>) b -> Row.of(b.source(), b.line(), b.reason(), b.raw()))
            .returns(FlinkTypes.rowType(SCHEMA))
            .name("quarantine rows");
    return TableSink.write(rows, SCHEMA, dir, TableFormat.CSV);
  }
}
