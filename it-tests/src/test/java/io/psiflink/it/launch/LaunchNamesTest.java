package io.psiflink.it.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.psiflink.coordinator.JvmOptions;
import io.psiflink.jobs.PrivateJoinJob;
import org.junit.jupiter.api.Test;

/**
 * The coordinator launches jobs without the job's classes on its class path, so the names both
 * sides use are declared twice; here, where both are visible, they must agree.
 */
class LaunchNamesTest {
  @Test
  void theFlinkPropertyPrefixIsTheJobs() {
    assertEquals(PrivateJoinJob.FLINK_PROPERTY_PREFIX, JvmOptions.FLINK_PROPERTY_PREFIX);
  }

  @Test
  void thePartyMainTheCoordinatorLaunchesIsTheJobsEntryPoint() {
    // JobLauncher and deploy's scripts name it as text
    assertEquals("io.psiflink.jobs.PartyMain", io.psiflink.jobs.PartyMain.class.getName());
  }
}
