package io.psiflink.bridge;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What a service that parties call through the relay (the helper, the provider) runs on: its bridge
 * client (pair and idle timeouts both the service's idle timeout), a {@link KeptListening} that
 * hands each call to a daemon thread of its own, a daemon timer for the service's deadlines, and
 * the streams it has open, so that {@link #close} can tell every party why they end. Thread-safe.
 */
public final class CalleeRuntime implements AutoCloseable {
  private final String service;
  private final BridgeClient client;
  private final ExecutorService pool;
  private final ScheduledExecutorService timer;
  private final Set<BridgeStream> open = ConcurrentHashMap.newKeySet();
  private volatile KeptListening listening;
  private volatile boolean closed;

  private CalleeRuntime(String service, String threads, BridgeClient client) {
    this.service = service;
    this.client = client;
    this.pool =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, threads + "-run");
              t.setDaemon(true);
              return t;
            });
    this.timer = DaemonTimer.create(threads + "-timer");
  }

  /**
   * Connects {@code self} to the relay; {@link #listen} then takes calls.
   *
   * @param service how messages and log lines name the service, e.g. {@code helper 'h'}
   * @param threads the prefix of the service's thread names, e.g. {@code psi-helper}
   * @throws BridgeException if the connection cannot be set up
   */
  public static CalleeRuntime connect(
      PartyCredentials self,
      String relayHost,
      int relayPort,
      Duration idleTimeout,
      String service,
      String threads)
      throws BridgeException {
    BridgeClient client =
        BridgeClient.connect(
            BridgeClientConfig.defaults(relayHost, relayPort, self)
                .withPairTimeout(idleTimeout)
                .withIdleTimeout(idleTimeout));
    return new CalleeRuntime(service, threads, client);
  }

  /**
   * Listens; each call goes to {@code serve} on a thread of its own. On failure the runtime is
   * closed.
   *
   * @throws BridgeException if the relay is unreachable or refuses the Listen call
   */
  public void listen(Consumer<IncomingCall> serve) throws BridgeException {
    Objects.requireNonNull(serve, "serve");
    try {
      listening = KeptListening.start(client, service, pool, serve);
    } catch (BridgeException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** The service's timer, for its deadlines (a task must not block). */
  public ScheduledExecutorService timer() {
    return timer;
  }

  /**
   * Opens the stream a party called for; it stays on the list {@link #close} aborts until {@link
   * #release}.
   */
  public BridgeStream accept(IncomingCall call) throws BridgeException {
    BridgeStream s = client.open(call.session(), call.channel());
    open.add(s);
    if (closed) {
      s.abort(service + " is shutting down");
      open.remove(s);
      throw new BridgeException(service + " is shutting down");
    }
    return s;
  }

  /** The stream's run is over (it is closed or aborted already). */
  public void release(BridgeStream s) {
    open.remove(s);
  }

  /**
   * Whether the Listen call is open (false while listening again after a drop, and after close).
   */
  public boolean isListening() {
    KeptListening l = listening;
    return !closed && l != null && l.isOpen();
  }

  /** Whether {@link #close} was called: streams that fail now fail because of it. */
  public boolean isClosed() {
    return closed;
  }

  /**
   * Stops listening, aborts every open stream ("… is shutting down"), waits up to 5 s for the
   * service's threads and closes the connection to the relay. Idempotent.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    KeptListening l = listening;
    if (l != null) {
      l.close();
    }
    for (BridgeStream s : open) {
      s.abort(service + " is shutting down");
    }
    timer.shutdownNow();
    pool.shutdownNow();
    try {
      pool.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    client.close();
  }
}
