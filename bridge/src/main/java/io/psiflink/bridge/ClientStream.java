package io.psiflink.bridge;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import io.psiflink.bridge.proto.v1.Frame;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's end of one Exchange call.
 *
 * <p>Inbound flow control is manual: the call asks for {@link #INBOUND_WINDOW} frames up front and
 * for one more each time the application takes one, so at most that many frames wait in memory and
 * a slow reader stalls its peer. Outbound, {@link #send} waits for the call to be ready.
 *
 * <p>All {@link ClientCall} methods run under {@link #lock}: gRPC calls are not thread-safe, and
 * {@link #abort}/{@link #close} may come from another thread (e.g. {@link BridgeClient#close}).
 */
final class ClientStream implements BridgeStream {
  private static final Logger LOG = LoggerFactory.getLogger(ClientStream.class);

  /** Frames requested ahead of the application. */
  static final int INBOUND_WINDOW = 4;

  /** How long an aborted call may take to deliver its ABORT before it is cancelled outright. */
  static final Duration ABORT_GRACE = Duration.ofSeconds(2);

  private final BridgeClient client;
  private final StreamKey key;

  /** The party the relay should call if this stream finds nobody waiting, or null. */
  private final String callee;

  private final ClientCall<Frame, Frames.Parsed> call;
  private final BlockingQueue<Inbound> inbound = new LinkedBlockingQueue<>();
  private final ReentrantLock lock = new ReentrantLock();

  /** Signalled when the call becomes ready or ends. */
  private final Condition changed = lock.newCondition();

  private final AtomicLong bytesSent = new AtomicLong();
  private final AtomicLong bytesReceived = new AtomicLong();

  // Written under lock.
  private volatile Failure failure;
  private boolean callClosed;
  private boolean finishSent;
  private boolean abortSent;

  // Written by the application thread in open(), read by any.
  private volatile int attempt = -1;
  private volatile String peerParty;
  // Written by the receiving thread only.
  private volatile boolean peerFinished;

  private sealed interface Inbound permits Received, Closed {}

  /** A frame that passed {@link Frames#check}. */
  private record Received(Frame.KindCase kind, Frame frame) implements Inbound {}

  private record Closed() implements Inbound {}

  ClientStream(BridgeClient client, StreamKey key, String callee, Channel channel) {
    this.client = client;
    this.key = key;
    this.callee = callee;
    this.call = channel.newCall(BridgeProtocol.CLIENT_EXCHANGE, CallOptions.DEFAULT);
  }

  void start() {
    Metadata headers = new Metadata();
    headers.put(BridgeProtocol.SESSION, key.session());
    headers.put(BridgeProtocol.CHANNEL, key.channel());
    if (callee != null) {
      headers.put(BridgeProtocol.CALLEE, callee);
    }
    lock.lock();
    try {
      call.start(new Listener(), headers);
      call.request(INBOUND_WINDOW);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Blocks until the relay says PAIRED; on any failure the call is cancelled and the exception
   * thrown.
   */
  void awaitPaired(Duration pairTimeout) throws BridgeException {
    awaitPaired(pairTimeout, System.nanoTime() + pairTimeout.toNanos());
  }

  /** As above, by {@code deadline} (System.nanoTime()), naming {@code pairTimeout} if it passes. */
  void awaitPaired(Duration pairTimeout, long deadline) throws BridgeException {
    try {
      while (true) {
        Inbound event = poll(deadline, "waiting for the peer to open stream " + key.describe());
        if (event == null) {
          cancel("peer did not come within the pair timeout");
          throw new BridgeTimeoutException(
              "peer did not open stream "
                  + key.describe()
                  + " within "
                  + Durations.human(pairTimeout));
        }
        if (event instanceof Received f && f.kind() == Frame.KindCase.PAIRED) {
          attempt = f.frame().getPaired().getAttempt();
          peerParty = f.frame().getPaired().getPeerParty();
          if (failure
              != null) { // aborted from another thread (e.g. BridgeClient.close) while pairing
            throw failure.toException();
          }
          requestOne();
          LOG.debug("'{}' paired with '{}' on {}", client.partyName(), peerParty, where());
          return;
        }
        if (event instanceof Received f) {
          protocolError("relay sent " + Frames.typeName(f.kind()) + " before PAIRED");
        }
        throw currentFailure("relay ended the stream before pairing");
      }
    } catch (BridgeException | RuntimeException e) {
      cancel("open failed");
      throw e;
    }
  }

  @Override
  public String session() {
    return key.session();
  }

  @Override
  public String channel() {
    return key.channel();
  }

  @Override
  public int attempt() {
    return attempt;
  }

  @Override
  public String peerParty() {
    return peerParty;
  }

  @Override
  public void send(byte[] data, int off, int len) throws BridgeException {
    Objects.checkFromIndexSize(off, len, data.length);
    int max = client.config().maxFrameBytes();
    if (len > max) {
      throw new IllegalArgumentException(
          "frame of " + len + " bytes exceeds maxFrameBytes (" + max + ") on " + where());
    }
    Frame frame =
        Frames.data(data, off, len); // no copy: sendMessage serializes it before returning
    Duration idle = client.config().idleTimeout();
    long nanos = idle.toNanos();
    lock.lock();
    try {
      checkSendable();
      while (!call.isReady()) {
        if (nanos <= 0) {
          throw new BridgeTimeoutException(
              "peer '"
                  + peerParty
                  + "' took no data for "
                  + Durations.human(idle)
                  + " on "
                  + where()
                  + ": it is not reading (back-pressure), or the connection is stalled");
        }
        nanos = changed.awaitNanos(nanos);
        checkSendable();
      }
      call.sendMessage(frame);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BridgeException("interrupted while sending on " + where(), e);
    } finally {
      lock.unlock();
    }
    bytesSent.addAndGet(len);
  }

  @Override
  public byte[] receive() throws BridgeException {
    if (peerFinished) {
      return null;
    }
    Duration idle = client.config().idleTimeout();
    long deadline = System.nanoTime() + idle.toNanos();
    while (true) {
      Failure f = failure;
      if (f != null) {
        throw f.toException(); // a failure wins over frames still queued: they are moot now
      }
      Inbound event = poll(deadline, "receiving on " + where());
      if (event == null) {
        throw new BridgeTimeoutException(
            "no data from peer '"
                + peerParty
                + "' for "
                + Durations.human(idle)
                + " on "
                + where());
      }
      if (event instanceof Received frame) {
        switch (frame.kind()) {
          case DATA -> {
            requestOne();
            byte[] payload = Frames.dataPayload(frame.frame());
            bytesReceived.addAndGet(payload.length);
            return payload;
          }
          case FINISH -> {
            peerFinished = true;
            requestOne();
            return null;
          }
          default ->
              protocolError("relay sent an unexpected " + Frames.typeName(frame.kind()) + " frame");
        }
      } else if (failure == null) { // closed OK without the peer's FINISH
        recordFailure(Failure.other("relay ended " + where() + " before the peer finished"));
      }
    }
  }

  @Override
  public void finish() throws BridgeException {
    lock.lock();
    try {
      if (finishSent) {
        return;
      }
      checkSendable();
      call.sendMessage(Frames.finish()); // one byte: no need to wait for readiness
      finishSent = true;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void abort(String reason) {
    lock.lock();
    try {
      if (abortSent || callClosed || failure != null) {
        return; // already over: nothing to tell the peer
      }
      abortSent = true;
      failure = Failure.other("stream " + where() + " was aborted by this party: " + reason);
      LOG.info("'{}' aborts {}: {}", client.partyName(), where(), reason);
      if (attempt < 0) {
        call.cancel(
            "aborted before pairing: " + reason,
            null); // no peer to tell; the relay reads nothing yet
      } else {
        try {
          call.sendMessage(Frames.abort(reason));
        } catch (RuntimeException e) {
          LOG.debug("could not send ABORT on {}", where(), e);
        }
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    inbound.clear(); // frames not read yet are moot: free them now
    inbound.add(new Closed()); // and wake a receiver blocked in another thread
    // The relay closes the call once it has the ABORT; if it cannot get it (e.g. the call is
    // stalled
    // by back-pressure) the cancel still tells the peer that this party is gone.
    client.later(ABORT_GRACE, () -> cancel("aborted: " + reason));
    client.forget(this);
  }

  @Override
  public long bytesSent() {
    return bytesSent.get();
  }

  @Override
  public long bytesReceived() {
    return bytesReceived.get();
  }

  @Override
  public void close() {
    boolean done;
    boolean ended;
    lock.lock();
    try {
      done = failure != null || abortSent || (finishSent && peerFinished);
      ended = callClosed;
    } finally {
      lock.unlock();
    }
    if (!done) {
      abort("closed by " + client.partyName());
      return;
    }
    if (!ended) { // the relay is about to close the call; make sure it does not linger if it does
      // not
      client.later(ABORT_GRACE, () -> cancel("stream closed"));
    }
    client.forget(this);
  }

  /** Cancels the call unless it has ended; idempotent. */
  void cancel(String why) {
    lock.lock();
    try {
      if (!callClosed) {
        call.cancel(why, null);
      }
    } finally {
      lock.unlock();
    }
  }

  private String where() {
    int a = attempt;
    return a >= 0 ? key.describe(a) : key.describe();
  }

  private void checkSendable() throws BridgeException {
    Failure f = failure;
    if (f != null) {
      throw f.toException();
    }
    if (finishSent) {
      throw new IllegalStateException("stream " + where() + " is already finished");
    }
  }

  private Inbound poll(long deadlineNanos, String doing) throws BridgeException {
    try {
      return inbound.poll(deadlineNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BridgeException("interrupted while " + doing, e);
    }
  }

  private void requestOne() {
    lock.lock();
    try {
      if (!callClosed) {
        call.request(1);
      }
    } finally {
      lock.unlock();
    }
  }

  private BridgeException currentFailure(String otherwise) {
    Failure f = failure;
    return f != null ? f.toException() : new BridgeException(otherwise + " " + where());
  }

  private void recordFailure(Failure f) {
    lock.lock();
    try {
      if (failure == null) {
        failure = f;
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** The relay broke the protocol: fail the stream and cancel its call. */
  private void protocolError(String problem) throws BridgeException {
    Failure f = Failure.other(problem + " on " + where());
    recordFailure(f);
    cancel(problem);
    throw f.toException();
  }

  /** gRPC callbacks; they only queue and signal, the application thread does the work. */
  private final class Listener extends ClientCall.Listener<Frames.Parsed> {
    @Override
    public void onMessage(Frames.Parsed message) {
      try {
        Frame.KindCase kind = Frames.check(message, client.config().maxFrameBytes());
        inbound.add(new Received(kind, message.frame()));
      } catch (Frames.MalformedFrameException e) {
        recordFailure(
            Failure.other("relay sent a malformed frame (" + e.getMessage() + ") on " + where()));
        cancel("malformed frame from relay");
        inbound.add(new Closed());
      }
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      lock.lock();
      try {
        callClosed = true;
        if (!status.isOk() && failure == null) {
          failure = Failure.fromStatus(status, key, attempt, client.relayAddress());
        }
        changed.signalAll();
      } finally {
        lock.unlock();
      }
      inbound.add(new Closed());
      if (!status.isOk()) {
        client.forget(ClientStream.this);
      }
    }

    @Override
    public void onReady() {
      lock.lock();
      try {
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }
}
