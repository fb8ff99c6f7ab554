package io.psiflink.jobs.bin;

import java.util.BitSet;
import java.util.function.Consumer;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * Packs tokenized rows ({@link TokenRecord}) into {@link RowBatch}es, one open batch per subtask of
 * the bins' operator (tag: the bin; bytes: the record after its bin), so every batch holds bins of
 * one subtask and is routed by the key of its first bin ({@link #keyedBatches}). It also counts the
 * rows it is given, for the public size, and drops those of the bins an earlier run committed
 * (resume): both here, where every row passes anyway, and not in operators of their own beside it
 * (a chained operator more made Flink copy every row's record once more).
 */
public final class BinBatcher extends AbstractStreamOperator<byte[]>
    implements OneInputStreamOperator<byte[], byte[]>, BoundedOneInput {
  private static final long serialVersionUID = 1L;

  /** Per subtask, once its input ended: how many rows it was given, those it dropped included. */
  static final OutputTag<Long> ROWS = new OutputTag<>("rows to intersect", Types.LONG);

  private final BinRouting routing;
  private final BitSet skip;
  private transient Batches batches;
  // made once: a lambda capturing this, made per row, cost C1-compiled code a method handle's
  // allocation each (about a tenth of tokenizing at 10^6 rows)
  private transient Consumer<byte[]> emit;

  /**
   * @param skip the bins whose rows go no further (committed by an earlier run); copied
   */
  public BinBatcher(BinRouting routing, BitSet skip) {
    this.routing = routing;
    this.skip = (BitSet) skip.clone();
  }

  /** The batches for the bins' operator and the count of rows. */
  public record Batched(KeyedStream<byte[], Integer> batches, DataStream<Long> rows) {}

  /**
   * The rows of {@code rows} in batches, keyed for the bins' operator (chained to {@code rows}'
   * operator, then one exchange), without those of the bins in {@code skip}; and per subtask the
   * number of rows it was given, those of {@code skip} included (the public size counts them).
   */
  public static Batched keyedBatches(DataStream<byte[]> rows, BinRouting routing, BitSet skip) {
    SingleOutputStreamOperator<byte[]> batched =
        rows.transform(
                "rows in batches per bins' subtask",
                PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
                new BinBatcher(routing, skip))
            .setParallelism(rows.getParallelism());
    return new Batched(
        batched.keyBy(b -> routing.key(RowBatch.firstTag(b)), Types.INT),
        batched.getSideOutput(ROWS));
  }

  @Override
  public void open() throws Exception {
    super.open();
    batches = new Batches(routing, skip);
    emit = b -> output.collect(new StreamRecord<>(b));
  }

  @Override
  public void processElement(StreamRecord<byte[]> element) {
    batches.add(element.getValue(), emit);
  }

  @Override
  public void endInput() {
    batches.flush(emit);
    output.collect(ROWS, new StreamRecord<>(batches.rows()));
  }

  /** The batching itself, apart from Flink. Not thread-safe. */
  static final class Batches {
    private final BinRouting routing;
    private final BitSet skip;
    private final RowBatch.Writer[] open;
    private long rows;

    /** Batches for {@code routing}'s subtasks, dropping the rows of the bins in {@code skip}. */
    Batches(BinRouting routing, BitSet skip) {
      this.routing = routing;
      this.skip = skip;
      this.open = new RowBatch.Writer[routing.parallelism()];
      for (int s = 0; s < open.length; s++) {
        open[s] = new RowBatch.Writer();
      }
    }

    /** Adds one record, unless its bin is skipped; a batch that fills up goes to {@code out}. */
    void add(byte[] record, Consumer<byte[]> out) {
      rows++;
      int bin = TokenRecord.bin(record);
      if (skip.get(bin)) {
        return;
      }
      RowBatch.Writer w = open[routing.subtask(bin)];
      if (w.add(bin, record, TokenRecord.BIN_BYTES, record.length - TokenRecord.BIN_BYTES)) {
        out.accept(w.take());
      }
    }

    /** Hands every batch still open to {@code out}. */
    void flush(Consumer<byte[]> out) {
      for (RowBatch.Writer w : open) {
        if (!w.isEmpty()) {
          out.accept(w.take());
        }
      }
    }

    /** The records added, the skipped ones included. */
    long rows() {
      return rows;
    }
  }
}
