package io.psiflink.nativepsi;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Outcome of {@link RoundDriver#run}: both parties' intersection indices and the traffic.
 * Immutable; the index accessors return copies.
 */
public final class PsiRunResult {
  private final long[] receiverIndices;
  private final long[] senderIndices; // null when the sender learns nothing
  private final PhaseTraffic setup;
  private final PhaseTraffic online;
  private final long cardinality; // -1 unless output=cardinality
  private final byte[] labels; // null unless output=labels

  /**
   * @param receiverIndices the receiver's intersecting indices, ascending
   * @param senderIndices the sender's, or null when the protocol gives the sender no output
   * @param setup traffic of the setup phase ({@link PhaseTraffic#NONE} if it was imported)
   * @param online traffic of the online phase
   */
  public PsiRunResult(
      long[] receiverIndices, long[] senderIndices, PhaseTraffic setup, PhaseTraffic online) {
    this.receiverIndices = Objects.requireNonNull(receiverIndices, "receiverIndices").clone();
    this.senderIndices = senderIndices == null ? null : senderIndices.clone();
    this.setup = Objects.requireNonNull(setup, "setup");
    this.online = Objects.requireNonNull(online, "online");
    this.cardinality = -1;
    this.labels = null;
  }

  private PsiRunResult(
      long[] receiverIndices, byte[] labels, PhaseTraffic setup, PhaseTraffic online) {
    this.receiverIndices = Objects.requireNonNull(receiverIndices, "receiverIndices").clone();
    this.senderIndices = null;
    this.setup = Objects.requireNonNull(setup, "setup");
    this.online = Objects.requireNonNull(online, "online");
    this.cardinality = -1;
    this.labels = Objects.requireNonNull(labels, "labels").clone();
  }

  /**
   * A labelled outcome ({@code output=labels}): the receiver's indices and the sender's labels of
   * them, back to back in index order; the sender learns nothing.
   */
  public static PsiRunResult labelled(
      long[] receiverIndices, byte[] labels, PhaseTraffic setup, PhaseTraffic online) {
    return new PsiRunResult(receiverIndices, labels, setup, online);
  }

  /** With {@code output=labels}: the receiver's labels in index order (a copy); else empty. */
  public Optional<byte[]> labels() {
    return labels == null ? Optional.empty() : Optional.of(labels.clone());
  }

  /**
   * A cardinality-only outcome ({@code output=cardinality}): no indices, the receiver's count.
   *
   * @param cardinality the size of the intersection, as the receiver learnt it (>= 0)
   */
  public PsiRunResult(
      long[] receiverIndices,
      long[] senderIndices,
      PhaseTraffic setup,
      PhaseTraffic online,
      long cardinality) {
    if (cardinality < 0) {
      throw new IllegalArgumentException("cardinality must be >= 0: " + cardinality);
    }
    this.receiverIndices = Objects.requireNonNull(receiverIndices, "receiverIndices").clone();
    this.senderIndices = senderIndices == null ? null : senderIndices.clone();
    this.setup = Objects.requireNonNull(setup, "setup");
    this.online = Objects.requireNonNull(online, "online");
    this.cardinality = cardinality;
    this.labels = null;
  }

  /** The intersection size the receiver learnt with {@code output=cardinality}; empty otherwise. */
  public OptionalLong cardinality() {
    return cardinality < 0 ? OptionalLong.empty() : OptionalLong.of(cardinality);
  }

  /** Indices into the receiver's input of the intersecting elements, ascending. */
  public long[] receiverIndices() {
    return receiverIndices.clone();
  }

  /**
   * Indices into the sender's input, ascending; empty unless the sender learns them ({@code
   * output=both}).
   */
  public Optional<long[]> senderIndices() {
    return senderIndices == null ? Optional.empty() : Optional.of(senderIndices.clone());
  }

  /** Bytes the receiver sent, setup and online. */
  public long bytesReceiverToSender() {
    return setup.bytesReceiverToSender() + online.bytesReceiverToSender();
  }

  /** Bytes the sender sent, setup and online. */
  public long bytesSenderToReceiver() {
    return setup.bytesSenderToReceiver() + online.bytesSenderToReceiver();
  }

  /** Wall-clock seconds of the whole run. */
  public double seconds() {
    return setup.seconds() + online.seconds();
  }

  /** Traffic of the setup phase ({@link PhaseTraffic#NONE} when the setup was imported). */
  public PhaseTraffic setup() {
    return setup;
  }

  /** Traffic of the online phase. */
  public PhaseTraffic online() {
    return online;
  }

  @Override
  public String toString() {
    if (cardinality >= 0) {
      return "PsiRunResult[cardinality="
          + cardinality
          + ", setup="
          + setup
          + ", online="
          + online
          + "]";
    }
    return "PsiRunResult[receiver="
        + receiverIndices.length
        + " indices, sender="
        + (senderIndices == null ? "none" : senderIndices.length + " indices")
        + ", setup="
        + setup
        + ", online="
        + online
        + "]";
  }
}
