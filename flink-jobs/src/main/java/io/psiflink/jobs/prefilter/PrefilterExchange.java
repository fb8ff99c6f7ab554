package io.psiflink.jobs.prefilter;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.helper.HelperClient;
import io.psiflink.helper.HelperException;
import io.psiflink.helper.HelperRequest;
import io.psiflink.jobs.psi.BridgeEndpoint;
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
 * This party's half of Table 1 of the paper (parallelism 1): ORs the partial filters of {@link
 * BloomPartial} into B'_i, sends m_i = B'_i XNOR M ({@link FilterMask}) to the helper chunk by
 * chunk and receives B_C = m_A XNOR m_B (= NOT(B'_A XOR B'_B)), turns B'_i into F = B_C AND B'_i (=
 * B'_A AND B'_B) in place, one filter in memory, and emits F's pieces with a set bit for {@link
 * CandidateSelect}. Only the masked filter leaves the party; the log and the accumulators hold L,
 * k, this party's own fill ratio, the duration and the (public, 2^L-determined) byte counts.
 */
public final class PrefilterExchange extends AbstractStreamOperator<long[]>
    implements OneInputStreamOperator<long[], long[]>, BoundedOneInput {
  private static final long serialVersionUID = 1L;

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

  private transient long[] filter;
  private transient FilterMask mask;

  /**
   * @param helperCertSha256 the helper's certificate pin (hex), or null to accept any certificate
   *     of {@code helper} from a trusted CA
   */
  public PrefilterExchange(
      PrefilterPlan plan,
      String secretsName,
      BridgeEndpoint bridge,
      String session,
      Role role,
      String peer,
      String helper,
      String helperCertSha256) {
    this.plan = plan;
    this.secretsName = secretsName;
    this.bridge = bridge;
    this.session = session;
    this.role = role;
    this.peer = peer;
    this.helper = helper;
    this.helperCertSha256 = helperCertSha256;
  }

  @Override
  public void open() throws Exception {
    super.open();
    JobSecrets secrets = JobSecrets.fromCache(getRuntimeContext(), secretsName);
    if (secrets.maskSeed() == null) {
      throw new IllegalStateException("the session's secrets hold no prefilter mask seed");
    }
    mask = new FilterMask(secrets.maskSeed());
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
    // the source runs on the client's sender thread, the sink on this one
    java.util.concurrent.atomic.AtomicLong sent = new java.util.concurrent.atomic.AtomicLong();
    long[] received = {0};
    int chunks = HelperClient.chunks(plan.filterBits());
    long[] offsets = new long[chunks + 1];
    for (int c = 0; c < chunks; c++) {
      offsets[c + 1] = offsets[c] + HelperClient.chunkWords(plan.filterBits(), c);
    }
    if (offsets[chunks] != filter.length) {
      throw new IllegalStateException(
          "the helper client's chunks cover " + offsets[chunks] + " words, not " + filter.length);
    }
    HelperRequest request =
        new HelperRequest(
            session, role, peer, helper, helperCertSha256, plan.filterBits(), bridge.pairTimeout());
    try (BridgeClient client = BridgeClient.connect(bridge.clientConfig())) {
      HelperClient.exchange(
          client,
          bridge.credentials(),
          request,
          c -> {
            // m_c = B'_c XNOR M_c, computed when the client asks for it: one chunk at a time
            int off = (int) offsets[c];
            int len = (int) (offsets[c + 1] - off);
            long[] m = new long[len];
            mask.xnor(off, filter, off, m, 0, len);
            sent.addAndGet(8L * len);
            return m;
          },
          (c, words) -> {
            int off = (int) offsets[c];
            int len = (int) (offsets[c + 1] - off);
            if (words.length != len) {
              throw new IllegalStateException(
                  "the helper's chunk " + c + " has " + words.length + " words, not " + len);
            }
            // F = B_C AND B'_i, in place: chunk c of B' was sent before the helper answered it
            for (int i = 0; i < len; i++) {
              filter[off + i] &= words[i];
            }
            received[0] += 8L * len;
          });
    } catch (HelperException | BridgeException e) {
      // the helper refused, vanished or never came: the join cannot go on without F
      throw new PrefilterException(
          "party "
              + role.label()
              + ": the prefilter with helper '"
              + helper
              + "' failed: "
              + e.getMessage(),
          e);
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
    counter(PrefilterMetrics.BYTES_TO_HELPER).add(sent.get());
    counter(PrefilterMetrics.BYTES_FROM_HELPER).add(received[0]);
    LOG.info(
        "party {}: prefilter exchange with helper '{}' done in {} ms ({} bytes each way)",
        role.label(),
        helper,
        ms,
        sent.get());
    filter = null;
  }

  private LongCounter counter(String name) {
    LongCounter c = new LongCounter();
    getRuntimeContext().addAccumulator(name, c);
    return c;
  }

  /** The exchange with the helper failed; the message names the helper and the cause. */
  public static final class PrefilterException extends Exception {
    private static final long serialVersionUID = 1L;

    PrefilterException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
