package io.psiflink.jobs.prefilter;

import io.psiflink.bridge.BridgeException;
import io.psiflink.jobs.bin.RowBatch;
import io.psiflink.jobs.session.JobSecrets;
import io.psiflink.jobs.token.Tokens;
import io.psiflink.nativepsi.FilterPositions;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * One subtask's part of this party's permuted Bloom filter B'_i: for every tokenized row ({@link
 * io.psiflink.jobs.bin.TokenRecord}) the k positions FF1(h_j(token)) (native {@link
 * FilterPositions}, in batches), set in a filter of 2^L bits; at the end of input the filter's
 * pieces that have a set bit ({@link FilterChunks}) go to {@link PrefilterExchange}, which ORs
 * them, on the side output {@link #FILTER_PIECES}. The rows themselves go on to {@link
 * CandidateSelect}, packed with their first position ({@link RowBatch}). The filter is allocated at
 * the first token, so a subtask without tokens costs nothing.
 *
 * <p>Subtask 0 also receives, from its start, what the AND needs from the helper and the peer
 * ({@link PrefilterPrefetch}), and sends it on after its pieces.
 */
public final class BloomPartial extends AbstractStreamOperator<byte[]>
    implements OneInputStreamOperator<byte[], byte[]>, BoundedOneInput {
  private static final long serialVersionUID = 1L;

  /** The filter's pieces and, from subtask 0, what the prefetch received: for the exchange. */
  public static final OutputTag<long[]> FILTER_PIECES =
      new OutputTag<>(
          "prefilter: pieces of the partial filters",
          PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);

  /** Tokens per native call: amortizes JNA's call cost, small enough to stay in cache. */
  static final int BATCH = 4096;

  /** A record's token: after the 4-byte bin. */
  private static final int TOKEN_OFFSET = 4;

  private final PrefilterPlan plan;
  private final String secretsName;
  private final PrefilterLink link;

  private transient FilterPositions positions;
  private transient long[] filter;
  private transient byte[] batch;
  private transient byte[][] records;
  private transient long[] out;
  private transient RowBatch.Writer kept;
  private transient int pending;
  private transient PrefilterPrefetch prefetch;

  /**
   * @param secretsName where the tasks read the session's {@link JobSecrets} (the filter key, read
   *     in open(), never part of the job graph; {@link JobSecrets#ship})
   * @param link where subtask 0 reaches the helper and the peer; null for the filter alone
   */
  public BloomPartial(PrefilterPlan plan, String secretsName, PrefilterLink link) {
    this.plan = plan;
    this.secretsName = secretsName;
    this.link = link;
  }

  @Override
  public void open() throws Exception {
    super.open();
    JobSecrets secrets = JobSecrets.read(getRuntimeContext(), secretsName);
    if (secrets.filterKey() == null) {
      throw new IllegalStateException("the session's secrets hold no prefilter key");
    }
    positions = FilterPositions.create(secrets.filterKey(), plan.filterBits(), plan.hashes());
    batch = new byte[BATCH * Tokens.BYTES];
    records = new byte[BATCH][];
    out = new long[BATCH * plan.hashes()];
    kept = new RowBatch.Writer();
    if (link != null && getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0) {
      try {
        prefetch = PrefilterPrefetch.start(link, plan, secrets.frameKey());
      } catch (BridgeException e) {
        throw link.failed(e);
      }
    }
  }

  @Override
  public void processElement(StreamRecord<byte[]> element) {
    byte[] r = element.getValue();
    System.arraycopy(r, TOKEN_OFFSET, batch, pending * Tokens.BYTES, Tokens.BYTES);
    records[pending] = r;
    if (++pending == BATCH) {
      flush();
    }
  }

  private void flush() {
    if (pending == 0) {
      return;
    }
    if (filter == null) {
      filter = new long[Math.toIntExact(plan.words())];
    }
    positions.positions(batch, pending, Tokens.BYTES, out);
    int k = plan.hashes();
    FilterChunks.set(filter, out, pending * k);
    for (int i = 0; i < pending; i++) {
      if (kept.add(out[i * k], records[i], 0, records[i].length)) {
        output.collect(new StreamRecord<>(kept.take()));
      }
      records[i] = null;
    }
    pending = 0;
  }

  @Override
  public void endInput() throws Exception {
    flush();
    if (!kept.isEmpty()) {
      output.collect(new StreamRecord<>(kept.take()));
    }
    if (filter != null) {
      FilterChunks.forEachSetPiece(
          filter, p -> output.collect(FILTER_PIECES, new StreamRecord<>(p)));
      filter = null; // the exchange holds the union now
    }
    if (prefetch != null) {
      prefetch.emit(r -> output.collect(FILTER_PIECES, new StreamRecord<>(r)));
      prefetch.close();
      prefetch = null;
    }
  }

  @Override
  public void close() throws Exception {
    try {
      if (prefetch != null) {
        prefetch.close();
        prefetch = null;
      }
      if (positions != null) {
        positions.close();
        positions = null;
      }
    } finally {
      super.close();
    }
  }
}
