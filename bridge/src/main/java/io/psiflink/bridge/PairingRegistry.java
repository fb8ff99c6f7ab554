package io.psiflink.bridge;

import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pairs streams by (session, channel): the first stream waits, a stream of a different party
 * completes the pair, a newer stream of the same party supersedes the older one.
 */
final class PairingRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(PairingRegistry.class);

  /** How long attempt numbers of a key are remembered after its last stream ended. */
  static final Duration ATTEMPT_MEMORY = Duration.ofHours(1);

  private final ConcurrentMap<StreamKey, KeySlot> slots = new ConcurrentHashMap<>();
  private final Duration pairTimeout;
  private final int maxFrameBytes;
  private final ScheduledExecutorService timer;
  private final RelayCounters counters;
  private final ListenRegistry listeners;
  private volatile boolean shuttingDown;

  PairingRegistry(
      Duration pairTimeout,
      int maxFrameBytes,
      ScheduledExecutorService timer,
      RelayCounters counters,
      ListenRegistry listeners) {
    this.listeners = listeners;
    this.pairTimeout = pairTimeout;
    this.maxFrameBytes = maxFrameBytes;
    this.timer = timer;
    this.counters = counters;
  }

  void register(RelayStream stream) {
    counters.streamsOpened.incrementAndGet();
    while (true) {
      KeySlot slot = slots.computeIfAbsent(stream.key, KeySlot::new);
      synchronized (slot) {
        if (slot.retired) {
          continue; // pruned concurrently; look up the replacement
        }
        stream.slot = slot;
        if (shuttingDown) {
          stream.close(Status.UNAVAILABLE.withDescription(StreamPair.SHUTTING_DOWN));
          return;
        }
        supersedeEarlier(slot, stream);
        RelayStream partner = slot.waiting;
        if (partner != null && !mayPair(partner, stream)) {
          // a caller waits for one party only: a third party cannot take the callee's place
          LOG.warn(
              "refused a stream of party '{}' on {}: the waiting stream of '{}' is for '{}'",
              stream.party,
              slot.key.describe(),
              partner.party,
              partner.callee != null ? partner.callee : stream.callee);
          stream.close(
              Status.PERMISSION_DENIED.withDescription(
                  "the stream of party '"
                      + partner.party
                      + "' waiting on "
                      + slot.key.describe()
                      + " is not for party '"
                      + stream.party
                      + "'"));
          return;
        }
        if (partner
            != null) { // necessarily of another party: an own waiting stream was just superseded
          slot.waiting = null;
          counters.waitingStreams.decrementAndGet();
          partner.cancelPairTimer();
          new StreamPair(slot, partner, stream, slot.pairings++, maxFrameBytes, counters).start();
        } else {
          if (stream.callee != null && !listeners.call(stream.callee, slot.key, stream.party)) {
            LOG.info(
                "party '{}' called '{}' on {}, which is not listening",
                stream.party,
                stream.callee,
                slot.key.describe());
            stream.close(
                Status.FAILED_PRECONDITION.withDescription(
                    "party '" + stream.callee + "' is not connected to the relay"));
            return;
          }
          startWaiting(slot, stream);
        }
        return;
      }
    }
  }

  /** Whether the waiting {@code partner} and {@code newer} may pair, as far as callees go. */
  private static boolean mayPair(RelayStream partner, RelayStream newer) {
    return (partner.callee == null || partner.callee.equals(newer.party))
        && (newer.callee == null || newer.callee.equals(partner.party));
  }

  /** A waiting stream's client cancelled (or half-closed) before a peer came. */
  void onWaitingEnded(RelayStream stream, boolean halfClosed) {
    KeySlot slot = stream.slot;
    if (slot.waiting != stream) {
      return;
    }
    removeWaiting(slot);
    if (halfClosed) {
      stream.close(Status.INVALID_ARGUMENT.withDescription("stream ended before it was paired"));
    } else {
      LOG.info("party '{}' gave up waiting for its peer on {}", stream.party, slot.key.describe());
    }
  }

  /**
   * Fails every open stream with "relay shutting down"; streams arriving later are refused the same
   * way.
   */
  void shutdown() {
    shuttingDown = true;
    for (KeySlot slot : slots.values()) {
      synchronized (slot) {
        if (slot.waiting != null) {
          RelayStream waiting = slot.waiting;
          removeWaiting(slot);
          waiting.close(Status.UNAVAILABLE.withDescription(StreamPair.SHUTTING_DOWN));
        }
        for (StreamPair pair : List.copyOf(slot.active)) {
          pair.shutdown();
        }
      }
    }
  }

  /**
   * Forgets keys idle for longer than {@link #ATTEMPT_MEMORY}, so memory stays bounded over many
   * sessions.
   */
  void prune() {
    long now = System.nanoTime();
    for (KeySlot slot : slots.values()) {
      synchronized (slot) {
        if (slot.isEmpty() && now - slot.idleSinceNanos > ATTEMPT_MEMORY.toNanos()) {
          slot.retired = true;
          slots.remove(slot.key, slot);
        }
      }
    }
  }

  private void supersedeEarlier(KeySlot slot, RelayStream newer) {
    RelayStream waiting = slot.waiting;
    if (waiting != null && waiting.party.equals(newer.party)) {
      LOG.warn(
          "party '{}' reopened {} while its earlier stream was waiting; superseding the earlier stream",
          newer.party,
          slot.key.describe());
      removeWaiting(slot);
      waiting.close(
          Status.CANCELLED.withDescription("superseded by a newer stream of the same party"));
    }
    for (StreamPair pair : List.copyOf(slot.active)) {
      if (pair.has(newer.party)) {
        pair.supersede(newer.party);
      }
    }
  }

  private void startWaiting(KeySlot slot, RelayStream stream) {
    slot.waiting = stream;
    counters.waitingStreams.incrementAndGet();
    LOG.debug("party '{}' waits for its peer on {}", stream.party, slot.key.describe());
    try {
      stream.pairTimer =
          timer.schedule(() -> pairTimedOut(stream), pairTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) { // the relay is closing
      removeWaiting(slot);
      stream.close(Status.UNAVAILABLE.withDescription(StreamPair.SHUTTING_DOWN));
    }
  }

  private void pairTimedOut(RelayStream stream) {
    KeySlot slot = stream.slot;
    synchronized (slot) {
      if (slot.waiting != stream) {
        return;
      }
      LOG.info(
          "party '{}' waited {} on {} but its peer did not come",
          stream.party,
          Durations.human(pairTimeout),
          slot.key.describe());
      removeWaiting(slot);
      stream.close(
          Status.DEADLINE_EXCEEDED.withDescription(
              "peer did not open stream "
                  + slot.key.describe()
                  + " within "
                  + Durations.human(pairTimeout)));
    }
  }

  private void removeWaiting(KeySlot slot) {
    slot.waiting.cancelPairTimer();
    slot.waiting = null;
    counters.waitingStreams.decrementAndGet();
    slot.touch();
  }
}
