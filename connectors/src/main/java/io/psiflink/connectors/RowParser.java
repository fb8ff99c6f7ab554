package io.psiflink.connectors;

import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.types.Row;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Turns {@link SourceRecord}s into typed rows; everything that fails goes to the quarantine side
 * output as a {@link BadRow} naming the file the record came from, so no record disappears.
 * Counts both as metrics ({@code rowsRead}, {@code rowsQuarantined}) and as accumulators ({@code
 * <name>.rowsRead}, {@code <name>.rowsQuarantined}) so that the job can report them from its
 * {@code JobExecutionResult}. {@code rowsRead} counts rows emitted on the main output only.
 */
final class RowParser extends ProcessFunction<Row, Row> {
  private static final long serialVersionUID = 1L;

  private final String name;
  private final FieldDecoder decoder;
  private final OutputTag<BadRow> quarantine;

  private transient Counter rowsRead;
  private transient Counter rowsQuarantined;
  private transient LongCounter readAccumulator;
  private transient LongCounter quarantinedAccumulator;

  RowParser(String name, FieldDecoder decoder, OutputTag<BadRow> quarantine) {
    this.name = name;
    this.decoder = decoder;
    this.quarantine = quarantine;
  }

  static String rowsReadAccumulator(String name) {
    return name + ".rowsRead";
  }

  static String rowsQuarantinedAccumulator(String name) {
    return name + ".rowsQuarantined";
  }

  @Override
  public void open(OpenContext openContext) {
    rowsRead = getRuntimeContext().getMetricGroup().counter("rowsRead");
    rowsQuarantined = getRuntimeContext().getMetricGroup().counter("rowsQuarantined");
    readAccumulator = new LongCounter();
    quarantinedAccumulator = new LongCounter();
    getRuntimeContext().addAccumulator(rowsReadAccumulator(name), readAccumulator);
    getRuntimeContext().addAccumulator(rowsQuarantinedAccumulator(name), quarantinedAccumulator);
  }

  @Override
  public void processElement(Row record, Context ctx, Collector<Row> out) {
    String error = SourceRecord.error(record);
    if (error == null) {
      try {
        Row row = decoder.decode(SourceRecord.payload(record));
        rowsRead.inc();
        readAccumulator.add(1L);
        out.collect(row);
        return;
      } catch (RejectedRecord e) {
        error = e.getMessage();
      }
    }
    rowsQuarantined.inc();
    quarantinedAccumulator.add(1L);
    ctx.output(quarantine, new BadRow(SourceRecord.file(record), SourceRecord.position(record),
        error, SourceRecord.raw(record)));
  }
}
