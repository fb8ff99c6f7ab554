package io.psiflink.api;

/**
 * The names under which a party's Flink job shows itself to Flink's REST API, and that the
 * coordinator's progress reader looks for there: the job's name, the operators it finds by name and
 * the metrics of the PSI operator. The job names and registers them from here and the reader
 * matches them from here, so a rename on one side cannot silently blind the other.
 */
public final class JobMetricNames {
  private JobMetricNames() {}

  /** The operator that reads, filters and tokenizes a table: {@code "tokenize a"}, … */
  public static final String TOKENIZE_OPERATOR = "tokenize";

  /** The keyed operator that runs the bins' PSI, reverse lookup and payload exchange. */
  public static final String PSI_OPERATOR = "psi bins";

  /** The metric group of the PSI operator. */
  public static final String PSI_GROUP = "psi";

  /** Counter: bins this subtask has finished. */
  public static final String BINS_DONE = "binsDone";

  /** Gauge: bins this subtask owns. */
  public static final String BINS_TOTAL = "binsTotal";

  /** Counter: bytes this subtask sent to the peer over the bridge. */
  public static final String BYTES_SENT = "bytesSent";

  /** Counter: bytes this subtask received from the peer. */
  public static final String BYTES_RECEIVED = "bytesReceived";

  /** Counter: bin attempts that failed and were retried. */
  public static final String BIN_RETRIES = "binRetries";

  /** Counter: joined rows this subtask emitted. */
  public static final String ROWS_OUT = "rowsOut";

  /** Counter of a table's parse operator ({@code parse a}): rows read well. */
  public static final String ROWS_READ = "rowsRead";

  /** Counter of a table's parse operator: records quarantined (unreadable, NULL join key). */
  public static final String ROWS_QUARANTINED = "rowsQuarantined";

  /**
   * The job's accumulators: job totals, which the job reads back for its summary (PrivateJoinJob)
   * and Flink serves at {@code /jobs/<id>/accumulators}.
   */
  public static final class Accumulators {
    private Accumulators() {}

    public static final String BINS_DONE = "binsDone";
    public static final String BIN_RETRIES = "binRetries";

    /** Bins a resumed run took from the first run's journal instead of running them again. */
    public static final String BINS_RESUMED = "binsResumed";

    /** Keys of this party found in the intersection. */
    public static final String INTERSECTING = "intersecting";

    public static final String ROWS_OUT = "rowsOut";
    public static final String BYTES_SENT = "bytesSent";
    public static final String BYTES_RECEIVED = "bytesReceived";

    /** The n the bins announced to the peer (the party's public size). */
    public static final String ROWS_ANNOUNCED = "rowsAnnounced";

    /** Milliseconds the bins spent in their PSI rounds, summed. */
    public static final String PSI_MS = "psi.ms";

    /** Milliseconds the bins spent in reverse lookup, payload and join, summed. */
    public static final String PAYLOAD_MS = "payload.ms";

    /** Wall clock (epoch ms) when the last tokenize subtask ended. */
    public static final String TOKENIZE_END = "tokenize.end";

    /** Wall clock (epoch ms) when the last bin spill ended. */
    public static final String SPILL_END = "spill.end";

    /** Wall clock (epoch ms) when the last bin ended. */
    public static final String PSI_END = "psi.end";

    /** Rows the source of table {@code table} read well (connectors' TableSource). */
    public static String rowsRead(String table) {
      return table + "." + ROWS_READ;
    }

    /** Records the source of table {@code table} quarantined, NULL join keys included. */
    public static String rowsQuarantined(String table) {
      return table + "." + ROWS_QUARANTINED;
    }

    /**
     * Of {@link #rowsQuarantined}, the rows the source of table {@code table} quarantined because a
     * key column was NULL.
     */
    public static String rowsWithNullKeyQuarantined(String table) {
      return table + ".rowsWithNullKeyQuarantined";
    }

    /** Rows the tokenizer of table {@code table} tokenized. */
    public static String rowsTokenized(String table) {
      return table + ".rowsTokenized";
    }

    /** Rows the tokenizer of table {@code table} found with a NULL key. */
    public static String rowsWithNullKey(String table) {
      return table + ".rowsWithNullKey";
    }
  }

  /** The Flink job's name for one party's job of a session. */
  public static String jobName(Role party, String session) {
    return "psi-flink party " + party.label() + " session " + session;
  }

  /** The name of the tokenize operator of the table with qualifier {@code table} (a or b). */
  public static String tokenizeOperator(String table) {
    return TOKENIZE_OPERATOR + " " + table;
  }

  /**
   * A PSI-operator metric as Flink's REST API ends its id ({@code <operator>.psi.binsDone}): {@code
   * psi.<metric>}.
   */
  public static String psiMetric(String metric) {
    return PSI_GROUP + "." + metric;
  }
}
