package io.psiflink.jobs.read;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Counts the elements of its input and emits the count once the input ends, per subtask; {@link
 * PublicRowCount} adds up the partial counts into the party's public n.
 */
public final class RowCount<T> extends AbstractStreamOperator<Long>
    implements OneInputStreamOperator<T, Long>, BoundedOneInput {
  private static final long serialVersionUID = 1L;
  private transient long total;

  @Override
  public void processElement(StreamRecord<T> element) {
    total++;
  }

  @Override
  public void endInput() {
    output.collect(new StreamRecord<>(total));
  }
}
