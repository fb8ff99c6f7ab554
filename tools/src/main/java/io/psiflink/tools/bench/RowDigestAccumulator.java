package io.psiflink.tools.bench;

import org.apache.flink.api.common.accumulators.Accumulator;
import org.apache.flink.types.Row;

/**
 * A Flink accumulator of a {@link RowDigest}: each parallel instance adds its rows, Flink merges
 * the partial digests; the job result holds the digest of all rows ({@code
 * JobExecutionResult.getAccumulatorResult(name)} returns a {@link RowDigest}).
 */
public final class RowDigestAccumulator implements Accumulator<Row, RowDigest> {
  private static final long serialVersionUID = 1L;

  private RowDigest digest = new RowDigest();

  @Override
  public void add(Row row) {
    digest.add(row);
  }

  /** Adds a partial digest. */
  public void addDigest(RowDigest partial) {
    digest.merge(partial);
  }

  @Override
  public RowDigest getLocalValue() {
    return digest;
  }

  @Override
  public void resetLocal() {
    digest = new RowDigest();
  }

  @Override
  public void merge(Accumulator<Row, RowDigest> other) {
    digest.merge(other.getLocalValue());
  }

  @Override
  public RowDigestAccumulator clone() {
    RowDigestAccumulator c = new RowDigestAccumulator();
    c.digest = digest.copy();
    return c;
  }

  @Override
  public String toString() {
    return "RowDigestAccumulator " + digest;
  }
}
