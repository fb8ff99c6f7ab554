package io.psiflink.jobs;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import io.psiflink.api.PublicSize;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.Map;

/**
 * What one party's job did: row counts per stage (rowsRead: rows that were read well, without the
 * quarantined ones; rowsWithNullKey: rows quarantined for a NULL key, a part of rowsQuarantined),
 * PSI totals, bytes on the bridge, and wall-clock seconds per phase. Phases: handshake (key
 * agreement and protocol setup), tokenize (read, filter, tokenize), binSpill (shuffle to bins,
 * append to the bins' spill), psi and lookupPayload (the bins' PSI rounds, and their reverse
 * lookup, payload exchange and join; the wall time of the bin stage is split between the two in
 * proportion to the time the bins spent in each), write (until the job finished). publicSize: the
 * party's {@link PublicSize} policy; rowsDisclosed: the n its bins announced to the peer and padded
 * to (all the peer learns of its size); intersectingKeys: null (left out of the JSON) for a party
 * that does not learn the intersection (B in the labeled mode). prefilter: with {@code --prefilter
 * helper} ({@link PrefilterSummary}), else null (left out of the JSON).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonPropertyOrder({
  "party",
  "public_size",
  "rows_disclosed",
  "rows_read",
  "rows_quarantined",
  "rows_filtered_out",
  "rows_with_null_key",
  "rows_tokenized",
  "bins",
  "bins_done",
  "bin_retries",
  "intersecting_keys",
  "rows_out",
  "bytes_sent",
  "bytes_received",
  "phase_seconds",
  "total_seconds",
  "peak_rss_bytes",
  "prefilter"
})
public record JobSummary(
    String party,
    String publicSize,
    long rowsDisclosed,
    long rowsRead,
    long rowsQuarantined,
    long rowsFilteredOut,
    long rowsWithNullKey,
    long rowsTokenized,
    int bins,
    long binsDone,
    long binRetries,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long intersectingKeys,
    long rowsOut,
    long bytesSent,
    long bytesReceived,
    @JsonSerialize(contentUsing = JobSummary.Seconds.class) Map<String, Double> phaseSeconds,
    @JsonSerialize(using = JobSummary.Seconds.class) double totalSeconds,
    long peakRssBytes,
    @JsonInclude(JsonInclude.Include.NON_NULL) PrefilterSummary prefilter) {

  /** A summary of a job without a prefilter. */
  public JobSummary(
      String party,
      String publicSize,
      long rowsDisclosed,
      long rowsRead,
      long rowsQuarantined,
      long rowsFilteredOut,
      long rowsWithNullKey,
      long rowsTokenized,
      int bins,
      long binsDone,
      long binRetries,
      Long intersectingKeys,
      long rowsOut,
      long bytesSent,
      long bytesReceived,
      Map<String, Double> phaseSeconds,
      double totalSeconds,
      long peakRssBytes) {
    this(
        party,
        publicSize,
        rowsDisclosed,
        rowsRead,
        rowsQuarantined,
        rowsFilteredOut,
        rowsWithNullKey,
        rowsTokenized,
        bins,
        binsDone,
        binRetries,
        intersectingKeys,
        rowsOut,
        bytesSent,
        bytesReceived,
        phaseSeconds,
        totalSeconds,
        peakRssBytes,
        null);
  }

  /**
   * What the prefilter did: the helper, L and k, this party's candidates (the rows that went on to
   * the PSI, of rows_tokenized), the seconds from the end of this party's filter to the AND of
   * both, the bytes to and from the helper (none to it; its seed, and m_σ of 2^L/8 bytes at A) and
   * those of the AND to and from the peer (2^L/8 per step).
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonPropertyOrder({
    "helper",
    "filter_bits",
    "filter_hashes",
    "candidates",
    "seconds",
    "bytes_to_helper",
    "bytes_from_helper",
    "bytes_to_peer",
    "bytes_from_peer"
  })
  public record PrefilterSummary(
      String helper,
      int filterBits,
      int filterHashes,
      long candidates,
      @JsonSerialize(using = JobSummary.Seconds.class) double seconds,
      long bytesToHelper,
      long bytesFromHelper,
      long bytesToPeer,
      long bytesFromPeer) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The summary as one JSON object (PartyMain's {@code --summary} file, read by the coordinator):
   * the fields in snake case, in the order above, seconds to the millisecond.
   */
  public String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the job summary as JSON", e);
    }
  }

  /** Reads {@link #toJson()}. */
  public static JobSummary fromJson(String json) throws JsonProcessingException {
    return JSON.readValue(json, JobSummary.class);
  }

  /** Seconds as the summary has always shown them: three decimals (milliseconds). */
  static final class Seconds extends StdSerializer<Double> {
    private static final long serialVersionUID = 1L;

    Seconds() {
      super(Double.class);
    }

    @Override
    public void serialize(Double v, JsonGenerator gen, SerializerProvider p) throws IOException {
      if (Double.isFinite(v)) {
        gen.writeNumber(BigDecimal.valueOf(v).setScale(3, RoundingMode.HALF_UP));
      } else {
        gen.writeNumber(v); // not a time; Jackson's rendering rather than an exception
      }
    }
  }

  /** A few human-readable lines. */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "party %s: %,d rows read, %,d quarantined (%,d of them with "
                + "a NULL key), %,d filtered out by WHERE, %,d tokenized%n",
            party,
            rowsRead,
            rowsQuarantined,
            rowsWithNullKey,
            rowsFilteredOut,
            rowsTokenized));
    sb.append(
        String.format(
            Locale.ROOT,
            "party %s: disclosed n = %,d to the peer (public size %s)%n",
            party,
            rowsDisclosed,
            publicSize));
    sb.append(
        String.format(
            Locale.ROOT,
            "party %s: %d bins (%d retried), %s, " + "%,d rows out, %,d bytes sent, %,d received%n",
            party,
            bins,
            binRetries,
            intersectingKeys == null
                ? "intersection not learned (labeled mode)"
                : String.format(Locale.ROOT, "%,d intersecting keys", intersectingKeys),
            rowsOut,
            bytesSent,
            bytesReceived));
    if (prefilter != null) {
      sb.append(
          String.format(
              Locale.ROOT,
              "party %s: prefilter with helper '%s' (2^%d bits, k = %d): %,d candidates of %,d "
                  + "tokenized rows, %.1f s, %,d bytes from the helper, %,d to the peer and %,d"
                  + " from it%n",
              party,
              prefilter.helper(),
              prefilter.filterBits(),
              prefilter.filterHashes(),
              prefilter.candidates(),
              rowsTokenized,
              prefilter.seconds(),
              prefilter.bytesFromHelper(),
              prefilter.bytesToPeer(),
              prefilter.bytesFromPeer()));
    }
    sb.append(String.format(Locale.ROOT, "party %s: %.1f s in all:", party, totalSeconds));
    phaseSeconds.forEach((k, v) -> sb.append(String.format(Locale.ROOT, " %s %.1f s,", k, v)));
    sb.setLength(sb.length() - 1);
    sb.append(
        String.format(Locale.ROOT, "; peak RSS %.2f GiB", peakRssBytes / (double) (1L << 30)));
    return sb.toString();
  }
}
