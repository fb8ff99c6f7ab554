package io.psiflink.jobs;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.BatchShuffleMode;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.client.deployment.executors.PipelineExecutorUtils;
import org.apache.flink.configuration.ClusterOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.PipelineExecutor;
import org.apache.flink.core.execution.PipelineExecutorFactory;
import org.apache.flink.core.execution.PipelineExecutorServiceLoader;
import org.apache.flink.runtime.dispatcher.DispatcherGateway;
import org.apache.flink.runtime.dispatcher.SessionDispatcherFactory;
import org.apache.flink.runtime.dispatcher.runner.DefaultDispatcherRunnerFactory;
import org.apache.flink.runtime.entrypoint.component.DefaultDispatcherResourceManagerComponentFactory;
import org.apache.flink.runtime.entrypoint.component.DispatcherResourceManagerComponentFactory;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.minicluster.MiniClusterJobClient;
import org.apache.flink.runtime.minicluster.RpcServiceSharing;
import org.apache.flink.runtime.resourcemanager.StandaloneResourceManagerFactory;
import org.apache.flink.runtime.rest.RestEndpointFactory;
import org.apache.flink.runtime.rest.handler.RestHandlerConfiguration;
import org.apache.flink.runtime.rest.handler.RestHandlerSpecification;
import org.apache.flink.runtime.webmonitor.WebMonitorEndpoint;
import org.apache.flink.shaded.netty4.io.netty.channel.ChannelInboundHandler;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.util.ExceptionUtils;
import org.apache.flink.util.FileUtils;

/**
 * One embedded Flink MiniCluster for the jobs of both parties when {@code ./psi local} runs them on
 * threads of its JVM, started on a thread of its own before the jobs exist. A MiniCluster's start
 * took about 0.6 s of CPU (two actor systems, Flink's RPC classes unpacked and loaded, a REST
 * endpoint, the network buffers): one cluster instead of two, started while the run's certificates
 * are made, the relay starts and the parties plan and shake hands, made a 10^6-row join 7 % faster
 * (docs/benchmarks.md, issue 19's fifteenth step).
 *
 * <p>Its configuration is a party job's ({@link PrivateJoinJob#flinkConfig(int, Path, boolean)})
 * with the slots of both jobs and blocking exchanges ({@link #SHUFFLE}); each job takes at most its
 * parallelism of them (one slot sharing group), so neither party's job waits for the other's slots.
 * Both jobs spill to the one {@code workDir/tmp}. The jobs leave the cluster running; {@link
 * #close} shuts it down and with it any job still running.
 */
public final class SharedMiniCluster implements AutoCloseable {
  /** How long {@link #close} waits for the cluster's shutdown. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

  /**
   * Blocking exchanges, not the hybrid ones of a party's own cluster: a task manager running hybrid
   * shuffles keeps their files in a plain HashMap (Flink 2.3's TieredStorageResourceRegistry,
   * FLINK-38783) that a task's deployment and another task's start both write to, and with two jobs
   * on one task manager that race failed about one join in fifty with a
   * ConcurrentModificationException. Blocking exchanges do not use that registry, and made a
   * 10^6-row join 4 % faster (3.80 s against 3.95 s, issue 19).
   */
  private static final BatchShuffleMode SHUFFLE = BatchShuffleMode.ALL_EXCHANGES_BLOCKING;

  private final Path workDir;
  // the cluster's working directory goes in here: a directory of this cluster alone
  private final Path clusterDir;
  private final MiniCluster cluster;
  private final CompletableFuture<Void> started = new CompletableFuture<>();
  private volatile boolean shutDownForExit;

  private SharedMiniCluster(int slots, Path workDir) throws java.io.IOException {
    this.workDir = workDir;
    Configuration conf = PrivateJoinJob.flinkConfig(slots, workDir, false);
    conf.set(ExecutionOptions.BATCH_SHUFFLE_MODE, SHUFFLE);
    this.clusterDir = workDir.resolve("tmp").resolve("cluster-" + UUID.randomUUID());
    conf.set(ClusterOptions.PROCESS_WORKING_DIR_BASE, clusterDir.toString());
    // as Flink's PerJobMiniClusterFactory configures the cluster of a local environment
    if (!conf.contains(RestOptions.BIND_PORT)) {
      conf.set(RestOptions.BIND_PORT, "0");
    }
    MiniClusterConfiguration mc =
        new MiniClusterConfiguration.Builder()
            .setConfiguration(conf)
            .setNumTaskManagers(1)
            .setRpcServiceSharing(RpcServiceSharing.SHARED)
            .setNumSlotsPerTaskManager(slots)
            .build();
    this.cluster = new WithoutRestHandlers(mc);
  }

  /**
   * Starts, on a thread of its own, a cluster of {@code slots} task slots (the sum of its jobs'
   * parallelism) that spills to {@code workDir/tmp}; returns at once.
   */
  public static SharedMiniCluster start(int slots, Path workDir) throws java.io.IOException {
    SharedMiniCluster c = new SharedMiniCluster(slots, workDir);
    Thread t = new Thread(c::startCluster, "psi MiniCluster start");
    t.setDaemon(true);
    t.start();
    return c;
  }

  /** The directory whose {@code tmp} holds the jobs' spill (Flink's io.tmp.dirs). */
  public Path workDir() {
    return workDir;
  }

