package io.psiflink.connectors;

import java.util.Locale;
import java.util.Optional;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Fails the job, while it runs, when a table had more bad rows than a {@link BadRowLimit} allows.
 * One task (parallelism 1) sums the readers' {@link ReadCounts}; once every reader and every
 * quarantine writer has finished, it either fails with a message naming the counts and the
 * quarantine, or emits a single {@code 0L}. A job makes whatever must not happen with a bad table
 * (for the private join: the PSI, which reveals the table's keys to the peer) wait for that
 * element, so a bad table never gets that far. Failing after the quarantine writers finished keeps
 * their files complete.
 */
public final class BadRowGate {
  /** Starts the message of the failure, so that it can be found in Flink's exception chain. */
  public static final String MARKER = "too many bad rows: ";

  private BadRowGate() {}

  /**
   * @param counts the readers' counts ({@link SourceResult#counts})
   * @param written the quarantine writers' counts ({@link QuarantineSink#writeFiles}), or null when
   *     the quarantine is not written
   * @param what names the table in the message, e.g. {@code party A: table a}
   * @param quarantine where the quarantine goes (for the message), or null
   * @param consequence appended to the message, e.g. {@code ; the output was not written}
   */
  public static DataStream<Long> check(
      DataStream<ReadCounts> counts,
      DataStream<Long> written,
      BadRowLimit limit,
      String what,
      String quarantine,
      String consequence) {
    DataStream<Long> others =
        written != null
            ? written
            : counts
                .map((MapFunction<ReadCounts, Long>) c -> 0L)
                .returns(Types.LONG)
                .name("no quarantine");
    return counts
        .connect(others)
        .transform(
            "check bad rows",
            Types.LONG,
            new Gate(limit, what, quarantine, consequence == null ? "" : consequence))
        .setParallelism(1)
        .setMaxParallelism(1);
  }

  /** The gate's message if {@code t} (a failed job's exception) comes from a gate. */
  public static Optional<String> failure(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      String m = c.getMessage();
      int i = m == null ? -1 : m.indexOf(MARKER);
      if (i >= 0) {
        return Optional.of(m.substring(i).lines().findFirst().orElse(m));
      }
    }
    return Optional.empty();
  }

  private static final class Gate extends AbstractStreamOperator<Long>
      implements TwoInputStreamOperator<ReadCounts, Long, Long>, BoundedMultiInput {
    private static final long serialVersionUID = 1L;

    private final BadRowLimit limit;
    private final String what;
    private final String quarantine;
    private final String consequence;
    private transient ReadCounts total;
    private transient int ended;

    Gate(BadRowLimit limit, String what, String quarantine, String consequence) {
      this.limit = limit;
      this.what = what;
      this.quarantine = quarantine;
      this.consequence = consequence;
    }

    @Override
    public void processElement1(StreamRecord<ReadCounts> element) {
      total = total == null ? element.getValue() : total.plus(element.getValue());
    }

    @Override
    public void processElement2(StreamRecord<Long> element) {
      // only waited for: the quarantine files are complete once every writer sent its count
    }

    @Override
    public void endInput(int inputId) {
      if (++ended < 2) {
        return;
      }
      ReadCounts t = total == null ? new ReadCounts(0, 0, 0) : total;
      long records = t.rows() + t.quarantined();
      if (limit.exceeded(t.quarantined(), records)) {
        throw new IllegalStateException(
            String.format(
                Locale.ROOT,
                "%s%s: %,d of %,d records "
                    + "(%.2f%%) were quarantined (%,d of them for a NULL key), more than --max-bad-rows "
                    + "%s allows; %s%s",
                MARKER,
                what,
                t.quarantined(),
                records,
                100.0 * t.quarantined() / Math.max(1, records),
                t.nullKeys(),
                limit,
                quarantine == null
                    ? "the quarantine was not written (no --quarantine)"
                    : "each is in " + quarantine + " with its reason",
                consequence));
      }
      output.collect(new StreamRecord<>(0L));
    }
  }
}
