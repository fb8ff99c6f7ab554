package io.psiflink.jobs.prefilter;

/** The accumulators of the prefilter's operators, read into the job's summary. */
public final class PrefilterMetrics {
  /** Tokens kept by the combined filter, summed over the subtasks. */
  public static final String CANDIDATES = "prefilter candidates";

  /** Milliseconds from the exchange operator's end of input to the combined filter sent on. */
  public static final String MILLIS = "prefilter ms";

  /** Filter bytes sent to and received from the helper (2^L/8 each way: public). */
  public static final String BYTES_TO_HELPER = "prefilter bytes to helper";

  public static final String BYTES_FROM_HELPER = "prefilter bytes from helper";

  private PrefilterMetrics() {}
}
