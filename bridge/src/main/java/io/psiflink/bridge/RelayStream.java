package io.psiflink.bridge;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import io.psiflink.bridge.proto.v1.Frame;
import java.util.concurrent.ScheduledFuture;

/**
 * One party's Exchange call on the relay, and the listener for its events.
 *
 * <p>Every event is handled while holding the monitor of the stream's {@link KeySlot}, so the two
 * calls of a pair (whose callbacks run on different threads) never race, and gRPC's rule that a
 * call's methods are not called concurrently holds. Fields other than the finals are guarded by
 * that monitor.
 */
final class RelayStream extends ServerCall.Listener<Frames.Parsed> {
  final ServerCall<Frames.Parsed, Frame> call;
  final String party;
  final StreamKey key;

  /** The listening party to call if no stream waits on the key (header psi-callee), or null. */
  final String callee;

  private final PairingRegistry registry;

  /** Why gRPC closed the call, if it did (null if the tracer is not installed). */
  private final CloseReasonTracer closeReason;

  /**
   * Set by the registry before the stream becomes visible to other threads; never changes
   * afterwards.
   */
  volatile KeySlot slot;

  StreamPair pair;

  /** The call is over: we closed it, or the client cancelled it. */
  boolean closed;

  /** This party sent FINISH. */
  boolean finishedSending;

  /**
   * A frame of this party was forwarded while the peer was not ready: ask for the next one on the
   * peer's onReady.
   */
  boolean awaitingPeerReady;

  ScheduledFuture<?> pairTimer;

  RelayStream(
      ServerCall<Frames.Parsed, Frame> call,
      String party,
      StreamKey key,
      String callee,
      PairingRegistry registry,
      CloseReasonTracer closeReason) {
    this.call = call;
    this.party = party;
    this.key = key;
    this.callee = callee;
    this.registry = registry;
    this.closeReason = closeReason;
  }

  /** gRPC cancelled the call because the client sent a message over the size limit. */
  boolean sentOversizeMessage() {
    return closeReason != null && closeReason.rejectedOversizeMessage();
  }

  void send(Frame frame) {
    if (!closed) {
      call.sendMessage(frame);
    }
  }

  void close(Status status) {
    cancelPairTimer();
    if (closed) {
      return;
    }
    closed = true;
    try {
      call.close(status, new Metadata());
    } catch (IllegalStateException e) {
      // already closed by gRPC itself (e.g. a failed write); nothing left to tell the client
    }
  }

  void cancelPairTimer() {
    if (pairTimer != null) {
      pairTimer.cancel(false);
      pairTimer = null;
    }
  }

  @Override
  public void onMessage(Frames.Parsed frame) {
    synchronized (slot) {
      if (pair != null) {
        pair.onFrame(this, frame);
      }
      // A waiting stream has requested no message, so there is nothing to do otherwise.
    }
  }

  @Override
  public void onHalfClose() {
    synchronized (slot) {
      if (pair != null) {
        pair.onHalfClose(this);
      } else {
        registry.onWaitingEnded(this, true);
      }
    }
  }

  @Override
  public void onCancel() {
    synchronized (slot) {
      closed = true; // the client will not read anything more; never write to this call again
      cancelPairTimer();
      if (pair != null) {
        pair.onCancel(this);
      } else {
        registry.onWaitingEnded(this, false);
      }
    }
  }

  @Override
  public void onReady() {
    synchronized (slot) {
      if (pair != null) {
        pair.onReady(this);
      }
    }
  }

  @Override
  public String toString() {
    return "stream of '" + party + "' " + key.describe();
  }
}
