package io.psiflink.jobs.prefilter;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.BridgeTimeoutException;
import io.psiflink.helper.CorrelationStreams;
import io.psiflink.helper.HelperClient;
import io.psiflink.helper.HelperException;
import io.psiflink.helper.HelperRequest;
import io.psiflink.jobs.psi.BridgeEndpoint;
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
 * helper"): ORs the partial filters of {@link BloomPartial} into its filter (x at A, y at B), gets
 * its random correlation from the helper, computes x · y with the peer's job over the bridge, chunk
 * by chunk, and emits the AND's pieces with a set bit for {@link CandidateSelect}.
 *
 * <p>Per chunk: A sends e = x ⊕ σ; B answers w = y ⊕ m_{1⊕e}; A computes c = x · (w ⊕ m_σ) and
 * sends it; B checks c ⊆ y. A runs its steps as the helper's m_σ chunks arrive; B runs its loop
 * once its seed arrived, before the helper's end of session (which waits for A). The frames travel
 * sealed under the session's frame key as stream {@link SealedBinStream#PREFILTER}. The log and
 * accumulators hold L, k, this party's own fill ratio, the duration and byte counts, which depend
 * on L only.
 */
public final class PrefilterExchange extends AbstractStreamOperator<long[]>
    implements OneInputStreamOperator<long[], long[]>, BoundedOneInput {
  private static final long serialVersionUID = 1L;

  /** The A-B stream of the AND. */
  static final String CHANNEL = "prefilter";

  /** Our own logger: the inherited LOG is Flink's (AbstractStreamOperator), logged at WARN. */
  private static final Logger LOG = LoggerFactory.getLogger(PrefilterExchange.class);

  private final PrefilterPlan plan;
  private final String secretsName;
  private final BridgeEndpoint bridge;
  private final String session;
  private final Role role;
  private final String peer;
  private final String helper;
  private final String helperCertSha256;
  private final int attempts;

  private transient long[] filter;
  private transient byte[] frameKey;

  /**
   * @param helperCertSha256 the helper's certificate pin (hex), or null to accept any certificate
   *     of {@code helper} from a trusted CA
   * @param attempts pair timeouts to wait for the peer's job to reach its pre-filter (as a bin
   *     waits out a slower peer: the peer may still be tokenizing a larger table)
   */
  public PrefilterExchange(
      PrefilterPlan plan,
      String secretsName,
      BridgeEndpoint bridge,
      String session,
      Role role,
      String peer,
      String helper,
      String helperCertSha256,
      int attempts) {
    this.plan = plan;
    this.secretsName = secretsName;
    this.bridge = bridge;
    this.session = session;
    this.role = role;
    this.peer = peer;
    this.helper = helper;
    this.helperCertSha256 = helperCertSha256;
    this.attempts = attempts;
  }

  @Override
  public void open() throws Exception {
    super.open();
    frameKey = JobSecrets.fromCache(getRuntimeContext(), secretsName).frameKey();
    filter = new long[Math.toIntExact(plan.words())];
  }

  @Override
  public void processElement(StreamRecord<long[]> element) {
    FilterChunks.orInto(element.getValue(), filter);
  }

  @Override
  public void endInput() throws Exception {
    long start = System.currentTimeMillis();
    double fill = FilterChunks.ones(filter) / (double) (1L << plan.filterBits());
    LOG.info(
        "party {}: prefilter with helper '{}': 2^{} bits, k = {}, own filter {}% set",
        role.label(),
        helper,
        plan.filterBits(),
        plan.hashes(),
        String.format(Locale.ROOT, "%.3f", 100 * fill));
    int chunks = HelperClient.chunks(plan.filterBits());
    HelperRequest request =
        new HelperRequest(
            session, role, peer, helper, helperCertSha256, plan.filterBits(), bridge.pairTimeout());
    FilterAnd and;
    try (BridgeClient client = BridgeClient.connect(bridge.clientConfig())) {
      BridgeStream raw = openPeerStream(client);
      try (SealedBinStream peerStream =
          new SealedBinStream(raw, frameKey, SealedBinStream.PREFILTER, role)) {
        and = new FilterAnd(peerStream, filter, plan.filterBits(), role);
        // B runs all of its side in onSeed: A's steps need only the helper's chunks and B's answers
        HelperClient.receive(client, bridge.credentials(), request, and::seed, and::chunk);
        if (and.done() != chunks) {
          throw new PrefilterException(
              "party "
                  + role.label()
                  + ": the prefilter ended after "
                  + and.done()
                  + " of "
                  + chunks
                  + " chunks",
              null);
        }
        peerStream.finish();
        if (peerStream.receive() != null) {
          throw new PeerProtocolException(
              "party " + role.peer().label() + " sent more than the prefilter's chunks");
        }
      } catch (BridgeException | PeerProtocolException | FilterAnd.Failure e) {
        raw.abort("the prefilter failed at party " + role.label());
        throw e;
      } finally {
        raw.close();
      }
    } catch (HelperException | BridgeException | PeerProtocolException | FilterAnd.Failure e) {
      // the helper refused, vanished or never came, or the peer's job broke off: no AND, no join
      Throwable cause = e instanceof FilterAnd.Failure f ? f.getCause() : e;
      throw new PrefilterException(
          "party "
              + role.label()
              + ": the prefilter with helper '"
              + helper
              + "' failed: "
              + cause.getMessage(),
          cause);
    }
    for (int from = 0; from < filter.length; from += FilterChunks.WORDS) {
      int len = Math.min(FilterChunks.WORDS, filter.length - from);
      if (FilterChunks.anySet(filter, from, len)) {
        output.collect(new StreamRecord<>(FilterChunks.of(filter, from, len)));
      }
    }
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
        helper,
        ms,
        and.sent(),
        and.received(),
        fromHelper);
    filter = null;
  }

  /**
   * The stream of the AND with the peer's job, which comes when its own filter is done: up to
   * {@code attempts} pair timeouts, so a party with the smaller table waits out the other's
   * tokenizing (both then reach the helper together).
   */
  private BridgeStream openPeerStream(BridgeClient client) throws BridgeException {
    for (int attempt = 1; ; attempt++) {
      try {
        return client.open(session, CHANNEL);
      } catch (BridgeTimeoutException e) {
        if (attempt >= attempts) {
          throw e;
        }
        LOG.info(
            "party {}: the peer's job has not reached its pre-filter within {} (wait {} of {})",
            role.label(),
            bridge.pairTimeout(),
            attempt,
            attempts);
      }
    }
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
