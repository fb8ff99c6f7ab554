package io.psiflink.bridge;

/**
 * A snapshot of a relay's counters.
 *
 * @param streamsOpened streams accepted (authenticated, with valid headers) since start
 * @param pairsMade pairings made since start
 * @param activePairs pairs currently relaying
 * @param waitingStreams streams currently waiting for their peer
 * @param bytesRelayed DATA payload bytes forwarded, both directions
 */
public record RelayStats(
    long streamsOpened, long pairsMade, int activePairs, int waitingStreams, long bytesRelayed) {}
