package io.psiflink.connectors;

import io.psiflink.api.ColumnType;
import io.psiflink.api.JobMetricNames;
import io.psiflink.api.JobMetricNames.Accumulators;
import io.psiflink.connectors.row.RecordView;
import io.psiflink.connectors.row.RowView;
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
 *
 * <p>It emits typed {@code Row}s, or (CSV, for a consumer that only reads fields through a {@link
 * RecordView}) the packed records themselves once checked: the same records pass and fail either
 * way.
 *
 * @param <T> {@code Row}, or {@code byte[]} for packed CSV records
 */
final class RowParser<T> extends ProcessFunction<Row, T> {
  private static final long serialVersionUID = 1L;

  private final String name;
  private final FieldDecoder decoder;
  private final OutputTag<BadRow> quarantine;
  private final int[] keyFields;
  private final String[] keyNames;
  private final ColumnType[] keyTypes;

  /** Reads the emitted records: a {@link RowView}, or the CSV decoder's view of packed records. */
  private final RecordView<T> view;

  /** Whether the records are emitted as the CSV decoder checked them, not as rows. */
  private final boolean packed;

  private transient Counter rowsRead;
  private transient Counter rowsQuarantined;
  private transient LongCounter readAccumulator;
  private transient LongCounter quarantinedAccumulator;
  private transient LongCounter nullKeyAccumulator;

  /**
   * @param keyFields positions of the key columns (a NULL there quarantines the row)
   * @param keyNames their names, for the reason
   * @param keyTypes their types
   * @param view a {@link RowView} to emit rows; {@link CsvFieldDecoder#view()} (the decoder being
   *     that CSV decoder) to emit checked packed records
   */
  RowParser(
      String name,
      FieldDecoder decoder,
      OutputTag<BadRow> quarantine,
      int[] keyFields,
      String[] keyNames,
      ColumnType[] keyTypes,
      RecordView<T> view) {
    this.name = name;
    this.decoder = decoder;
    this.quarantine = quarantine;
    this.keyFields = keyFields.clone();
    this.keyNames = keyNames.clone();
    this.keyTypes = keyTypes.clone();
    this.view = view;
    this.packed = !(view instanceof RowView);
    if (packed && !(decoder instanceof CsvFieldDecoder)) {
      throw new IllegalArgumentException("only CSV records are emitted packed");
    }
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
  @SuppressWarnings("unchecked")
  public void processElement(Row record, Context ctx, Collector<T> out) {
    String error = SourceRecord.error(record);
    if (error == null) {
      try {
        Object payload = SourceRecord.payload(record);
        T value;
        if (packed) {
          ((CsvFieldDecoder) decoder).check((byte[]) payload);
          value = (T) payload;
        } else {
          value = (T) decoder.decode(payload);
        }
        view.set(value);
        error = nullKey();
        if (error != null) {
          nullKeyAccumulator.add(1L);
        } else if (value instanceof Row row) {
          error = unencodableKey(row); // packed CSV strings are valid UTF-8: always exact
        }
        if (error != null) {
          String raw = raw(record);
          quarantine(record, error, ctx, raw != null ? raw : text((Row) value));
          return;
        }
        rowsRead.inc();
        readAccumulator.add(1L);
        out.collect(value);
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

  /** Why the viewed record's key cannot match, or null if it can. */
  private String nullKey() {
    for (int i = 0; i < keyFields.length; i++) {
      if (view.isNull(keyFields[i])) {
        return "column '" + keyNames[i] + "': NULL in a join key column (it can never match)";
      }
      if (keyTypes[i].keyClass() == ColumnType.KeyClass.FLOATING
          && Double.isNaN(view.getDouble(keyFields[i]))) {
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
