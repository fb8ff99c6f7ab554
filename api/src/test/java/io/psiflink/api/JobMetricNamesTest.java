package io.psiflink.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class JobMetricNamesTest {
  /** The texts operators and dashboards already know (docs/operations.md); kept as they were. */
  @Test
  void namesAreTheOnesFlinkShows() {
    assertEquals("psi-flink party A session s-1", JobMetricNames.jobName(Role.A, "s-1"));
    assertEquals("psi-flink party B session s-1", JobMetricNames.jobName(Role.B, "s-1"));
    assertEquals("tokenize a", JobMetricNames.tokenizeOperator(Role.A.table()));
    assertEquals("psi bins", JobMetricNames.PSI_OPERATOR);
    assertEquals("psi.binsDone", JobMetricNames.psiMetric(JobMetricNames.BINS_DONE));
    assertEquals("psi.binsTotal", JobMetricNames.psiMetric(JobMetricNames.BINS_TOTAL));
  }

  /** The job totals docs/operations.md tells operators to read at /jobs/<id>/accumulators. */
  @Test
  void accumulatorsKeepTheirNames() {
    assertEquals("binsDone", JobMetricNames.Accumulators.BINS_DONE);
    assertEquals("binRetries", JobMetricNames.Accumulators.BIN_RETRIES);
    assertEquals("rowsOut", JobMetricNames.Accumulators.ROWS_OUT);
    assertEquals("bytesSent", JobMetricNames.Accumulators.BYTES_SENT);
    assertEquals("a.rowsTokenized", JobMetricNames.Accumulators.rowsTokenized("a"));
    // the source's (connectors' RowParser writes them, PrivateJoinJob's summary reads them)
    assertEquals("a.rowsRead", JobMetricNames.Accumulators.rowsRead("a"));
    assertEquals("a.rowsQuarantined", JobMetricNames.Accumulators.rowsQuarantined("a"));
    assertEquals(
        "b.rowsWithNullKeyQuarantined",
        JobMetricNames.Accumulators.rowsWithNullKeyQuarantined("b"));
    assertEquals("rowsRead", JobMetricNames.ROWS_READ);
    assertEquals("rowsQuarantined", JobMetricNames.ROWS_QUARANTINED);
  }
}
