package io.psiflink.connectors;

import io.psiflink.api.JobMetricNames;
import io.psiflink.api.JobMetricNames.Accumulators;
import io.psiflink.connectors.row.Utf8;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.types.Row;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Turns {@link SourceRecord}s into typed rows; everything that fails goes to the quarantine side
 * output as a {@link BadRow} naming the file the record came from, so no record disappears. Counts
 * both as metrics ({@code rowsRead}, {@code rowsQuarantined}) and as accumulators ({@code
 * <name>.rowsRead}, {@code <name>.rowsQuarantined}) so that the job can report them from its {@code
 * JobExecutionResult}. {@code rowsRead} counts rows emitted on the main output only.
 *
 * <p>Rows with a NULL (or, in a floating point column, NaN) in one of the key columns are
 * quarantined too, naming the column: they can never match, and a join that silently lost them
 * would look complete. They count as quarantined and, separately, as {@code
 * <name>.rowsWithNullKeyQuarantined}. So are rows whose string key has an unpaired surrogate (no
 * exact UTF-8 encoding, so no token of its own).
 */
final class RowParser extends ProcessFunction<Row, Row> {
  private static final long serialVersionUID = 1L;

  private final String name;
  private final FieldDecoder decoder;
  private final OutputTag<BadRow> quarantine;
  private final int[] keyFields;
  private final String[] keyNames;

  private transient Counter rowsRead;
  private transient Counter rowsQuarantined;
  private transient LongCounter readAccumulator;
  private transient LongCounter quarantinedAccumulator;
  private transient LongCounter nullKeyAccumulator;

  /**
   * @param keyFields positions of the key columns (a NULL there quarantines the row)
   * @param keyNames their names, for the reason
   */
  RowParser(
      String name,
      FieldDecoder decoder,
      OutputTag<BadRow> quarantine,
      int[] keyFields,
      String[] keyNames) {
    this.name = name;
    this.decoder = decoder;
    this.quarantine = quarantine;
    this.keyFields = keyFields.clone();
    this.keyNames = keyNames.clone();
  }

  /** What this parallel instance has counted so far. */
  ReadCounts counts() {
    return new ReadCounts(
        readAccumulator.getLocalValue(),
        quarantinedAccumulator.getLocalValue(),
        nullKeyAccumulator.getLocalValue());
  }

  @Override
  public void open(OpenContext openContext) {
    rowsRead = getRuntimeContext().getMetricGroup().counter(JobMetricNames.ROWS_READ);
    rowsQuarantined = getRuntimeContext().getMetricGroup().counter(JobMetricNames.ROWS_QUARANTINED);
    readAccumulator = new LongCounter();
    quarantinedAccumulator = new LongCounter();
    getRuntimeContext().addAccumulator(Accumulators.rowsRead(name), readAccumulator);
    getRuntimeContext().addAccumulator(Accumulators.rowsQuarantined(name), quarantinedAccumulator);
    nullKeyAccumulator = new LongCounter();
    getRuntimeContext()
        .addAccumulator(Accumulators.rowsWithNullKeyQuarantined(name), nullKeyAccumulator);
  }

  @Override
  public void processElement(Row record, Context ctx, Collector<Row> out) {
    String error = SourceRecord.error(record);
    if (error == null) {
      try {
        Row row = decoder.decode(SourceRecord.payload(record));
        error = nullKey(row);
        if (error != null) {
          nullKeyAccumulator.add(1L);
        } else {
          error = unencodableKey(row);
        }
        if (error != null) {
          String raw = raw(record);
          quarantine(record, error, ctx, raw != null ? raw : text(row));
          return;
        }
        rowsRead.inc();
        readAccumulator.add(1L);
        out.collect(row);
        return;
      } catch (RejectedRecord e) {
        error = e.getMessage();
      }
    }
    quarantine(record, error, ctx, raw(record));
  }

  /** The record's raw text: in the SourceRecord, or (CSV) in its payload. */
  private String raw(Row record) {
    String raw = SourceRecord.raw(record);
    Object payload = SourceRecord.payload(record);
    return raw != null || payload == null ? raw : decoder.raw(payload);
  }

  private void quarantine(Row record, String error, Context ctx, String raw) {
    rowsQuarantined.inc();
    quarantinedAccumulator.add(1L);
    ctx.output(
        quarantine,
        new BadRow(SourceRecord.file(record), SourceRecord.position(record), error, raw));
  }

  /**
   * A decoded row as text, for formats whose good records carry no raw text (Avro, Parquet, JDBC):
   * values comma-separated, NULL empty, bytes in Base64.
   */
  private static String text(Row row) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < row.getArity(); i++) {
      Object v = row.getField(i);
      sb.append(i == 0 ? "" : ",")
          .append(
              v == null
                  ? ""
                  : v instanceof byte[] b ? java.util.Base64.getEncoder().encodeToString(b) : v);
    }
    return Text.truncateUtf8(sb.toString(), BadRow.RAW_LIMIT);
  }

  /** Why the row's key cannot match, or null if it can. */
  private String nullKey(Row row) {
    for (int i = 0; i < keyFields.length; i++) {
      Object v = row.getField(keyFields[i]);
      if (v == null) {
        return "column '" + keyNames[i] + "': NULL in a join key column (it can never match)";
      }
      if ((v instanceof Double d && d.isNaN()) || (v instanceof Float f && f.isNaN())) {
        return "column '" + keyNames[i] + "': NaN in a join key column (it can never match)";
      }
    }
    return null;
  }

  /**
   * Why the row's key has no exact encoding (a string with an unpaired UTF-16 surrogate: UTF-8
   * cannot encode it, and a lenient encoder would make it '?', so that two different keys shared
   * one token), or null if it has one.
   */
  private String unencodableKey(Row row) {
    for (int i = 0; i < keyFields.length; i++) {
      if (row.getField(keyFields[i]) instanceof String str) {
        int at = Utf8.unpairedSurrogate(str);
        if (at >= 0) {
          return "column '"
              + keyNames[i]
              + "': unpaired UTF-16 surrogate at character "
              + at
              + " in a join key column (it has no exact encoding)";
        }
      }
    }
    return null;
  }
}
