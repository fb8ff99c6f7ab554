package io.psiflink.bridge;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** The live counters behind {@link RelayStats}. */
final class RelayCounters {
  final AtomicLong streamsOpened = new AtomicLong();
  final AtomicLong pairsMade = new AtomicLong();
  final AtomicInteger activePairs = new AtomicInteger();
  final AtomicInteger waitingStreams = new AtomicInteger();
  final AtomicLong bytesRelayed = new AtomicLong();

  RelayStats snapshot() {
    return new RelayStats(
        streamsOpened.get(),
        pairsMade.get(),
        activePairs.get(),
        waitingStreams.get(),
        bytesRelayed.get());
  }
}
