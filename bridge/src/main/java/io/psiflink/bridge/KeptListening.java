package io.psiflink.bridge;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Listen call of a service that parties call through the relay (the helper, the provider), kept
 * open: each {@link IncomingCall} goes to the service on its executor (never on the gRPC thread),
 * and a dropped call (relay restart, lost connection) is logged and listened again with backoff,
 * 0.5 s doubling to 30 s, until {@link #close}. Thread-safe.
 */
public final class KeptListening implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KeptListening.class);
  private static final long FIRST_BACKOFF_MILLIS = 500;
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  private final BridgeClient client;
  private final String service;
  private final Executor executor;
  private final Consumer<IncomingCall> serve;
  private final ScheduledExecutorService timer = DaemonTimer.create("psi-listen-again");
  private volatile Listening listening;
  private volatile boolean closed;
  private long backoffMillis = FIRST_BACKOFF_MILLIS;

  private KeptListening(
      BridgeClient client, String service, Executor executor, Consumer<IncomingCall> serve) {
    this.client = client;
    this.service = service;
    this.executor = executor;
    this.serve = serve;
  }

  /**
   * Listens on {@code client}'s relay; returns once the relay registered the call.
   *
   * @param service how log lines name the service, e.g. {@code helper 'h'}
   * @param executor runs {@code serve} for each call; a call it rejects (it is shutting down) is
   *     dropped
   * @throws BridgeException if the relay refuses the call or is unreachable
   */
  public static KeptListening start(
      BridgeClient client, String service, Executor executor, Consumer<IncomingCall> serve)
      throws BridgeException {
    KeptListening k =
        new KeptListening(
            Objects.requireNonNull(client, "client"),
            Objects.requireNonNull(service, "service"),
            Objects.requireNonNull(executor, "executor"),
            Objects.requireNonNull(serve, "serve"));
    try {
      k.listening = client.listen(k::onCall, k::onDropped);
    } catch (BridgeException | RuntimeException e) {
      k.close();
      throw e;
    }
    return k;
  }

  /**
   * Whether the Listen call is open (false while listening again after a drop, and after close).
   */
  public boolean isOpen() {
    Listening l = listening;
    return !closed && l != null && l.isOpen();
  }

  @Override
  public void close() {
    closed = true;
    Listening l = listening;
    if (l != null) {
      l.close();
    }
    timer.shutdownNow();
  }

  private void onCall(IncomingCall call) {
    if (closed) {
      return;
    }
    try {
      executor.execute(() -> serve.accept(call));
    } catch (RejectedExecutionException e) {
      // the service is closing
    }
  }

  private void onDropped(BridgeException why) {
    if (closed) {
      return;
    }
    LOG.warn("{} lost its Listen call ({}); listening again", service, why.getMessage());
    scheduleAgain();
  }

  private synchronized void scheduleAgain() {
    long delay = backoffMillis;
    backoffMillis = Math.min(backoffMillis * 2, MAX_BACKOFF.toMillis());
    try {
      timer.schedule(this::listenAgain, delay, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closing
    }
  }

  private void listenAgain() {
    if (closed) {
      return;
    }
    try {
      listening = client.listen(this::onCall, this::onDropped);
      synchronized (this) {
        backoffMillis = FIRST_BACKOFF_MILLIS;
      }
      LOG.info("{} listens on relay {} again", service, client.relayAddress());
    } catch (BridgeException | RuntimeException e) {
      LOG.warn(
          "{} cannot listen on relay {} yet: {}", service, client.relayAddress(), e.getMessage());
      scheduleAgain();
    }
  }
}
