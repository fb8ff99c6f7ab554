package io.psiflink.tools.bench;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.types.Row;
import org.apache.flink.util.Collector;

/** Digests of Flink streams of rows. */
public final class RowDigests {
  private RowDigests() {}

  /**
   * Adds every row of {@code rows} to the {@link RowDigestAccumulator} {@code accumulatorName} and
   * discards it; after the job, {@link #result} gives the digest. Runs at the stream's parallelism.
   */
  public static DataStreamSink<Row> ofStream(DataStream<Row> rows, String accumulatorName) {
    return digesting(rows, accumulatorName, false)
        .sinkTo(new DiscardingSink<>())
        .name("discard")
        .setParallelism(rows.getParallelism());
  }

  /**
   * Adds every row to the accumulator {@code accumulatorName} and passes it on unchanged (to digest
   * a stream that is also written somewhere).
   */
  public static SingleOutputStreamOperator<Row> digestAndForward(
      DataStream<Row> rows, String accumulatorName) {
    return digesting(rows, accumulatorName, true);
  }

  private static SingleOutputStreamOperator<Row> digesting(
      DataStream<Row> rows, String name, boolean forward) {
    return rows.flatMap(new Digesting(name, forward))
        .returns(rows.getType())
        .name("digest " + name)
        .setParallelism(rows.getParallelism());
  }

  /** The digest a finished job accumulated under this name. */
  public static RowDigest result(JobExecutionResult job, String accumulatorName) {
    Object v = job.getAccumulatorResult(accumulatorName);
    if (v == null) {
      return new RowDigest(); // no row ever reached the accumulator's operator
    }
    return (RowDigest) v;
  }

  private static final class Digesting extends RichFlatMapFunction<Row, Row> {
    private static final long serialVersionUID = 1L;
    private final String name;
    private final boolean forward;
    private transient RowDigestAccumulator acc;

    Digesting(String name, boolean forward) {
      this.name = name;
      this.forward = forward;
    }

    @Override
    public void open(OpenContext ctx) {
      acc = new RowDigestAccumulator();
      getRuntimeContext().addAccumulator(name, acc);
    }

    @Override
    public void flatMap(Row row, Collector<Row> out) {
      acc.add(row);
      if (forward) {
        out.collect(row);
      }
    }
  }
}
