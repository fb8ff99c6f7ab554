package io.psiflink.jobs;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A party's job is never restarted by Flink (a restarted task would replay bridge streams its peer
 * has closed, and commit its output again): a task that fails in its first attempt fails the job,
 * on the party JVM's embedded MiniCluster as under {@code flink run}, where a restart would have
 * let it succeed.
 */
class NoRestartTest {
  @TempDir Path dir;

  /** Fails in the first attempt of its task, succeeds in any later one. */
  static final class FailsFirstAttempt extends RichMapFunction<Long, Long> {
    @Override
    public Long map(Long x) {
      if (getRuntimeContext().getTaskInfo().getAttemptNumber() == 0) {
        throw new IllegalStateException("first attempt fails on purpose");
      }
      return x;
    }
  }

  @ParameterizedTest(name = "on a cluster: {0}")
  @ValueSource(booleans = {false, true})
  void aFailedTaskFailsTheJob(boolean onCluster) throws Exception {
    Map<String, String> o = PartyMainTest.base();
    o.put("table", dir.resolve("a.csv").toString());
    o.put("out", dir.resolve("out").toString());
    o.put("work", dir.resolve("work").toString());
    PartyConfig cfg = PartyMain.config(o);
    // the job-level options of flink run are a subset of the embedded ones; both run here on a
    // local MiniCluster started with them
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(
            PrivateJoinJob.flinkConfig(cfg, onCluster));
    env.fromData(List.of(1L, 2L, 3L)).map(new FailsFirstAttempt()).sinkTo(new DiscardingSink<>());
    Exception e = assertThrows(Exception.class, () -> env.execute("no-restart"));
    assertTrue(
        ExceptionUtils.findThrowableWithMessage(e, "first attempt fails on purpose").isPresent(),
        "the job fails with its task's cause: " + e);
  }
}
