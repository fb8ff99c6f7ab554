package io.psiflink.bridge;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A party's connection to the relay: one TLS connection (HTTP/2) over which any number of {@link
 * BridgeStream}s are multiplexed. Thread-safe; use one per JVM or per Flink subtask.
 *
 * <p>{@link #connect} only sets up TLS and starts connecting; connection and certificate problems
 * surface as a {@link BridgeException} from {@link #open}.
 */
public final class BridgeClient implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BridgeClient.class);

  private final BridgeClientConfig config;
  private final ManagedChannel channel;
  private final ScheduledExecutorService timer;
  private final EventLoops loops;
  private final Set<ClientStream> streams = ConcurrentHashMap.newKeySet();
  private final Set<Listening> listeners = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();

  private BridgeClient(
      BridgeClientConfig config,
      ManagedChannel channel,
      ScheduledExecutorService timer,
      EventLoops loops) {
    this.config = config;
    this.channel = channel;
    this.timer = timer;
    this.loops = loops;
  }

  public static BridgeClient connect(BridgeClientConfig config) throws BridgeException {
    var tls = TlsContexts.forClient(config.self());
    ManagedChannel channel;
    // one connection, one network thread, stopped by close()
    EventLoops loops = new EventLoops("psi-bridge-client", 1);
    try {
      channel =
          NettyChannelBuilder.forAddress(config.host(), config.port())
              .eventLoopGroup(loops.group())
              .channelType(loops.socketChannel())
              .sslContext(tls)
              .maxInboundMessageSize(config.maxFrameBytes() + Frames.MAX_OVERHEAD)
              .keepAliveTime(BridgeProtocol.KEEPALIVE_TIME.toMillis(), TimeUnit.MILLISECONDS)
              .keepAliveTimeout(BridgeProtocol.KEEPALIVE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
              .build();
    } catch (RuntimeException e) {
      loops.close();
      throw new BridgeException(
          "cannot set up a connection to relay "
              + config.host()
              + ":"
              + config.port()
              + ": "
              + e.getMessage(),
          e);
    }
    channel.getState(true); // start the TLS handshake now, overlapping with the caller's setup
    ScheduledExecutorService timer = DaemonTimer.create("psi-bridge-client-timer");
    LOG.debug(
        "party '{}' connecting to relay {}:{}",
        config.self().partyName(),
        config.host(),
        config.port());
    return new BridgeClient(config, channel, timer, loops);
  }

  /**
   * Opens (session, channel) and blocks until the relay pairs it with the peer's stream.
   *
   * @throws BridgeTimeoutException if the peer does not open the same (session, channel) within the
   *     pair timeout
   * @throws IllegalArgumentException if session or channel is not 1 to 200 printable ASCII
   *     characters without spaces
   */
  public BridgeStream open(String session, String channel) throws BridgeException {
    return open(session, channel, null);
  }

  /**
   * As {@link #open(String, String)}, and if no stream of another party waits on (session,
   * channel), the relay calls {@code callee} (a party that {@link #listen}s) to open it; the stream
   * then pairs only with {@code callee}.
   *
   * @param callee the listening party's name, or null for a plain {@link #open(String, String)}
   * @throws BridgeException "party 'callee' is not connected to the relay" at once if {@code
   *     callee} does not listen; {@link BridgeTimeoutException} if it does not open the stream
   *     within the pair timeout
   * @throws IllegalArgumentException if session, channel or callee is not 1 to 200 printable ASCII
   *     characters without spaces, or callee is this party
   */
  public BridgeStream open(String session, String channel, String callee) throws BridgeException {
    BridgeProtocol.checkId(session, "session");
    BridgeProtocol.checkId(channel, "channel");
    if (callee != null) {
      BridgeProtocol.checkId(callee, "callee");
      if (callee.equals(partyName())) {
        throw new IllegalArgumentException("party '" + callee + "' cannot call itself");
      }
    }
    StreamKey key = new StreamKey(session, channel);
    // a relay that is down (restarting with its coordinator) is dialled again until the pair
    // timeout: nothing was exchanged yet, so the stream is opened afresh
    long deadline = System.nanoTime() + config.pairTimeout().toNanos();
    long backoffMs = 100;
    while (true) {
      if (closed.get()) {
        throw new BridgeException(
            "client of party '" + partyName() + "' is closed; cannot open " + key.describe());
      }
      ClientStream stream = new ClientStream(this, key, callee, this.channel);
      streams.add(stream);
      boolean paired = false;
      try {
        stream.start();
        stream.awaitPaired(config.pairTimeout(), deadline);
        paired = true;
        return stream;
      } catch (BridgeUnreachableException e) {
        if (System.nanoTime() + backoffMs * 1_000_000 >= deadline) {
          throw e;
        }
        LOG.info("{}; dialling again in {} ms", e.getMessage(), backoffMs);
        sleep(backoffMs);
        this.channel.resetConnectBackoff();
        backoffMs = Math.min(2 * backoffMs, 2000);
      } finally {
        if (!paired) {
          streams.remove(stream);
        }
      }
    }
  }

  private static void sleep(long ms) throws BridgeException {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BridgeException("interrupted while waiting to dial the relay again", e);
    }
  }

  /**
   * Listens for callers (see {@link #open(String, String, String)}): blocks until the relay has
   * registered the Listen call, then hands each {@link IncomingCall} to {@code onCall}, on a gRPC
   * thread (it must not block: hand the work to an executor). If the call drops (relay restart or
   * shutdown, lost connection, a newer Listen call of this party), {@code onDropped} gets the
   * reason once and the returned handle keeps it; listening again is the caller's choice.
   *
   * @throws BridgeException if the relay refuses the call, is unreachable or does not confirm it
   *     within the pair timeout
   */
  public Listening listen(Consumer<IncomingCall> onCall, Consumer<BridgeException> onDropped)
      throws BridgeException {
    Objects.requireNonNull(onCall, "onCall");
    Objects.requireNonNull(onDropped, "onDropped");
    if (closed.get()) {
      throw new BridgeException("client of party '" + partyName() + "' is closed; cannot listen");
    }
    Listening l =
        new Listening(
            this, channel.newCall(BridgeProtocol.LISTEN, CallOptions.DEFAULT), onCall, onDropped);
    listeners.add(l);
    try {
      l.start(config.pairTimeout());
    } catch (BridgeException | RuntimeException e) {
      listeners.remove(l);
      throw e;
    }
    return l;
  }

  /** As {@link #listen(Consumer, Consumer)}; a drop is logged (WARN) and kept by the handle. */
  public Listening listen(Consumer<IncomingCall> onCall) throws BridgeException {
    return listen(onCall, e -> {});
  }

  /**
   * Aborts the open streams (their peers learn "client of party 'x' closed"), then closes the
   * connection.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    for (ClientStream stream : streams) {
      stream.abort("client of party '" + partyName() + "' closed");
    }
    for (Listening l : listeners) {
      l.close();
    }
    channel.shutdown(); // lets the ABORT frames go out
    try {
      if (!channel.awaitTermination(ClientStream.ABORT_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
        channel.shutdownNow();
      }
    } catch (InterruptedException e) {
      channel.shutdownNow();
      Thread.currentThread().interrupt();
    } finally {
      timer.shutdownNow();
      loops.close();
    }
  }

  /** Drops the connection at once without telling anyone, as a crash would (for tests). */
  void terminateAbruptly() {
    closed.set(true);
    channel.shutdownNow();
    timer.shutdownNow();
    loops.close();
  }

  BridgeClientConfig config() {
    return config;
  }

  String partyName() {
    return config.self().partyName();
  }

  String relayAddress() {
    return config.host() + ":" + config.port();
  }

  void forget(ClientStream stream) {
    streams.remove(stream);
  }

  void forget(Listening listening) {
    listeners.remove(listening);
  }

  /** Runs {@code task} after {@code delay}, or now if the client is closing. */
  void later(Duration delay, Runnable task) {
    try {
      timer.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      task.run();
    }
  }
}
