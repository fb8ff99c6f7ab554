package io.psiflink.bridge;

import java.util.ArrayList;
import java.util.List;

/**
 * The relay's state for one (session, channel). Its monitor guards this state and every stream and
 * pair of the key; lock order is always slot, then nothing else.
 */
final class KeySlot {
  final StreamKey key;

  /** Pairings made so far for this key: the next pair's attempt number. */
  int pairings;

  /** A stream waiting for a peer of a different party, if any. */
  RelayStream waiting;

  /**
   * Pairs currently relaying (normally at most one; more only if more than two parties use the
   * key).
   */
  final List<StreamPair> active = new ArrayList<>(1);

  /** When the slot last became empty, for forgetting attempt numbers of long-finished keys. */
  long idleSinceNanos = System.nanoTime();

  /** Removed from the registry: a thread that finds a retired slot must look the key up again. */
  boolean retired;

  KeySlot(StreamKey key) {
    this.key = key;
  }

  boolean isEmpty() {
    return waiting == null && active.isEmpty();
  }

  void touch() {
    if (isEmpty()) {
      idleSinceNanos = System.nanoTime();
    }
  }
}
