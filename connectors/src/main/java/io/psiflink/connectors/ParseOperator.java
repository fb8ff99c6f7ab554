package io.psiflink.connectors;

import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.types.Row;
import org.apache.flink.util.OutputTag;

/**
 * Runs a {@link RowParser} as {@code process()} would, and when its input ends emits the parser's
 * {@link ReadCounts} on a side output, so that a {@link BadRowGate} can judge the table while the
 * job runs (accumulators are only seen after it finished).
 */
final class ParseOperator<T> extends ProcessOperator<Row, T> implements BoundedOneInput {
  private static final long serialVersionUID = 1L;

  private final OutputTag<ReadCounts> counts;

  ParseOperator(RowParser<T> parser, OutputTag<ReadCounts> counts) {
    super(parser);
    this.counts = counts;
  }

  @Override
  public void endInput() {
    output.collect(counts, new StreamRecord<>(((RowParser<?>) userFunction).counts()));
  }
}
