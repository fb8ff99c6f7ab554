package io.psiflink.bridge;

import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.Status;
import io.psiflink.bridge.proto.v1.Call;
import io.psiflink.bridge.proto.v1.ListenRequest;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's open Listen calls, one per party (a newer one replaces the older), and the handler
 * that opens them. A caller's Exchange naming a callee reaches the callee through {@link #call}.
 *
 * <p>Lock order: a {@link KeySlot}'s monitor, then a {@link Listening}'s; never the reverse.
 */
final class ListenRegistry implements ServerCallHandler<ListenRequest, Call> {
  private static final Logger LOG = LoggerFactory.getLogger(ListenRegistry.class);

  private final ConcurrentMap<String, Listening> listeners = new ConcurrentHashMap<>();
  private final Context.Key<String> partyKey;
  private volatile boolean shuttingDown;

  ListenRegistry(Context.Key<String> partyKey) {
    this.partyKey = partyKey;
  }

  /** One party's open Listen call; its monitor serializes the call's methods. */
  private final class Listening extends ServerCall.Listener<ListenRequest> {
    final String party;
    final ServerCall<ListenRequest, Call> call;
    private boolean closed;

    Listening(String party, ServerCall<ListenRequest, Call> call) {
      this.party = party;
      this.call = call;
    }

    synchronized boolean send(Call c) {
      if (closed) {
        return false;
      }
      try {
        call.sendMessage(c);
        return true;
      } catch (RuntimeException e) { // the call broke underneath (e.g. a failed write)
        closed = true;
        listeners.remove(party, this);
        return false;
      }
    }

    synchronized void close(Status status) {
      if (closed) {
        return;
      }
      closed = true;
      try {
        call.close(status, new Metadata());
      } catch (IllegalStateException e) {
        // already closed by gRPC itself
      }
    }

    @Override
    public void onCancel() {
      synchronized (this) {
        closed = true; // the client is gone: never write to this call again
      }
      if (listeners.remove(party, this)) {
        LOG.info("party '{}' stopped listening on the relay", party);
      }
    }

    @Override
    public void onHalfClose() {
      // the ListenRequest came; the call stays open until the listener or the relay ends it
    }
  }

  @Override
  public ServerCall.Listener<ListenRequest> startCall(
      ServerCall<ListenRequest, Call> call, Metadata headers) {
    String party = partyKey.get();
    if (party == null) { // only reachable if the interceptor was bypassed
      call.close(Status.UNAUTHENTICATED.withDescription("unauthenticated call"), new Metadata());
      return new ServerCall.Listener<>() {};
    }
    Listening listening = new Listening(party, call);
    call.request(1); // the (empty) ListenRequest
    synchronized (listening) {
      if (shuttingDown) {
        listening.close(Status.UNAVAILABLE.withDescription(StreamPair.SHUTTING_DOWN));
        return listening;
      }
      Listening older = listeners.put(party, listening);
      if (older != null) {
        LOG.warn("party '{}' listens again; replacing its earlier Listen call", party);
        older.close(
            Status.CANCELLED.withDescription(
                "superseded by a newer Listen call of the same party"));
      }
      // The client's listen() returns on these headers: from now on, callers reach it.
      call.sendHeaders(new Metadata());
    }
    LOG.info("party '{}' listens on the relay", party);
    return listening;
  }

  /**
   * Tells {@code callee} that {@code caller} waits on {@code key}; false if {@code callee} is not
   * listening.
   */
  boolean call(String callee, StreamKey key, String caller) {
    Listening l = listeners.get(callee);
    if (l == null) {
      return false;
    }
    boolean sent =
        l.send(
            Call.newBuilder()
                .setSession(key.session())
                .setChannel(key.channel())
                .setCaller(Frames.truncated(caller))
                .build());
    if (sent) {
      LOG.debug("called '{}' for '{}' on {}", callee, caller, key.describe());
    }
    return sent;
  }

  /** Listen calls currently open. */
  int size() {
    return listeners.size();
  }

  /** Ends every Listen call with "relay shutting down"; later ones are refused the same way. */
  void shutdown() {
    shuttingDown = true;
    for (Listening l : List.copyOf(listeners.values())) {
      l.close(Status.UNAVAILABLE.withDescription(StreamPair.SHUTTING_DOWN));
      listeners.remove(l.party, l);
    }
  }
}
