package io.psiflink.jobs;

import io.psiflink.query.PublicSize;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What one party's job did: row counts per stage (rowsRead: rows that were read well, without
 * the quarantined ones; rowsWithNullKey: rows quarantined for a NULL key, a part of
 * rowsQuarantined), PSI totals, bytes on the bridge, and wall-clock
 * seconds per phase. Phases: handshake (key agreement and protocol setup), tokenize (read, filter,
 * tokenize), binSpill (shuffle to bins, append to RocksDB), psi and lookupPayload (the bins' PSI
 * rounds, and their reverse lookup, payload exchange and join; the wall time of the bin stage is
 * split between the two in proportion to the time the bins spent in each), write (until the job
 * finished). publicSize: the party's {@link PublicSize} policy; rowsDisclosed: the n its bins
 * announced to the peer and padded to (all the peer learns of its size).
 */
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
    long intersectingKeys,
    long rowsOut,
    long bytesSent,
    long bytesReceived,
    Map<String, Double> phaseSeconds,
    double totalSeconds,
    long peakRssBytes) {

  public String toJson() {
    StringBuilder sb = new StringBuilder();
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("party", party);
    f.put("public_size", publicSize);
    f.put("rows_disclosed", rowsDisclosed);
    f.put("rows_read", rowsRead);
    f.put("rows_quarantined", rowsQuarantined);
    f.put("rows_filtered_out", rowsFilteredOut);
    f.put("rows_with_null_key", rowsWithNullKey);
    f.put("rows_tokenized", rowsTokenized);
    f.put("bins", bins);
    f.put("bins_done", binsDone);
    f.put("bin_retries", binRetries);
    f.put("intersecting_keys", intersectingKeys);
    f.put("rows_out", rowsOut);
    f.put("bytes_sent", bytesSent);
    f.put("bytes_received", bytesReceived);
    f.put("phase_seconds", phaseSeconds);
    f.put("total_seconds", totalSeconds);
    f.put("peak_rss_bytes", peakRssBytes);
    appendObject(sb, f);
    return sb.toString();
  }

  private static void appendObject(StringBuilder sb, Map<String, ?> m) {
    sb.append('{');
    boolean first = true;
    for (Map.Entry<String, ?> e : m.entrySet()) {
      sb.append(first ? "" : ",").append('"').append(e.getKey()).append("\":");
      first = false;
      Object v = e.getValue();
      if (v instanceof String s) {
        sb.append('"').append(s.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
      } else if (v instanceof Double d) {
        sb.append(String.format(Locale.ROOT, "%.3f", d));
      } else if (v instanceof Map<?, ?> inner) {
        @SuppressWarnings("unchecked")
        Map<String, ?> im = (Map<String, ?>) inner;
        appendObject(sb, im);
      } else {
        sb.append(v);
      }
    }
    sb.append('}');
  }

  /** A few human-readable lines. */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "party %s: %,d rows read, %,d quarantined (%,d of them with "
        + "a NULL key), %,d filtered out by WHERE, %,d tokenized%n", party, rowsRead,
        rowsQuarantined, rowsWithNullKey, rowsFilteredOut, rowsTokenized));
    sb.append(String.format(Locale.ROOT, "party %s: disclosed n = %,d to the peer (public size "
        + "%s)%n", party, rowsDisclosed, publicSize));
    sb.append(String.format(Locale.ROOT, "party %s: %d bins (%d retried), %,d intersecting keys, "
        + "%,d rows out, %,d bytes sent, %,d received%n", party, bins, binRetries,
        intersectingKeys, rowsOut, bytesSent, bytesReceived));
    sb.append(String.format(Locale.ROOT, "party %s: %.1f s in all:", party, totalSeconds));
    phaseSeconds.forEach((k, v) -> sb.append(String.format(Locale.ROOT, " %s %.1f s,", k, v)));
    sb.setLength(sb.length() - 1);
    sb.append(String.format(Locale.ROOT, "; peak RSS %.2f GiB", peakRssBytes / (double) (1L << 30)));
    return sb.toString();
  }
}
