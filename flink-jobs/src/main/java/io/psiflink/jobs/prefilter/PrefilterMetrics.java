package io.psiflink.jobs.prefilter;

/** The accumulators of the prefilter's operators, read into the job's summary. */
public final class PrefilterMetrics {
  /** Tokens kept by the combined filter, summed over the subtasks. */
  public static final String CANDIDATES = "prefilter candidates";

  /** Milliseconds from the exchange operator's end of input to the AND sent on. */
  public static final String MILLIS = "prefilter ms";

  /**
   * Bytes sent to and received from the helper: none sent (the helper takes no data), its seed and,
   * at A, m_σ (2^L/8 bytes): public.
   */
  public static final String BYTES_TO_HELPER = "prefilter bytes to helper";

  public static final String BYTES_FROM_HELPER = "prefilter bytes from helper";

  /** Bytes of the AND sent to and received from the peer's job (2^L/8 per chunk stream: public). */
  public static final String BYTES_TO_PEER = "prefilter bytes to peer";

  public static final String BYTES_FROM_PEER = "prefilter bytes from peer";

  private PrefilterMetrics() {}
}
