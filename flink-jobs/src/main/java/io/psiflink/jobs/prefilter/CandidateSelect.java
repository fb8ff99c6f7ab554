package io.psiflink.jobs.prefilter;

import io.psiflink.api.JobMetricNames.Accumulators;
import io.psiflink.connectors.row.RowCodec;
import io.psiflink.connectors.row.Varint;
import io.psiflink.jobs.bin.RowBatch;
import io.psiflink.jobs.payload.JoinKindOutput;
import io.psiflink.jobs.session.JobSecrets;
import io.psiflink.jobs.token.Tokens;
import io.psiflink.nativepsi.FilterPositions;
import java.util.Arrays;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.InputSelectable;
import org.apache.flink.streaming.api.operators.InputSelection;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * Keeps this party's tokenized rows whose k filter positions are all set in the combined filter F =
 * B'_A AND B'_B: the candidates, a superset of the rows whose key the peer holds (a Bloom filter
 * has no false negatives). Input 1: the tokenized rows ({@link io.psiflink.jobs.bin.TokenRecord})
 * in {@link RowBatch}es (tag: the first filter position) from {@link BloomPartial}; input 2: F's
 * pieces with a set bit, broadcast from {@link PrefilterExchange}. A row whose first position is
 * clear in F (nearly every row that is no candidate) is judged by that alone; only the others have
 * their k positions computed. The operator reads input 2 to its end before input 1 ({@link
 * InputSelectable}): Flink's "broadcast side first" of BATCH mode needs sorted inputs, which this
 * job turns off, so the order is enforced here, and a row arriving before F is complete fails the
 * job rather than being judged by half a filter.
 *
 * <p>At the output party of a LEFT or anti-join the other rows are certain non-matches and belong
 * to the output: they go to {@link #UNMATCHED_ROWS} as output rows, B's columns NULL (as {@link
 * io.psiflink.jobs.token.TokenizeOperator#NULL_KEY_ROWS} does for NULL keys).
 */
public final class CandidateSelect extends AbstractStreamOperator<byte[]>
    implements TwoInputStreamOperator<byte[], long[], byte[]>, InputSelectable, BoundedMultiInput {
  private static final long serialVersionUID = 1L;

  /** The output rows of A's rows that are no candidates (LEFT and anti-joins). */
  public static final OutputTag<byte[]> UNMATCHED_ROWS =
      new OutputTag<>(
          "rows that are no prefilter candidates",
          PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);

  private static final int TOKEN_OFFSET = 4;

  private final PrefilterPlan plan;
  private final String secretsName;
  private final RowCodec keptCodec;

  /** Per output column its source (BinContext#output), or null: non-candidates are dropped. */
  private final int[] unmatchedOutput;

  private transient FilterPositions positions;
  private transient long[] filter;
  private transient boolean filterComplete;
  private transient RowBatch.Rows kept;
  private transient byte[][] records;
  private transient byte[] batch;
  private transient long[] out;
  private transient int pending;
  private transient int[] starts;
  private transient LongCounter candidates;
  private transient LongCounter rowsOut;

  /**
   * @param unmatchedOutput for the output party of a LEFT or anti-join, per output column its
   *     source ({@code i >= 0} kept column i, negative a column of B); null to drop non-candidates
   */
  public CandidateSelect(
      PrefilterPlan plan, String secretsName, RowCodec keptCodec, int[] unmatchedOutput) {
    this.plan = plan;
    this.secretsName = secretsName;
    this.keptCodec = keptCodec;
    this.unmatchedOutput = unmatchedOutput == null ? null : unmatchedOutput.clone();
  }

  @Override
  public void open() throws Exception {
    super.open();
    JobSecrets secrets = JobSecrets.read(getRuntimeContext(), secretsName);
    if (secrets.filterKey() == null) {
      throw new IllegalStateException("the session's secrets hold no prefilter key");
    }
    positions = FilterPositions.create(secrets.filterKey(), plan.filterBits(), plan.hashes());
    filter = new long[Math.toIntExact(plan.words())];
    kept = new RowBatch.Rows();
    records = new byte[BloomPartial.BATCH][];
    batch = new byte[BloomPartial.BATCH * Tokens.BYTES];
    out = new long[BloomPartial.BATCH * plan.hashes()];
    candidates = new LongCounter();
    getRuntimeContext().addAccumulator(PrefilterMetrics.CANDIDATES, candidates);
    if (unmatchedOutput != null) {
      // the output's row count sums these with the bins' (accumulators merge by name)
      rowsOut = new LongCounter();
      getRuntimeContext().addAccumulator(Accumulators.ROWS_OUT, rowsOut);
      starts = new int[keptCodec.arity() + 1];
    }
  }

  @Override
  public InputSelection nextSelection() {
    return filterComplete ? InputSelection.FIRST : InputSelection.SECOND;
  }

  @Override
  public void processElement2(StreamRecord<long[]> element) {
    FilterChunks.copyInto(element.getValue(), filter);
  }

  @Override
  public void processElement1(StreamRecord<byte[]> element) {
    if (!filterComplete) {
      throw new IllegalStateException(
          "a tokenized row reached the candidate selection before the combined filter was complete");
    }
    byte[] b = element.getValue();
    RowBatch.Rows rows = kept.read(b);
    long[] first = rows.tags;
    int n = rows.count;
    // the first bits, over the positions: independent loads, whose cache misses overlap
    for (int i = 0; i < n; i++) {
      long p = first[i];
      first[i] = filter[(int) (p >>> 6)] & (1L << p);
    }
    for (int i = 0; i < n; i++) {
      int off = rows.offsets[i];
      int len = rows.lengths[i];
      if (first[i] != 0) {
        byte[] r = Arrays.copyOfRange(b, off, off + len);
        System.arraycopy(r, TOKEN_OFFSET, batch, pending * Tokens.BYTES, Tokens.BYTES);
        records[pending] = r;
        if (++pending == records.length) {
          flush();
        }
      } else if (unmatchedOutput != null) {
        unmatched(b, off, off + len);
      }
    }
  }

  private void flush() {
    if (pending == 0) {
      return;
    }
    int k = plan.hashes();
    positions.positions(batch, pending, Tokens.BYTES, out);
    for (int i = 0; i < pending; i++) {
      byte[] r = records[i];
      records[i] = null;
      if (FilterChunks.allSet(filter, out, i * k, k)) {
        candidates.add(1);
        output.collect(new StreamRecord<>(r));
      } else if (unmatchedOutput != null) {
        unmatched(r, 0, r.length);
      }
    }
    pending = 0;
  }

  /** The output row of the record {@code b[off, end)}, which is no candidate. */
  private void unmatched(byte[] b, int off, int end) {
    long len = Varint.read(b, off + TOKEN_OFFSET + Tokens.BYTES, end);
    output.collect(
        UNMATCHED_ROWS,
        new StreamRecord<>(
            JoinKindOutput.ownRow(
                keptCodec, unmatchedOutput, b, Varint.next(len), Varint.value(len), starts)));
    rowsOut.add(1);
  }

  @Override
  public void endInput(int inputId) {
    if (inputId == 2) {
      filterComplete = true;
    } else {
      flush();
    }
  }

  @Override
  public void close() throws Exception {
    try {
      if (positions != null) {
        positions.close();
        positions = null;
      }
      filter = null;
    } finally {
      super.close();
    }
  }
}
