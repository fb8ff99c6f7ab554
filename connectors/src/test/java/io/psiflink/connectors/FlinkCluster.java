package io.psiflink.connectors;

import java.util.List;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One Flink MiniCluster (1 task manager, 2 slots) per test class, and BATCH environments on it.
 * Used instead of flink-test-utils' MiniClusterExtension and TestStreamEnvironment.setAsContext,
 * which need JUnit 4 on the class path (a wrapped JUnit 4 rule, a test-name provider for config
 * randomization), and the module does not carry JUnit 4.
 */
final class FlinkCluster implements BeforeAllCallback, AfterAllCallback {
  static final int SLOTS = 2;

  private MiniCluster cluster;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    Configuration conf = new Configuration();
    conf.set(RestOptions.BIND_PORT, "0");
    cluster =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(SLOTS)
                .build());
    cluster.start();
  }

  /** A BATCH environment on this cluster, parallelism {@value #SLOTS}, no restarts. */
  StreamExecutionEnvironment batchEnv() {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
    StreamExecutionEnvironment env =
        new TestStreamEnvironment(cluster, conf, SLOTS, List.of(), List.of());
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    return env;
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    cluster.closeAsync().get();
  }
}
