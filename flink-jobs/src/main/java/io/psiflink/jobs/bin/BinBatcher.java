package io.psiflink.jobs.bin;

import java.util.function.Consumer;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Packs tokenized rows ({@link TokenRecord}) into {@link RowBatch}es, one open batch per subtask of
 * the bins' operator (tag: the bin; bytes: the record after its bin), so every batch holds bins of
 * one subtask and is routed by the key of its first bin ({@link #keyedBatches}).
 */
public final class BinBatcher extends AbstractStreamOperator<byte[]>
    implements OneInputStreamOperator<byte[], byte[]>, BoundedOneInput {
  private static final long serialVersionUID = 1L;

  private final BinRouting routing;
  private transient Batches batches;
  // made once: a lambda capturing this, made per row, cost C1-compiled code a method handle's
  // allocation each (about a tenth of tokenizing at 10^6 rows)
  private transient Consumer<byte[]> emit;

  public BinBatcher(BinRouting routing) {
    this.routing = routing;
  }

  /**
   * The rows of {@code rows} in batches, keyed for the bins' operator: chained to {@code rows}'
   * operator, then one exchange.
   */
  public static KeyedStream<byte[], Integer> keyedBatches(
      DataStream<byte[]> rows, BinRouting routing) {
    return rows.transform(
            "rows in batches per bins' subtask",
            PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
            new BinBatcher(routing))
        .setParallelism(rows.getParallelism())
        .keyBy(b -> routing.key(RowBatch.firstTag(b)), Types.INT);
  }

  @Override
  public void open() throws Exception {
    super.open();
    batches = new Batches(routing);
    emit = b -> output.collect(new StreamRecord<>(b));
  }

  @Override
  public void processElement(StreamRecord<byte[]> element) {
    batches.add(element.getValue(), emit);
  }

  @Override
  public void endInput() {
    batches.flush(emit);
  }

  /** The batching itself, apart from Flink. Not thread-safe. */
  static final class Batches {
    private final BinRouting routing;
    private final RowBatch.Writer[] open;

    Batches(BinRouting routing) {
      this.routing = routing;
      this.open = new RowBatch.Writer[routing.parallelism()];
      for (int s = 0; s < open.length; s++) {
        open[s] = new RowBatch.Writer();
      }
    }

    /** Adds one record; a batch that fills up goes to {@code out}. */
    void add(byte[] record, Consumer<byte[]> out) {
      int bin = TokenRecord.bin(record);
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
  }
}
