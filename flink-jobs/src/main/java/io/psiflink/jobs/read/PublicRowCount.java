package io.psiflink.jobs.read;

import io.psiflink.api.PublicSize;
import io.psiflink.connectors.ReadCounts;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The party's public n, once both inputs ended (parallelism 1): input 1 the partial counts of the
 * tokenized rows (and the bad-row gate's 0 once it passed), input 2 the readers' counts of every
 * record read. Applies the {@link PublicSize} policy; under {@code declared:N} it fails the job
 * here, before the bins (which wait for n) send anything to the peer.
 *
 * <p>With the prefilter input 1 counts the candidates, and {@code rounded} rounds the candidate
 * count rather than the table's: padding the bins to the whole table would undo what the filter
 * saved. The peer then learns the size class of the candidates, about the intersection plus the
 * filter's false hits, which the mode (BOTH; the prefilter is refused with LABELED and COUNT)
 * reveals to it anyway.
 */
public final class PublicRowCount extends AbstractStreamOperator<Long>
    implements TwoInputStreamOperator<Long, ReadCounts, Long>, BoundedMultiInput {
  private static final long serialVersionUID = 1L;
  private final PublicSize policy;
  private final boolean prefiltered;
  private transient long tokenized;
  private transient long records;
  private transient int ended;

  public PublicRowCount(PublicSize policy) {
    this(policy, false);
  }

  /** {@code prefiltered}: input 1 counts the prefilter's candidates (see the class comment). */
  public PublicRowCount(PublicSize policy, boolean prefiltered) {
    this.policy = policy;
    this.prefiltered = prefiltered;
  }

  @Override
  public void processElement1(StreamRecord<Long> element) {
    tokenized += element.getValue();
  }

  @Override
  public void processElement2(StreamRecord<ReadCounts> element) {
    records += element.getValue().rows() + element.getValue().quarantined();
  }

  @Override
  public void endInput(int inputId) {
    if (++ended == 2) {
      output.collect(
          new StreamRecord<>(policy.announce(tokenized, prefiltered ? tokenized : records)));
    }
  }
}
