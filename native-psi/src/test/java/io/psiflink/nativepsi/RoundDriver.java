package io.psiflink.nativepsi;

import java.util.Objects;

/**
 * Runs a whole PSI between two sessions in one JVM, for tests and benchmarks. (The Flink job drives
 * the same {@link PsiSession} calls with the bridge between the parties.)
 *
 * <p>Each round's message goes from the owner's {@link PsiSession#emit} straight into the other
 * party's {@link PsiSession#feed} for the next round, one chunk at a time, so no message is ever
 * held whole in memory. Immutable and stateless: one driver may run many pairs concurrently.
 *
 * <pre>{@code
 * PsiRunResult r = new RoundDriver().run(receiver, sender);   // setup (unless imported) + online
 * }</pre>
 */
public final class RoundDriver {
  /** Chunk size used by {@link #RoundDriver()}: 1 MiB. */
  public static final int DEFAULT_CHUNK_BYTES = 1 << 20;

  // An emit that neither writes nor finishes this many times in a row is a native bug, not
  // progress.
  private static final int MAX_IDLE_EMITS = 10_000;

  private final int chunkBytes;

  /** A driver moving messages in chunks of {@value #DEFAULT_CHUNK_BYTES} bytes. */
  public RoundDriver() {
    this(DEFAULT_CHUNK_BYTES);
  }

  /**
   * @param chunkBytes largest piece moved per emit/feed pair (at least 1)
   */
  public RoundDriver(int chunkBytes) {
    if (chunkBytes < 1) {
      throw new IllegalArgumentException("chunkBytes must be >= 1: " + chunkBytes);
    }
    this.chunkBytes = chunkBytes;
  }

  /** The chunk size. */
  public int chunkBytes() {
    return chunkBytes;
  }

  /**
   * Runs the setup rounds (unless both sessions imported a setup), then the online rounds, and
   * collects the results. Inputs must be set on both sessions. The sender's indices are collected
   * when its parameters say {@code output=both}; with {@code output=cardinality} only the
   * receiver's count ({@link PsiRunResult#cardinality()}); with {@code output=labels} the
   * receiver's labels too ({@link PsiRunResult#labels()}; the sender must have called {@link
   * PsiSession#setLabels} before the round that carries them).
   *
   * @throws IllegalArgumentException if the roles are not RECEIVER and SENDER, or only one session
   *     imported a setup
   * @throws PsiException whatever a native call reports
   */
  public PsiRunResult run(PsiSession receiver, PsiSession sender) {
    checkRoles(receiver, sender);
    if (receiver.isSetupImported() != sender.isSetupImported()) {
      throw new IllegalArgumentException("only one of the two sessions imported a setup");
    }
    PhaseTraffic setup =
        receiver.isSetupImported() ? PhaseTraffic.NONE : runSetup(receiver, sender);
    return runOnline(receiver, sender, setup);
  }

  /** Runs only the setup rounds, e.g. to export the setup for later bins. */
  public PhaseTraffic runSetup(PsiSession receiver, PsiSession sender) {
    checkRoles(receiver, sender);
    return runPhase(PsiPhase.SETUP, receiver, sender);
  }

  /**
   * Runs only the online rounds (the setup must be complete or imported) and collects the results.
   *
   * @param setup traffic to report for the setup phase
   */
  public PsiRunResult runOnline(PsiSession receiver, PsiSession sender, PhaseTraffic setup) {
    checkRoles(receiver, sender);
    PhaseTraffic online = runPhase(PsiPhase.ONLINE, receiver, sender);
    String output = receiver.params().get(PsiParams.OUTPUT).orElse("");
    if (PsiParams.Output.CARDINALITY.value().equals(output)) {
      // the receiver learns only the count; neither party has indices
      return new PsiRunResult(new long[0], null, setup, online, receiver.resultSize());
    }
    if (PsiParams.Output.LABELS.value().equals(output)) {
      // the receiver learns its indices and their labels; the sender learns nothing
      return PsiRunResult.labelled(
          receiver.resultIndices(), receiver.resultLabels(), setup, online);
    }
    long[] receiverIndices = receiver.resultIndices();
    boolean senderLearns =
        sender
            .params()
            .get(PsiParams.OUTPUT)
            .map(PsiParams.Output.BOTH.value()::equals)
            .orElse(false);
    long[] senderIndices = senderLearns ? sender.resultIndices() : null;
    return new PsiRunResult(receiverIndices, senderIndices, setup, online);
  }

  private PhaseTraffic runPhase(PsiPhase phase, PsiSession receiver, PsiSession sender) {
    long start = System.nanoTime();
    int rounds = receiver.roundCount(phase);
    int senderRounds = sender.roundCount(phase);
    if (rounds != senderRounds) {
      throw new IllegalStateException(
          phase + " round counts differ: receiver " + rounds + ", sender " + senderRounds);
    }
    if (rounds == 0) {
      return PhaseTraffic.NONE;
    }
    byte[] chunk = new byte[chunkBytes];
    long[] sent = new long[2]; // [receiver->sender, sender->receiver]
    PsiSession owner = ownerOf(phase, 0, receiver, sender);
    owner.feed(phase, 0, chunk, 0, 0, true); // round 0 consumes nothing
    for (int r = 0; r < rounds; r++) {
      PsiSession peer = owner == receiver ? sender : receiver;
      boolean hasNext = r + 1 < rounds;
      if (hasNext && ownerOf(phase, r + 1, receiver, sender) != peer) {
        throw new IllegalStateException(
            phase + " rounds " + r + " and " + (r + 1) + " have the same owner " + owner.role());
      }
      int direction = owner == receiver ? 0 : 1;
      int idle = 0;
      EmitResult e;
      do {
        e = owner.emit(phase, r, chunk);
        sent[direction] += e.written();
        if (hasNext) {
          // The chunk that completes the message carries last=true: exactly one per round.
          if (e.written() > 0 || e.done()) {
            peer.feed(phase, r + 1, chunk, 0, e.written(), e.done());
          }
        } else if (e.written() > 0) {
          throw new IllegalStateException(
              phase + " round " + r + " is the last but emitted " + e.written() + " bytes");
        }
        idle = e.written() == 0 && !e.done() ? idle + 1 : 0;
        if (idle > MAX_IDLE_EMITS) {
          throw new IllegalStateException(phase + " round " + r + ": emit makes no progress");
        }
      } while (!e.done());
      owner = peer;
    }
    return new PhaseTraffic(sent[0], sent[1], (System.nanoTime() - start) / 1e9);
  }

  private static PsiSession ownerOf(
      PsiPhase phase, int round, PsiSession receiver, PsiSession sender) {
    boolean r = receiver.isMine(phase, round);
    boolean s = sender.isMine(phase, round);
    if (r == s) {
      throw new IllegalStateException(
          phase + " round " + round + ": " + (r ? "both parties own it" : "neither party owns it"));
    }
    return r ? receiver : sender;
  }

  private static void checkRoles(PsiSession receiver, PsiSession sender) {
    Objects.requireNonNull(receiver, "receiver");
    Objects.requireNonNull(sender, "sender");
    if (receiver.role() != PsiRole.RECEIVER || sender.role() != PsiRole.SENDER) {
      throw new IllegalArgumentException(
          "expected a RECEIVER and a SENDER session, got "
              + receiver.role()
              + " and "
              + sender.role());
    }
  }
}