  /**
   * The environment of a job whose configuration is {@code conf} ({@link
   * PrivateJoinJob#flinkConfig(PartyConfig)}; its cluster options do not apply here): its {@code
   * executeAsync} submits the job to this cluster once it has started.
   */
  StreamExecutionEnvironment environment(Configuration conf) {
    Configuration env = new Configuration(conf);
    // what a local environment sets
    env.set(DeploymentOptions.TARGET, "local");
    env.set(DeploymentOptions.ATTACHED, true);
    env.set(ExecutionOptions.BATCH_SHUFFLE_MODE, SHUFFLE);
    PipelineExecutor executor =
        (pipeline, c, classLoader) -> {
          // as Flink's LocalExecutor, the cluster being this one
          StreamGraph graph = PipelineExecutorUtils.getStreamGraph(pipeline, c);
          graph.serializeUserDefinedInstances();
          awaitStart();
          return cluster
              .submitJob(graph)
              .thenApply(
                  submitted ->
                      (JobClient)
                          new MiniClusterJobClient(
                              submitted.getJobID(),
                              cluster,
                              classLoader,
                              MiniClusterJobClient.JobFinalizationBehavior.NOTHING));
        };
    PipelineExecutorFactory factory =
        new PipelineExecutorFactory() {
          @Override
          public String getName() {
            return "local";
          }

          @Override
          public boolean isCompatibleWith(Configuration c) {
            return true;
          }

          @Override
          public PipelineExecutor getExecutor(Configuration c) {
            return executor;
          }
        };
    return new Environment(
        new PipelineExecutorServiceLoader() {
          @Override
          public PipelineExecutorFactory getExecutorFactory(Configuration c) {
            return factory;
          }

          @Override
          public Stream<String> getExecutorNames() {
            return Stream.of(factory.getName());
          }
        },
        env);
  }

  /** The address of the cluster's REST endpoint, once it started (which serves nothing). */
  java.net.URI restAddress() throws Exception {
    awaitStart();
    return cluster.getRestAddress().get();
  }

  private void startCluster() {
    try {
      cluster.start();
      started.complete(null);
    } catch (Throwable t) {
      started.completeExceptionally(t);
    }
  }

  /** Returns once the cluster runs; throws why it could not start. */
  private void awaitStart() throws Exception {
    try {
      started.get();
    } catch (ExecutionException e) {
      ExceptionUtils.rethrowException(e.getCause());
    }
  }

  /**
   * Ends the cluster of a JVM that exits next, its jobs done: starts its shutdown and removes its
   * working directory (empty directories once the jobs ended), but does not wait the ~50 ms its
   * actor systems and services take to stop, which the exit ends anyway; {@link #close} then
   * returns at once. Flink's own removal of the directory tolerates this one, and the shutdown's
   * end removes it again should it have written there meanwhile (if the JVM still runs then).
   */
  public void shutDownForExit() throws Exception {
    awaitStart();
    shutDownForExit = true;
    cluster.closeAsync().whenComplete((ignored, failure) -> deleteClusterDirQuietly());
    deleteClusterDirQuietly();
  }

  private void deleteClusterDirQuietly() {
    try {
      FileUtils.deleteDirectory(clusterDir.toFile());
    } catch (java.io.IOException e) {
      // a directory the shutdown still wrote to stays: the join itself is done and committed
    }
  }

  /**
   * Shuts the cluster down, cancelling any job still on it, and waits for that (a start still under
   * way first ends).
   */
  @Override
  public void close() throws Exception {
    if (shutDownForExit) {
      return;
    }
    long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
    try {
      started.get(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      // it did not start; what it started is shut down below
    }
    cluster.closeAsync().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    // Flink removes its working directory, not the directory it is in
    FileUtils.deleteDirectory(clusterDir.toFile());
  }

  /**
   * The environment of a job on a shared cluster: like a {@code LocalStreamEnvironment}'s, its job
   * runs on a MiniCluster of this JVM (see {@code JobSecrets.ship}).
   */
  public static final class Environment extends StreamExecutionEnvironment {
    private Environment(PipelineExecutorServiceLoader loader, Configuration conf) {
      super(loader, conf, null);
    }
  }

  /**
   * A MiniCluster whose REST endpoint serves nothing: the jobs are submitted and followed through
   * the cluster's own methods, never its web API, whose handlers took about 50 ms of CPU of each
   * start, while the parties waited for it to submit their jobs (a 10^6-row join: 3.30 against 3.38
   * s, issue 19). Nobody else on the machine can submit or cancel a job through it either.
   */
  private static final class WithoutRestHandlers extends MiniCluster {
    WithoutRestHandlers(MiniClusterConfiguration configuration) {
      super(configuration);
    }

    @Override
    protected DispatcherResourceManagerComponentFactory
        createDispatcherResourceManagerComponentFactory() {
      return new DefaultDispatcherResourceManagerComponentFactory(
          DefaultDispatcherRunnerFactory.createSessionRunner(SessionDispatcherFactory.INSTANCE),
          StandaloneResourceManagerFactory.getInstance(),
          (RestEndpointFactory<DispatcherGateway>)
              (conf, dispatcher, resourceManager, blobs, executor, metrics, election, errors) -> {
                RestHandlerConfiguration rest = RestHandlerConfiguration.fromConfiguration(conf);
                return new WebMonitorEndpoint<DispatcherGateway>(
                    dispatcher,
                    conf,
                    rest,
                    resourceManager,
                    blobs,
                    executor,
                    metrics,
                    election,
                    RestEndpointFactory.createExecutionGraphCache(rest),
                    errors) {
                  @Override
                  protected List<Tuple2<RestHandlerSpecification, ChannelInboundHandler>>
                      initializeHandlers(CompletableFuture<String> localAddressFuture) {
                    return new ArrayList<>();
                  }
                };
              });
    }
  }
}
