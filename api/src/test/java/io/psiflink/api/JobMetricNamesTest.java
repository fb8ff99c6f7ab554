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
}
