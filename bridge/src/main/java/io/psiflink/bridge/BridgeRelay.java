package io.psiflink.bridge;

import io.grpc.Context;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay: a gRPC server over mutual TLS that pairs the two parties' streams for the same
 * (session, channel) and pipes frames between them, with back-pressure, in both directions.
 */
public final class BridgeRelay implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BridgeRelay.class);
  private static final long SHUTDOWN_GRACE_MS = 2000;

  private final Server server;
  private final int port;
  private final PairingRegistry registry;
  private final ListenRegistry listeners;
  private final RelayCounters counters;
  private final ScheduledExecutorService timer;
  private final EventLoops boss;
  private final EventLoops workers;
  private final AtomicBoolean closed = new AtomicBoolean();

  private BridgeRelay(
      Server server,
      PairingRegistry registry,
      ListenRegistry listeners,
      RelayCounters counters,
      ScheduledExecutorService timer,
      EventLoops boss,
      EventLoops workers) {
    this.boss = boss;
    this.workers = workers;
    this.listeners = listeners;
    this.server = server;
    this.port = server.getPort(); // kept: the server cannot be asked once terminated
    this.registry = registry;
    this.counters = counters;
    this.timer = timer;
  }

  /** Starts listening; returns once the port is bound. */
  public static BridgeRelay start(RelayConfig config) throws BridgeException {
    return start(config, null);
  }

  /**
   * Starts listening; a stream of a session that {@code pins} knows is admitted only with the
   * certificate the session names for the stream's party.
   */
  public static BridgeRelay start(RelayConfig config, SessionPins pins) throws BridgeException {
    var tls = TlsContexts.forRelay(config.server());
    RelayCounters counters = new RelayCounters();
    ScheduledExecutorService timer = DaemonTimer.create("psi-bridge-relay-timer");
    Context.Key<String> partyKey = Context.key("psi-party");
    ListenRegistry listeners = new ListenRegistry(partyKey);
    PairingRegistry registry =
        new PairingRegistry(
            config.pairTimeout(), config.maxFrameBytes(), timer, counters, listeners);
    Context.Key<byte[]> certKey = Context.key("psi-party-certificate-sha256");
    Context.Key<CloseReasonTracer> tracerKey = Context.key("psi-close-reason");
    ServerServiceDefinition service =
        ServerServiceDefinition.builder(BridgeProtocol.SERVICE)
            .addMethod(
                BridgeProtocol.RELAY_EXCHANGE,
                new ExchangeHandler(registry, partyKey, certKey, pins, tracerKey))
            .addMethod(BridgeProtocol.LISTEN, listeners)
            .build();
    // the network threads stop with the relay (close())
    EventLoops boss = new EventLoops("psi-bridge-relay-accept", 1);
    EventLoops workers = new EventLoops("psi-bridge-relay", 0);
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress(config.bindHost(), config.port()))
            .bossEventLoopGroup(boss.group())
            .workerEventLoopGroup(workers.group())
            .channelType(boss.serverChannel())
            .sslContext(tls)
            .addService(
                ServerInterceptors.intercept(
                    service,
                    new PartyAuthInterceptor(
                        config.allowedParties(), config.partyTrust(), partyKey, certKey)))
            .addStreamTracerFactory(new CloseReasonTracer.Factory(tracerKey))
            .maxInboundMessageSize(config.maxFrameBytes() + Frames.MAX_OVERHEAD)
            .keepAliveTime(BridgeProtocol.KEEPALIVE_TIME.toMillis(), TimeUnit.MILLISECONDS)
            .keepAliveTimeout(BridgeProtocol.KEEPALIVE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
            .permitKeepAliveTime(
                BridgeProtocol.PERMIT_KEEPALIVE_TIME.toMillis(), TimeUnit.MILLISECONDS)
            .permitKeepAliveWithoutCalls(true)
            .build();
    try {
      server.start();
    } catch (IOException | RuntimeException e) {
      timer.shutdownNow();
      boss.close();
      workers.close();
      throw new BridgeException(
          "relay cannot listen on "
              + config.bindHost()
              + ":"
              + config.port()
              + ": "
              + e.getMessage(),
          e);
    }
    timer.scheduleWithFixedDelay(registry::prune, 1, 1, TimeUnit.MINUTES);
    LOG.info(
        "bridge relay listening on {}:{} as '{}', allowing parties {}",
        config.bindHost(),
        server.getPort(),
        config.server().partyName(),
        config.allowedParties());
    return new BridgeRelay(server, registry, listeners, counters, timer, boss, workers);
  }

  /** The bound port (the actual one when the configuration asked for 0). */
  public int port() {
    return port;
  }

  /** Parties with a Listen call open (see bridge.proto), for tests and monitoring. */
  public int listeningParties() {
    return listeners.size();
  }

  public RelayStats stats() {
    return counters.snapshot();
  }

  /** Fails all open streams with "relay shutting down" and stops the server. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    registry.shutdown();
    listeners.shutdown();
    server.shutdown(); // lets the closing statuses above reach the clients
    try {
      if (!server.awaitTermination(SHUTDOWN_GRACE_MS, TimeUnit.MILLISECONDS)) {
        server.shutdownNow();
        server.awaitTermination(SHUTDOWN_GRACE_MS, TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    } finally {
      timer.shutdownNow();
      boss.close();
      workers.close();
    }
    LOG.info("bridge relay on port {} stopped", port);
  }
}
