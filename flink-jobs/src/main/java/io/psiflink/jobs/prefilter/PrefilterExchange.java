package io.psiflink.jobs.prefilter;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.helper.CorrelationStreams;
import io.psiflink.helper.HelperClient;
import io.psiflink.jobs.psi.PeerProtocolException;
import io.psiflink.jobs.psi.SealedBinStream;
import io.psiflink.jobs.session.JobSecrets;
import java.util.Locale;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This party's side of the pre-filter's AND (parallelism 1; docs/security.md, "Pre-filtering with a
 * helper"): ORs the partial filters of {@link BloomPartial} into its filter (x at A, y at B), takes
 * what {@link PrefilterPrefetch} received while the table was read (the helper's deal and, at the
 * sender, the chooser's e: {@link Received} records beside the pieces), computes x · y with the
 * peer's job over the bridge ({@link FilterAnd}) and emits the AND's pieces with a set bit for
 * {@link CandidateSelect}. The chooser first sends its e (stream {@link
 * PrefilterLink#CHOICES_CHANNEL}, to the sender's prefetch), then both run the AND's w and c
 * (stream {@link PrefilterLink#AND_CHANNEL}): one filter's worth of bits each way at once. Both
 * streams are sealed under the session's frame key as stream {@link SealedBinStream#PREFILTER}. The
 * log and accumulators hold L, k, this party's own fill ratio, the duration and byte counts, which
 * depend on L only.
 */
public final class PrefilterExchange extends AbstractStreamOperator<long[]>
    implements OneInputStreamOperator<long[], long[]>, BoundedOneInput {
  private static final long serialVersionUID = 1L;

  /** Our own logger: the inherited LOG is Flink's (AbstractStreamOperator), logged at WARN. */
  private static final Logger LOG = LoggerFactory.getLogger(PrefilterExchange.class);

  private final PrefilterPlan plan;
  private final String secretsName;
  private final PrefilterLink link;

  private transient long[] filter;
  private transient byte[] frameKey;
  private transient byte[] seed;
  private transient long[][] mSigma;
  private transient long[][] choices;

  public PrefilterExchange(PrefilterPlan plan, String secretsName, PrefilterLink link) {
    this.plan = plan;
    this.secretsName = secretsName;
    this.link = link;
  }

  @Override
  public void open() throws Exception {
    super.open();
    frameKey = JobSecrets.read(getRuntimeContext(), secretsName).frameKey();
    filter = new long[Math.toIntExact(plan.words())];
    int chunks = HelperClient.chunks(plan.filterBits());
    mSigma = new long[chunks][];
    choices = new long[chunks][];
  }

  @Override
  public void processElement(StreamRecord<long[]> element) {
    long[] r = element.getValue();
    if (!Received.is(r)) {
      FilterChunks.orInto(r, filter);
      return;
    }
    int kind = Received.kind(r);
    int index = Received.index(r);
    switch (kind) {
      case Received.SEED -> seed = Received.seedBytes(r);
      case Received.M_SIGMA -> mSigma[index] = Received.words(r);
      case Received.CHOICE -> choices[index] = Received.words(r);
      default -> throw new IllegalStateException("a received record of kind " + kind);
    }
  }

  @Override
  public void endInput() throws Exception {
    long start = System.currentTimeMillis();
    double fill = FilterChunks.ones(filter) / (double) (1L << plan.filterBits());
    Role role = link.role();
    LOG.info(
        "party {}: prefilter with helper '{}': 2^{} bits, k = {}, own filter {}% set",
        role.label(),
        link.helper(),
        plan.filterBits(),
        plan.hashes(),
        String.format(Locale.ROOT, "%.3f", 100 * fill));
    boolean chooses = role.equals(plan.chooser());
    if (seed == null) {
      throw new IllegalStateException("the pre-filter's exchange got no seed from its prefetch");
    }
    for (int c = 0; c < mSigma.length; c++) {
      if ((role.equals(Role.A) && mSigma[c] == null) || (!chooses && choices[c] == null)) {
        throw new IllegalStateException(
            "the pre-filter's exchange lacks chunk " + c + " of what its prefetch received");
      }
    }
    FilterAnd and =
        new FilterAnd(
            filter,
            plan.filterBits(),
            role,
            plan.chooser(),
            new HelperClient.Dealt(seed),
            c -> {
              long[] words = mSigma[c];
              mSigma[c] = null; // used once: let it go
              return words;
            });
    try (BridgeClient client = BridgeClient.connect(link.bridge().clientConfig())) {
      if (chooses) {
        try (BridgeStream raw = link.open(client, PrefilterLink.CHOICES_CHANNEL);
            SealedBinStream s = sealed(raw)) {
          and.sendChoices(s);
          s.finish();
          if (s.receive() != null) {
            throw new PeerProtocolException(
                "party " + role.peer().label() + " sent data on the choices' stream");
          }
        }
      }
      try (BridgeStream raw = link.open(client, PrefilterLink.AND_CHANNEL);
          SealedBinStream s = sealed(raw)) {
        try {
          and.run(s, chooses ? null : choices);
          s.finish();
          if (s.receive() != null) {
            throw new PeerProtocolException(
                "party " + role.peer().label() + " sent more than the prefilter's chunks");
          }
        } catch (BridgeException | PeerProtocolException e) {
          raw.abort("the prefilter failed at party " + role.label());
          throw e;
        }
      }
    } catch (BridgeException | PeerProtocolException e) {
      // the peer's job broke off: no AND, no join
      throw link.failed(e);
    }
    choices = null;
    mSigma = null;
    FilterChunks.forEachSetPiece(filter, p -> output.collect(new StreamRecord<>(p)));
    long ms = System.currentTimeMillis() - start;
    // the job's metrics (Flink's REST API, the coordinator's progress): this party's own facts
    long fillPpm = Math.round(fill * 1e6);
    getMetricGroup().gauge("prefilterFilterBits", () -> plan.filterBits());
    getMetricGroup().gauge("prefilterHashes", () -> plan.hashes());
    getMetricGroup().gauge("prefilterFillPpm", () -> fillPpm);
    getMetricGroup().gauge("prefilterMillis", () -> ms);
    counter(PrefilterMetrics.MILLIS).add(ms);
    long fromHelper =
        CorrelationStreams.SEED_BYTES + (role.equals(Role.A) ? 8 * (long) filter.length : 0);
    counter(PrefilterMetrics.BYTES_TO_HELPER).add(0);
    counter(PrefilterMetrics.BYTES_FROM_HELPER).add(fromHelper);
    counter(PrefilterMetrics.BYTES_TO_PEER).add(and.sent());
    counter(PrefilterMetrics.BYTES_FROM_PEER).add(and.received());
    LOG.info(
        "party {}: prefilter with helper '{}' done in {} ms ({} bytes to the peer, {} from it, {}"
            + " from the helper)",
        role.label(),
        link.helper(),
        ms,
        and.sent(),
        and.received(),
        fromHelper);
    filter = null;
  }

  private SealedBinStream sealed(BridgeStream raw) {
    return new SealedBinStream(raw, frameKey, SealedBinStream.PREFILTER, link.role());
  }

  private LongCounter counter(String name) {
    LongCounter c = new LongCounter();
    getRuntimeContext().addAccumulator(name, c);
    return c;
  }

  /** The pre-filter failed; the message names the helper or the peer and the cause. */
  public static final class PrefilterException extends Exception {
    private static final long serialVersionUID = 1L;

    PrefilterException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
