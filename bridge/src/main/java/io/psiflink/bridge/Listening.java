package io.psiflink.bridge;

import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import io.psiflink.bridge.proto.v1.Call;
import io.psiflink.bridge.proto.v1.ListenRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An open Listen call of this party on the relay (see {@link BridgeClient#listen}). Closing it
 * stops listening quietly; any other end of the call (the relay restarted or shut down, the
 * connection dropped, a newer Listen call of this party replaced it) is a drop, reported once to
 * the listener's {@code onDropped} and kept in {@link #dropped()}.
 */
public final class Listening implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Listening.class);

  private final BridgeClient client;
  private final ClientCall<ListenRequest, Call> call;
  private final Consumer<IncomingCall> onCall;
  private final Consumer<BridgeException> onDropped;
  private final CompletableFuture<Void> registered = new CompletableFuture<>();
  private final CompletableFuture<BridgeException> ended = new CompletableFuture<>();
  private volatile boolean closing;

  Listening(
      BridgeClient client,
      ClientCall<ListenRequest, Call> call,
      Consumer<IncomingCall> onCall,
      Consumer<BridgeException> onDropped) {
    this.client = client;
    this.call = call;
    this.onCall = onCall;
    this.onDropped = onDropped;
  }

  void start(Duration timeout) throws BridgeException {
    synchronized (this) {
      call.start(new Listener(), new Metadata());
      call.sendMessage(ListenRequest.getDefaultInstance());
      call.halfClose();
      call.request(1);
    }
    try {
      registered.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof BridgeException b
          ? b
          : new BridgeException("cannot listen on the relay: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      cancel("no answer from the relay");
      throw new BridgeTimeoutException(
          "relay "
              + client.relayAddress()
              + " did not confirm the Listen call of '"
              + client.partyName()
              + "' within "
              + Durations.human(timeout));
    } catch (InterruptedException e) {
      cancel("interrupted");
      Thread.currentThread().interrupt();
      throw new BridgeException("interrupted while starting to listen", e);
    }
  }

  /** Whether the call is still open (neither closed here nor dropped). */
  public boolean isOpen() {
    return !ended.isDone();
  }

  /** Why the call dropped, or null while it is open or after a deliberate {@link #close}. */
  public BridgeException dropped() {
    return ended.getNow(null);
  }

  /** Stops listening; callers then get "not connected to the relay". Idempotent. */
  @Override
  public void close() {
    closing = true;
    ended.complete(null);
    cancel("stopped listening");
    client.forget(this);
  }

  private synchronized void cancel(String why) {
    call.cancel(why, null);
  }

  private synchronized void requestOne() {
    call.request(1);
  }

  private static boolean textOk(String s) {
    return !s.isEmpty() && s.getBytes(StandardCharsets.UTF_8).length <= Frames.MAX_TEXT_BYTES;
  }

  private final class Listener extends ClientCall.Listener<Call> {
    @Override
    public void onHeaders(Metadata headers) {
      registered.complete(null);
    }

    @Override
    public void onMessage(Call message) {
      if (!BridgeProtocol.ID.matcher(message.getSession()).matches()
          || !BridgeProtocol.ID.matcher(message.getChannel()).matches()
          || !textOk(message.getCaller())) {
        LOG.warn(
            "relay sent a malformed Call to '{}'; dropping the Listen call", client.partyName());
        cancel("malformed Call from the relay");
        return; // onClose reports the drop
      }
      requestOne();
      try {
        onCall.accept(
            new IncomingCall(message.getSession(), message.getChannel(), message.getCaller()));
      } catch (RuntimeException e) { // the listener's bug must not end the Listen call
        LOG.error(
            "listener of '{}' failed on a call from '{}'",
            client.partyName(),
            message.getCaller(),
            e);
      }
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      client.forget(Listening.this);
      BridgeException why =
          new BridgeException(
              "the Listen call of '"
                  + client.partyName()
                  + "' on relay "
                  + client.relayAddress()
                  + " ended: "
                  + describe(status));
      registered.completeExceptionally(why);
      if (closing) {
        ended.complete(null);
        return;
      }
      if (ended.complete(why) && registered.isDone() && !registered.isCompletedExceptionally()) {
        LOG.warn("{}", why.getMessage());
        try {
          onDropped.accept(why);
        } catch (RuntimeException e) {
          LOG.error("onDropped of '{}' failed", client.partyName(), e);
        }
      }
    }
  }

  private String describe(Status status) {
    String desc = status.getDescription();
    Throwable cause = status.getCause();
    if (desc == null || desc.isEmpty()) {
      desc = cause != null && cause.getMessage() != null ? cause.getMessage() : "";
    }
    return status.getCode() + (desc.isEmpty() ? "" : " (" + desc + ")");
  }
}
