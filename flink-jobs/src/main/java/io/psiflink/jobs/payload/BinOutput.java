package io.psiflink.jobs.payload;

import io.psiflink.api.ColumnType;
import io.psiflink.connectors.row.RowCodec;
import io.psiflink.jobs.psi.BinPsiOperator;
import java.util.List;
import java.util.function.Consumer;
import org.apache.flink.types.Row;

/**
 * What a completed bin gives its party's job to emit: the joined rows of the output party, its
 * count for a cardinality-only query, or nothing (party B). Everything in it was checked before the
 * bin's DONE, so emitting cannot fail on the peer's account; {@link BinPsiOperator} emits it on the
 * task's mailbox thread, apart from the network exchange.
 */
public interface BinOutput {
  /** The output row of a cardinality-only query: the count. */
  RowCodec COUNT_CODEC = new RowCodec(List.of(ColumnType.BIGINT));

  /** Nothing to emit. */
  BinOutput NONE =
      new BinOutput() {
        @Override
        public long rows() {
          return 0;
        }

        @Override
        public void emitTo(Consumer<byte[]> out) {}
      };

  /** How many rows {@link #emitTo} emits. */
  long rows();

  /** Emits the rows, each in {@link RowCodec} encoding. */
  void emitTo(Consumer<byte[]> out);

  /** The one row of a cardinality-only query. */
  static BinOutput count(long cardinality) {
    byte[] row = COUNT_CODEC.encode(Row.of(cardinality), new int[] {0});
    return new BinOutput() {
      @Override
      public long rows() {
        return 1;
      }

      @Override
      public void emitTo(Consumer<byte[]> out) {
        out.accept(row);
      }
    };
  }
}
