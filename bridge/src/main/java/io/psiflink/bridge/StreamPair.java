package io.psiflink.bridge;

import io.grpc.Status;
import io.psiflink.bridge.proto.v1.Frame;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two paired streams of different parties, relaying frames both ways.
 *
 * <p>Back-pressure: the relay asks a sender's call for one message at a time (manual inbound flow
 * control) and asks for the next only after forwarding the previous one and seeing that the
 * receiver's call is ready; otherwise it waits for the receiver's onReady. So at most one frame per
 * direction sits in the relay, and a slow reader stalls its sender through HTTP/2 flow control.
 *
 * <p>All methods run under the monitor of {@link #slot}.
 */
final class StreamPair {
  private static final Logger LOG = LoggerFactory.getLogger(StreamPair.class);
  static final String SHUTTING_DOWN = "relay shutting down";

  private final KeySlot slot;
  private final RelayStream first;
  private final RelayStream second;
  private final int attempt;
  private final int maxFrameBytes;
  private final RelayCounters counters;
  private boolean ended;

  StreamPair(
      KeySlot slot,
      RelayStream first,
      RelayStream second,
      int attempt,
      int maxFrameBytes,
      RelayCounters counters) {
    this.slot = slot;
    this.first = first;
    this.second = second;
    this.attempt = attempt;
    this.maxFrameBytes = maxFrameBytes;
    this.counters = counters;
  }

  boolean has(String party) {
    return first.party.equals(party) || second.party.equals(party);
  }

  void start() {
    first.pair = this;
    second.pair = this;
    slot.active.add(this);
    counters.pairsMade.incrementAndGet();
    counters.activePairs.incrementAndGet();
    LOG.info("paired '{}' with '{}' on {}", first.party, second.party, slot.key.describe(attempt));
    first.send(Frames.paired(attempt, second.party));
    second.send(Frames.paired(attempt, first.party));
    requestNextFrom(first);
    requestNextFrom(second);
  }

  void onFrame(RelayStream from, Frames.Parsed message) {
    if (ended) {
      return;
    }
    RelayStream to = other(from);
    Frame.KindCase type;
    Frame frame = message.frame();
    try {
      type = Frames.check(message, maxFrameBytes);
    } catch (Frames.MalformedFrameException e) {
      malformed(from, e.getMessage());
      return;
    }
    switch (type) {
      case DATA -> {
        if (from.finishedSending) {
          malformed(from, "DATA frame after FINISH");
          return;
        }
        to.send(frame); // forwarded as parsed: the payload aliases the received message, no copy
        counters.bytesRelayed.addAndGet(frame.getData().size());
        requestNextFrom(from);
      }
      case FINISH -> {
        if (from.finishedSending) {
          malformed(from, "second FINISH frame");
          return;
        }
        from.finishedSending = true;
        to.send(frame);
        if (to.finishedSending) {
          LOG.debug("both parties finished {}", slot.key.describe(attempt));
          end(first, Status.OK, second, Status.OK);
        } else {
          requestNextFrom(from); // the sender may still ABORT
        }
      }
      case ABORT -> {
        String reason = frame.getAbort().getReason();
        LOG.warn("party '{}' aborted {}: {}", from.party, slot.key.describe(attempt), reason);
        end(
            from, Status.CANCELLED.withDescription("stream aborted by this party: " + reason),
            to, Status.ABORTED.withDescription("peer '" + from.party + "' aborted: " + reason));
      }
      default -> malformed(from, Frames.typeName(type) + " frame sent by a client");
    }
  }

  void onReady(RelayStream ready) {
    if (ended) {
      return;
    }
    RelayStream sender = other(ready);
    if (sender.awaitingPeerReady && ready.call.isReady()) {
      sender.awaitingPeerReady = false;
      sender.call.request(1);
    }
  }

  void onHalfClose(RelayStream from) {
    if (ended || from.finishedSending) {
      return; // half-close after FINISH is harmless
    }
    LOG.warn(
        "party '{}' ended its stream {} without FINISH", from.party, slot.key.describe(attempt));
    end(
        from,
        Status.INVALID_ARGUMENT.withDescription("stream ended without a FINISH frame"),
        other(from),
        Status.ABORTED.withDescription(
            "peer '" + from.party + "' ended its stream without FINISH"));
  }

  void onCancel(RelayStream from) {
    if (ended) {
      return;
    }
    if (from.sentOversizeMessage()) { // gRPC already reset the sender's call; tell the peer what
      // happened
      malformed(from, "message larger than maxFrameBytes (" + maxFrameBytes + ") plus framing");
      return;
    }
    LOG.warn("party '{}' disconnected from {}", from.party, slot.key.describe(attempt));
    end(
        from,
        Status.CANCELLED,
        other(from),
        Status.ABORTED.withDescription("peer '" + from.party + "' disconnected"));
  }

  /** A newer stream of {@code party} for the same key replaces this pair. */
  void supersede(String party) {
    RelayStream old = first.party.equals(party) ? first : second;
    LOG.warn(
        "party '{}' reopened {}; superseding its paired stream", party, slot.key.describe(attempt));
    end(
        old,
        Status.CANCELLED.withDescription("superseded by a newer stream of the same party"),
        other(old),
        Status.ABORTED.withDescription("peer '" + party + "' restarted the stream"));
  }

  void shutdown() {
    Status status = Status.UNAVAILABLE.withDescription(SHUTTING_DOWN);
    end(first, status, second, status);
  }

  private void malformed(RelayStream from, String problem) {
    LOG.warn(
        "party '{}' sent a malformed frame on {}: {}",
        from.party,
        slot.key.describe(attempt),
        problem);
    end(
        from,
        Status.INVALID_ARGUMENT.withDescription("malformed frame: " + problem),
        other(from),
        Status.ABORTED.withDescription(
            "peer '" + from.party + "' sent a malformed frame (" + problem + ")"));
  }

  private void requestNextFrom(RelayStream sender) {
    if (other(sender).call.isReady()) {
      sender.call.request(1);
    } else {
      sender.awaitingPeerReady = true;
    }
  }

  private void end(RelayStream a, Status forA, RelayStream b, Status forB) {
    if (ended) {
      return;
    }
    ended = true;
    a.close(forA);
    b.close(forB);
    slot.active.remove(this);
    slot.touch();
    counters.activePairs.decrementAndGet();
  }

  private RelayStream other(RelayStream s) {
    return s == first ? second : first;
  }
}
