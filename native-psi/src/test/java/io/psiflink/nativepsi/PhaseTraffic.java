package io.psiflink.nativepsi;

/**
 * Bytes moved and time spent by {@link RoundDriver} in one phase.
 *
 * @param bytesReceiverToSender message bytes the receiver emitted
 * @param bytesSenderToReceiver message bytes the sender emitted
 * @param seconds wall-clock time of the phase, both parties' computation included
 */
public record PhaseTraffic(long bytesReceiverToSender, long bytesSenderToReceiver, double seconds) {
  /** Nothing moved: a phase that was skipped (imported setup) or has no rounds. */
  public static final PhaseTraffic NONE = new PhaseTraffic(0, 0, 0.0);

  /** Bytes in both directions. */
  public long totalBytes() {
    return bytesReceiverToSender + bytesSenderToReceiver;
  }
}
