package io.psiflink.jobs.token;

import io.psiflink.api.ColumnType;
import io.psiflink.api.JobMetricNames.Accumulators;
import io.psiflink.connectors.row.RecordView;
import io.psiflink.connectors.row.RowCodec;
import io.psiflink.jobs.bin.TokenRecord;
import io.psiflink.jobs.payload.JoinKindOutput;
import io.psiflink.jobs.psi.BinPsiOperator.PhaseClock;
import io.psiflink.jobs.session.JobSecrets;
import java.util.Arrays;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * Phase 2 and the first half of phase 3: turns each filtered row into its token, its bin and the
 * encoded columns the party keeps for the output ({@link TokenRecord}), {@value Tokenizer#BATCH}
 * rows at a time (one native PRF call per batch; the rest at the end of the input). Rows with a
 * NULL (or NaN) key are counted, never tokenized: they cannot match. At the output party of a LEFT
 * or anti-join they belong to the output (SQL: no match exists for them): they go to {@link
 * #NULL_KEY_ROWS} as output rows, B's columns NULL.
 */
public final class TokenizeOperator<T> extends AbstractStreamOperator<byte[]>
    implements OneInputStreamOperator<T, byte[]>, BoundedOneInput {
  private static final long serialVersionUID = 1L;
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(TokenizeOperator.class);

  /** The side output of the output rows of A's rows whose key is NULL (LEFT and anti-joins). */
  public static final OutputTag<byte[]> NULL_KEY_ROWS =
      new OutputTag<>(
          "rows with a NULL key", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);

  /** Reads the input records' fields: {@code Row}s or the CSV source's packed records. */
  private final RecordView<T> view;

  private final int[] keyFields;
  private final ColumnType[] keyTypes;
  private final int[] keptFields;
  private final RowCodec keptCodec;

  /** The distributed-cache name of the session's secrets: the keys are read in open(). */
  private final String secretsName;

  private final int bins;
  private final String name;

  /**
   * Per output column its source (BinContext#output), or null: rows with a NULL key are dropped.
   */
  private final int[] nullKeyOutput;

  private transient KeyEncoder encoder;
  private transient Tokenizer tokenizer;
  private transient RowCodec.Out kept;
  private transient RecordView.Bytes bytes;
  // the batch's kept columns: row i is keptData[keptEnds[i-1], keptEnds[i])
  private transient byte[] keptData;
  private transient int[] keptEnds;
  private transient StreamRecord<byte[]> reuse;
  private transient Counter tokenized;
  private transient Counter nullKeys;
  private transient LongCounter tokenizedAcc;
  private transient LongCounter nullKeysAcc;
  private transient LongCounter rowsOutAcc;
  private transient int[] starts;

  /**
   * @param name the table's name in the query ("a" or "b"), prefix of the accumulators
   * @param view reads the fields of the input records (the source's {@code view})
   * @param secretsName where the tasks read the session's {@link JobSecrets} (token key and bin
   *     seed; {@link JobSecrets#ship}), so that the keys never enter the job graph
   * @param nullKeyOutput for the output party of a LEFT or anti-join, per output column its source
   *     ({@code i >= 0} kept column i, negative a column of B): a row whose key is NULL is emitted
   *     to {@link #NULL_KEY_ROWS} as that output row with B's columns NULL; null to drop such rows
   */
  public TokenizeOperator(
      String name,
      RecordView<T> view,
      int[] keyFields,
      ColumnType[] keyTypes,
      int[] keptFields,
      RowCodec keptCodec,
      String secretsName,
      int bins,
      int[] nullKeyOutput) {
    this.nullKeyOutput = nullKeyOutput == null ? null : nullKeyOutput.clone();
    this.name = name;
    this.view = view;
    this.keyFields = keyFields.clone();
    this.keyTypes = keyTypes.clone();
    this.keptFields = keptFields.clone();
    this.keptCodec = keptCodec;
    this.secretsName = secretsName;
    this.bins = bins;
  }

  @Override
  public void open() throws Exception {
    super.open();
    // marks the phase in the log (fault drills stop a party here)
    LOG.info(
        "table {}: tokenizing on subtask {} of {}",
        name,
        getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() + 1,
        getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks());
    encoder = new KeyEncoder(keyFields, keyTypes);
    JobSecrets secrets = JobSecrets.read(getRuntimeContext(), secretsName);
    tokenizer = new Tokenizer(secrets.tokenKey(), secrets.binSeed(), bins);
    kept = new RowCodec.Out();
    bytes = new RecordView.Bytes();
    keptData = new byte[Tokenizer.BATCH * 32];
    keptEnds = new int[Tokenizer.BATCH];
    reuse = new StreamRecord<>(null);
    tokenized = getMetricGroup().counter("rowsTokenized");
    nullKeys = getMetricGroup().counter("rowsWithNullKey");
    tokenizedAcc = new LongCounter();
    nullKeysAcc = new LongCounter();
    getRuntimeContext().addAccumulator(Accumulators.rowsTokenized(name), tokenizedAcc);
    getRuntimeContext().addAccumulator(Accumulators.rowsWithNullKey(name), nullKeysAcc);
    if (nullKeyOutput != null) {
      // the output's row count sums these with the bins' (accumulators merge by name)
      rowsOutAcc = new LongCounter();
      getRuntimeContext().addAccumulator(Accumulators.ROWS_OUT, rowsOutAcc);
      starts = new int[keptCodec.arity() + 1];
    }
  }

  @Override
  public void processElement(StreamRecord<T> element) {
    RecordView<T> row = view.set(element.getValue());
    kept.reset();
    keptCodec.encode(row, keptFields, kept, bytes);
    if (!encoder.encode(row)) {
      nullKeys.inc();
      nullKeysAcc.add(1);
      if (nullKeyOutput != null) {
        output.collect(
            NULL_KEY_ROWS,
            new StreamRecord<>(
                JoinKindOutput.ownRow(
                    keptCodec, nullKeyOutput, kept.array(), 0, kept.size(), starts)));
        rowsOutAcc.add(1);
      }
      return;
    }
    // the row may be reused upstream (object reuse): keep its encodings, not the row
    int i = tokenizer.size();
    int from = i == 0 ? 0 : keptEnds[i - 1];
    if (from + kept.size() > keptData.length) {
      keptData = Arrays.copyOf(keptData, Math.max(keptData.length * 2, from + kept.size()));
    }
    System.arraycopy(kept.array(), 0, keptData, from, kept.size());
    keptEnds[i] = from + kept.size();
    if (tokenizer.add(encoder.buffer(), encoder.length())) {
      flush();
    }
  }

  private void flush() {
    int n = tokenizer.size();
    if (n == 0) {
      return;
    }
    tokenizer.tokenize();
    for (int i = 0, from = 0; i < n; from = keptEnds[i++]) {
      long hi = tokenizer.hi(i);
      long lo = tokenizer.lo(i);
      output.collect(
          reuse.replace(
              TokenRecord.of(tokenizer.bin(i), hi, lo, keptData, from, keptEnds[i] - from)));
    }
    tokenizer.clear();
    tokenized.inc(n);
    tokenizedAcc.add(n);
  }

  @Override
  public void endInput() {
    flush();
  }

  @Override
  public void close() throws Exception {
    try {
      new PhaseClock(getRuntimeContext()).mark(Accumulators.TOKENIZE_END);
      if (tokenizer != null) {
        tokenizer.close();
      }
    } finally {
      super.close();
    }
  }
}
