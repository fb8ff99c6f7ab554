package io.psiflink.jobs.psi;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Counts the elements of its input and emits the count once the input ends: per subtask upstream,
 * then again with parallelism 1 summing the partial counts. Gives the bins the party's n.
 */
public final class RowCount<T> extends AbstractStreamOperator<Long>
    implements OneInputStreamOperator<T, Long>, BoundedOneInput {
  private static final long serialVersionUID = 1L;
  private final boolean sum;
  private transient long total;

  /** @param sum add up the incoming (Long) values instead of counting elements */
  public RowCount(boolean sum) {
    this.sum = sum;
  }

  @Override
  public void processElement(StreamRecord<T> element) {
    total += sum ? (Long) element.getValue() : 1;
  }

  @Override
  public void endInput() {
    output.collect(new StreamRecord<>(total));
  }
}
