package io.psiflink.jobs.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.security.SecureRandom;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the secret file reaches the tasks: by its path where they run in this JVM's own MiniCluster
 * (the distributed cache would hold the JVM's exit for 5 s), through the distributed cache
 * elsewhere; and what the tasks read is what the job wrote.
 */
class JobSecretsTest {
  @TempDir Path dir;

  @Test
  void theEmbeddedMiniClusterReadsTheFileWhereItIs() throws Exception {
    JobSecrets secrets = random();
    Path file = secrets.writeTo(dir);
    StreamExecutionEnvironment local = StreamExecutionEnvironment.createLocalEnvironment(1);
    String name = JobSecrets.ship(local, file);
    assertEquals(file.toAbsolutePath().toString(), name);
    assertTrue(local.getCachedFiles().isEmpty(), "nothing in the distributed cache");
    // a path needs no runtime context: the task reads the file itself
    JobSecrets read = JobSecrets.read(null, name);
    assertArrayEquals(secrets.tokenKey(), read.tokenKey());
    assertArrayEquals(secrets.binSeed(), read.binSeed());
    assertArrayEquals(secrets.frameKey(), read.frameKey());
    assertArrayEquals(secrets.setup(), read.setup());
    assertNull(read.filterKey());
  }

  @Test
  void aClusterGetsTheFileThroughTheDistributedCache() throws Exception {
    Path file = random().writeTo(dir);
    // what flink run gives the job: an environment that is not this JVM's MiniCluster
    StreamExecutionEnvironment cluster = new StreamExecutionEnvironment(new Configuration());
    assertEquals(JobSecrets.CACHE_NAME, JobSecrets.ship(cluster, file));
    assertEquals(1, cluster.getCachedFiles().size());
    assertEquals(JobSecrets.CACHE_NAME, cluster.getCachedFiles().get(0).f0);
    assertEquals(file.toUri().toString(), cluster.getCachedFiles().get(0).f1.filePath);
  }

  private static JobSecrets random() {
    SecureRandom r = new SecureRandom();
    byte[][] b = {new byte[32], new byte[16], new byte[32], new byte[100]};
    for (byte[] x : b) {
      r.nextBytes(x);
    }
    return new JobSecrets(b[0], b[1], b[2], b[3]);
  }
}
