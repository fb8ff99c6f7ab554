package io.psiflink.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JobSummaryTest {
  private static JobSummary summary(String party) {
    return summary(party, 500L);
  }

  private static JobSummary summary(String party, Long intersecting) {
    Map<String, Double> phases = new LinkedHashMap<>();
    phases.put("handshake", 0.25);
    phases.put("tokenize", 1.0 / 3);
    phases.put("psi", 12.0);
    return new JobSummary(
        party,
        "declared:1000",
        1000,
        990,
        7,
        3,
        2,
        980,
        16,
        16,
        1,
        intersecting,
        500,
        123456789012L,
        42,
        phases,
        13.5836,
        1L << 31);
  }

  /** The file the coordinator reads, byte for byte as the hand-written writer made it before. */
  @Test
  void theSummaryFileKeepsItsFieldsOrderAndPrecision() {
    assertEquals(
        "{\"party\":\"A\",\"public_size\":\"declared:1000\",\"rows_disclosed\":1000,"
            + "\"rows_read\":990,\"rows_quarantined\":7,\"rows_filtered_out\":3,"
            + "\"rows_with_null_key\":2,\"rows_tokenized\":980,\"bins\":16,\"bins_done\":16,"
            + "\"bin_retries\":1,\"intersecting_keys\":500,\"rows_out\":500,"
            + "\"bytes_sent\":123456789012,\"bytes_received\":42,"
            + "\"phase_seconds\":{\"handshake\":0.250,\"tokenize\":0.333,\"psi\":12.000},"
            + "\"total_seconds\":13.584,\"peak_rss_bytes\":2147483648}",
        summary("A").toJson());
  }

  /** With the prefilter the summary ends with its part; it reads back, and describe() names it. */
  @Test
  void thePrefilterPartIsWrittenLastAndReadsBack() throws Exception {
    JobSummary plain = summary("A");
    JobSummary s =
        new JobSummary(
            plain.party(),
            plain.publicSize(),
            plain.rowsDisclosed(),
            plain.rowsRead(),
            plain.rowsQuarantined(),
            plain.rowsFilteredOut(),
            plain.rowsWithNullKey(),
            plain.rowsTokenized(),
            plain.bins(),
            plain.binsDone(),
            plain.binRetries(),
            plain.intersectingKeys(),
            plain.rowsOut(),
            plain.bytesSent(),
            plain.bytesReceived(),
            plain.phaseSeconds(),
            plain.totalSeconds(),
            plain.peakRssBytes(),
            new JobSummary.PrefilterSummary(
                "helper", 20, 2, 612, 1.23456, 0, 131088, 262160, 131080));
    String json = s.toJson();
    assertTrue(
        json.endsWith(
            "\"peak_rss_bytes\":2147483648,\"prefilter\":{\"helper\":\"helper\","
                + "\"filter_bits\":20,\"filter_hashes\":2,\"candidates\":612,\"seconds\":1.235,"
                + "\"bytes_to_helper\":0,\"bytes_from_helper\":131088,\"bytes_to_peer\":262160,"
                + "\"bytes_from_peer\":131080}}"),
        json);
    assertEquals(s.prefilter().candidates(), JobSummary.fromJson(json).prefilter().candidates());
    assertEquals(null, JobSummary.fromJson(plain.toJson()).prefilter());
    assertTrue(
        s.describe().contains("prefilter with helper 'helper' (2^20 bits, k = 2): 612 candidates"),
        s.describe());
  }

  @Test
  void textIsEscapedAndReadsBack() throws Exception {
    JobSummary s = summary("B \"quoted\" \\ \n");
    assertEquals(s.party(), JobSummary.fromJson(s.toJson()).party());
    assertEquals(s.rowsOut(), JobSummary.fromJson(s.toJson()).rowsOut());
    assertEquals(13.584, JobSummary.fromJson(s.toJson()).totalSeconds());
  }

  /** B of a labeled join learns nothing of the intersection: its summary has no count of it. */
  @Test
  void aPartyThatDoesNotLearnTheIntersectionReportsNoCount() throws Exception {
    JobSummary b = summary("B", null);
    String json = b.toJson();
    org.junit.jupiter.api.Assertions.assertFalse(json.contains("intersecting"), json);
    org.junit.jupiter.api.Assertions.assertNull(JobSummary.fromJson(json).intersectingKeys());
    org.junit.jupiter.api.Assertions.assertTrue(
        b.describe().contains("intersection not learned"), b.describe());
  }
}
