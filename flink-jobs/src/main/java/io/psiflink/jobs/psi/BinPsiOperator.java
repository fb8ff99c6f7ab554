package io.psiflink.jobs.psi;

import io.psiflink.api.JobMetricNames;
import io.psiflink.api.JobMetricNames.Accumulators;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.jobs.bin.BinRouting;
import io.psiflink.jobs.bin.BinSpill;
import io.psiflink.jobs.bin.BinTable;
import io.psiflink.jobs.bin.RowBatch;
import io.psiflink.jobs.write.BinJournal;
import io.psiflink.nativepsi.PsiException;
import java.io.File;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.accumulators.LongMaximum;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Phases 4 to 6 for the bins of one subtask. Input 1: tokenized rows in {@link RowBatch}es of this
 * subtask's bins ({@link io.psiflink.jobs.bin.BinBatcher}; the key only routes them here), each row
 * appended to the subtask's {@link BinSpill}, a local file, so a party's set need not fit in
 * memory. Input 2: the party's total row count n, broadcast, which fixes the public padded bin
 * size. Once both inputs end, the subtask runs its bins in ascending order, one PSI exchange per
 * bin over the bridge. Ascending order on both sides cannot deadlock, whatever the two jobs'
 * parallelism: the smallest unfinished bin is always being worked on by both parties. A bin that
 * fails is retried alone, as a new attempt on the bridge; other bins are not redone. The output
 * party emits the joined rows in {@link io.psiflink.connectors.row.RowCodec} encoding, for {@link
 * io.psiflink.connectors.TableSink#writeEncoded}; party B emits nothing.
 *
 * <p>Resuming: with a {@link BinJournal} (the output party of a resumable run) each bin's rows are
 * committed to it as the bin completes. A resumed run skips the bins the earlier run committed
 * ({@code resumed}, the same at both parties; their rows never reach this operator): the output
 * party emits their rows from the journal, the other party nothing.
 *
 * <p>Threads: the spill and the output belong to the task's mailbox thread, which loads each bin,
 * and emits its rows; the bin's network exchange ({@link BinExchange#exchange}, blocking on the
 * bridge's queues) runs on a dedicated thread meanwhile, and the mailbox thread yields to other
 * mail (cancellation, metrics) until it completes. Retries wait on a delayed executor, not a sleep.
 */
public final class BinPsiOperator extends AbstractStreamOperator<byte[]>
    implements TwoInputStreamOperator<byte[], Long, byte[]>, BoundedMultiInput {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(BinPsiOperator.class);

  private final BinProtocol protocol;
  private final BridgeEndpoint bridge;
  private final BinRouting routing;
  private final BinJournal journal;
  private final java.util.BitSet resumed;

  private transient BinProtocol.Runner runner;

  private transient BinSpill spill;
  private transient RowBatch.Rows rows;
  private transient long totalRows;
  private transient int totalsSeen;
  private transient boolean input1Done;
  private transient boolean input2Done;
  private transient Counter binsDone;
  private transient Counter bytesSent;
  private transient Counter bytesReceived;
  private transient Counter retries;
  private transient Counter rowsOut;
  private transient PhaseClock clock;
  private transient MailboxExecutor mailbox;

  /**
   * @param protocol what each bin runs; it reads the session's keys in {@link #open}: they are
   *     never fields of the operator, so never in the job graph
   * @param routing how the input is keyed: a batch carries {@code routing.key(bin)} of its first
   *     bin as its key
   */
  public BinPsiOperator(BinProtocol protocol, BridgeEndpoint bridge, BinRouting routing) {
    this(protocol, bridge, routing, null, new java.util.BitSet());
  }

  /**
   * @param journal where the output party commits each completed bin's rows, or null
   * @param resumed the bins an earlier run of the session committed: not run again
   */
  public BinPsiOperator(
      BinProtocol protocol,
      BridgeEndpoint bridge,
      BinRouting routing,
      BinJournal journal,
      java.util.BitSet resumed) {
    this.protocol = protocol;
    this.bridge = bridge;
    this.routing = routing;
    this.journal = journal;
    this.resumed = (java.util.BitSet) resumed.clone();
  }

  @Override
  public void setMailboxExecutor(MailboxExecutor mailboxExecutor) {
    super.setMailboxExecutor(mailboxExecutor);
    this.mailbox = mailboxExecutor;
  }

  @Override
  public void open() throws Exception {
    super.open();
    if (mailbox == null) { // created without an operator factory that hands one over
      mailbox =
          getContainingTask()
              .getMailboxExecutorFactory()
              .createExecutor(getOperatorConfig().getChainIndex());
    }
    runner = protocol.open(getRuntimeContext(), new SecureRandom());
    File[] dirs = getContainingTask().getEnvironment().getIOManager().getSpillingDirectories();
    int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
    spill = new BinSpill(dirs[subtask % dirs.length].toPath(), routing.bins());
    rows = new RowBatch.Rows();
    // the coordinator's progress reader (FlinkProgress) finds these by the same names
    var metrics = getMetricGroup().addGroup(JobMetricNames.PSI_GROUP);
    binsDone = metrics.counter(JobMetricNames.BINS_DONE);
    bytesSent = metrics.counter(JobMetricNames.BYTES_SENT);
    bytesReceived = metrics.counter(JobMetricNames.BYTES_RECEIVED);
    retries = metrics.counter(JobMetricNames.BIN_RETRIES);
    rowsOut = metrics.counter(JobMetricNames.ROWS_OUT);
    int owned = ownedBins().size();
    metrics.gauge(JobMetricNames.BINS_TOTAL, () -> owned);
    clock = new PhaseClock(getRuntimeContext());
  }

  /** The operator keeps no keyed state: Flink need not set (and serialize) each row's key. */
  @Override
  public void setKeyContextElement1(StreamRecord record) {}

  @Override
  public void processElement1(StreamRecord<byte[]> element) throws Exception {
    byte[] b = element.getValue();
    RowBatch.Rows r = rows.read(b);
    for (int i = 0; i < r.count; i++) {
      spill.add((int) r.tags[i], b, r.offsets[i], r.lengths[i]);
    }
  }

  @Override
  public void processElement2(StreamRecord<Long> element) {
    totalRows += element.getValue();
    totalsSeen++;
  }

  @Override
  public void endInput(int inputId) throws Exception {
    if (inputId == 1) {
      input1Done = true;
    } else {
      input2Done = true;
    }
    if (input1Done && input2Done) {
      clock.mark(Accumulators.SPILL_END);
      runBins();
    }
  }

  @Override
  public void close() throws Exception {
    try {
      if (spill != null) {
        spill.close();
      }
    } finally {
      super.close();
    }
  }

  /** The bins this subtask owns, ascending; checks that Flink routes their keys here. */
  private List<Integer> ownedBins() {
    var info = getRuntimeContext().getTaskInfo();
    List<Integer> owned = routing.binsOf(info.getIndexOfThisSubtask());
    for (int b : owned) {
      if (KeyGroupRangeAssignment.assignKeyToParallelOperator(
              routing.key(b),
              info.getMaxNumberOfParallelSubtasks(),
              info.getNumberOfParallelSubtasks())
          != info.getIndexOfThisSubtask()) {
        throw new IllegalStateException(
            "bin "
                + b
                + " is not routed to subtask "
                + info.getIndexOfThisSubtask()
                + ": the operator's parallelism or max parallelism "
                + "differs from the routing's");
      }
    }
    return owned;
  }

  private void runBins() throws Exception {
    if (totalsSeen != 1) {
      throw new IllegalStateException(
          "expected the party's row count once, got " + totalsSeen + " values");
    }
    // what the bins announce in HELLO and pad to, for the summary (the same on every subtask)
    clock.maximum(Accumulators.ROWS_ANNOUNCED, totalRows);
    List<Integer> owned = ownedBins();
    long psiNanos = 0;
    long payloadNanos = 0;
    ExecutorService network =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t =
                  new Thread(
                      r,
                      "psi bins of " + getRuntimeContext().getTaskInfo().getTaskNameWithSubtasks());
              t.setDaemon(true);
              return t;
            });
    // B of a labeled join learns nothing of the intersection: its logs say nothing of it either
    boolean learns = protocol.learnsIntersection();
    try (BridgeClient client = BridgeClient.connect(bridge.clientConfig())) {
      int done = 0;
      for (int bin : owned) {
        if (resumed.get(bin)) {
          long rows = journal == null ? 0 : journal.replay(bin, this::emit);
          rowsOut.inc(rows);
          binsDone.inc();
          clock.add(Accumulators.ROWS_OUT, rows);
          clock.add(Accumulators.BINS_DONE, 1);
          clock.add(Accumulators.BINS_RESUMED, 1);
          done++;
          LOG.info(
              "party {} bin {} done ({} of {} on this subtask): committed by an earlier run, {}",
              protocol.party(),
              bin,
              done,
              owned.size(),
              journal == null ? "skipped" : rows + " rows out of the journal");
          continue;
        }
        BinTable table = new BinTable(spill.read(bin));
        long start = System.nanoTime();
        BinExchange.BinResult result = exchangeWithRetries(client, network, bin, table);
        BinExchange.BinStats stats = result.stats();
        long emitStart = System.nanoTime();
        if (journal == null) {
          result.output().emitTo(this::emit);
        } else {
          try (BinJournal.Entry entry = journal.open(bin)) {
            result
                .output()
                .emitTo(
                    row -> {
                      entry.add(row);
                      emit(row);
                    });
            entry.commit();
          }
        }
        psiNanos += stats.psiNanos();
        payloadNanos += stats.payloadNanos() + (System.nanoTime() - emitStart);
        binsDone.inc();
        bytesSent.inc(stats.bytesSent());
        bytesReceived.inc(stats.bytesReceived());
        rowsOut.inc(stats.rowsOut());
        clock.add(Accumulators.BYTES_SENT, stats.bytesSent());
        clock.add(Accumulators.BYTES_RECEIVED, stats.bytesReceived());
        clock.add(Accumulators.INTERSECTING, stats.intersecting());
        clock.add(Accumulators.BINS_DONE, 1);
        clock.add(Accumulators.ROWS_OUT, stats.rowsOut());
        done++;
        LOG.info(
            "party {} bin {} done ({} of {} on this subtask): {} rows, {} distinct keys, {}, "
                + "{} rows out, {} bytes sent, {} received, {} ms",
            protocol.party(),
            bin,
            done,
            owned.size(),
            table.rows(),
            table.distinct(),
            learns ? stats.intersecting() + " intersecting" : "intersection not learned (labeled)",
            stats.rowsOut(),
            stats.bytesSent(),
            stats.bytesReceived(),
            (System.nanoTime() - start) / 1_000_000);
      }
    } finally {
      // on success idle; on failure or cancellation its exchange is aborted by the client's close
      network.shutdownNow();
    }
    clock.add(Accumulators.PSI_MS, psiNanos / 1_000_000);
    clock.add(Accumulators.PAYLOAD_MS, payloadNanos / 1_000_000);
    clock.mark(Accumulators.PSI_END);
  }

  private void emit(byte[] row) {
    output.collect(new StreamRecord<>(row));
  }

  /**
   * Runs the bin's exchange on {@code network}, retrying a failed attempt after a backoff, while
   * this (mailbox) thread yields. Longer than gRPC's first reconnect backoff (1 s), so a dropped
   * connection is back.
   */
  private BinExchange.BinResult exchangeWithRetries(
      BridgeClient client, ExecutorService network, int bin, BinTable table) throws Exception {
    Executor next = network;
    for (int attempt = 1; ; attempt++) {
      int a = attempt;
      CompletableFuture<BinExchange.BinResult> f =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return runner.run(client, bin, table, totalRows, a);
                } catch (Exception e) {
                  throw new java.util.concurrent.CompletionException(e);
                }
              },
              next);
      Exception e;
      try {
        return MailboxWait.await(mailbox, f);
      } catch (BridgeException | PeerProtocolException | PsiException failed) {
        e = failed;
      }
      if (attempt >= protocol.maxAttempts()) {
        throw new BinFailedException(bin, attempt, e);
      }
      retries.inc();
      clock.add(Accumulators.BIN_RETRIES, 1);
      LOG.warn(
          "party {} bin {} attempt {} of {} failed, retrying the bin alone: {}",
          protocol.party(),
          bin,
          attempt,
          protocol.maxAttempts(),
          e.getMessage());
      next =
          CompletableFuture.delayedExecutor(
              Math.min(10_000, 1_000L << attempt), TimeUnit.MILLISECONDS, network);
    }
  }

  /** A bin failed on every attempt; the job fails with the last cause. */
  public static final class BinFailedException extends Exception {
    private static final long serialVersionUID = 1L;

    BinFailedException(int bin, int attempts, Exception cause) {
      super(
          "bin " + bin + " failed after " + attempts + " attempt(s): " + cause.getMessage(), cause);
    }
  }

  /** Wall-clock marks and totals as job accumulators, for the job summary. */
  public static final class PhaseClock {
    private final org.apache.flink.api.common.functions.RuntimeContext rc;

    public PhaseClock(org.apache.flink.api.common.functions.RuntimeContext rc) {
      this.rc = rc;
    }

    public void mark(String name) {
      LongMaximum m = (LongMaximum) rc.<Long, Long>getAccumulator(name);
      if (m == null) {
        m = new LongMaximum();
        rc.addAccumulator(name, m);
      }
      m.add(System.currentTimeMillis());
    }

    public void maximum(String name, long value) {
      LongMaximum m = (LongMaximum) rc.<Long, Long>getAccumulator(name);
      if (m == null) {
        m = new LongMaximum();
        rc.addAccumulator(name, m);
      }
      m.add(value);
    }

    public void add(String name, long value) {
      LongCounter c = (LongCounter) rc.<Long, Long>getAccumulator(name);
      if (c == null) {
        c = new LongCounter();
        rc.addAccumulator(name, c);
      }
      c.add(value);
    }
  }
}
