package io.psiflink.jobs.psi;

import io.psiflink.bridge.BridgeException;
import io.psiflink.nativepsi.EmitResult;
import io.psiflink.nativepsi.PsiPhase;
import io.psiflink.nativepsi.PsiSession;

/**
 * Drives one party's side of a protocol phase over a bridge stream: in every round this party owns
 * it feeds the peer's message of the previous round as its frames arrive, then streams its own
 * message out chunk by chunk. Messages are never materialised whole. Every chunk travels sealed
 * with its phase, round and last flag ({@link SealedBinStream}), so the relay can neither alter nor
 * cut a round.
 */
public final class StreamRounds {
  /** Chunk size of protocol messages on the wire. */
  public static final int CHUNK_BYTES = 1 << 20;

  private static final int MAX_IDLE_EMITS = 16;

  private StreamRounds() {}

  public static void run(PsiSession session, PsiPhase phase, SealedBinStream stream)
      throws BridgeException, PeerProtocolException {
    int rounds = session.roundCount(phase);
    byte[] frame = new byte[Frames.PSI_HEADER + CHUNK_BYTES];
    for (int r = 0; r < rounds; r++) {
      if (!session.isMine(phase, r)) {
        continue;
      }
      if (r == 0) {
        session.feed(phase, 0, frame, 0, 0, true);
      } else {
        receiveMessage(session, phase, r, stream);
      }
      boolean lastRound = r + 1 == rounds;
      int idle = 0;
      EmitResult e;
      do {
        e = session.emit(phase, r, frame, Frames.PSI_HEADER, CHUNK_BYTES);
        if (lastRound) {
          if (e.written() > 0) {
            throw new IllegalStateException(
                phase + " round " + r + " is the last but emitted " + e.written() + " bytes");
          }
        } else if (e.written() > 0 || e.done()) {
          Frames.psiHeader(frame, phase, r, e.done());
          stream.send(frame, 0, Frames.PSI_HEADER + e.written());
        }
        idle = e.written() == 0 && !e.done() ? idle + 1 : 0;
        if (idle > MAX_IDLE_EMITS) {
          throw new IllegalStateException(phase + " round " + r + ": emit makes no progress");
        }
      } while (!e.done());
    }
  }

  /** Feeds the peer's message of round {@code r - 1} into round {@code r}. */
  private static void receiveMessage(
      PsiSession session, PsiPhase phase, int r, SealedBinStream stream)
      throws BridgeException, PeerProtocolException {
    while (true) {
      byte[] f = stream.receive();
      if (f == null) {
        throw new PeerProtocolException(
            "peer ended the stream before its " + phase + " message of round " + (r - 1));
      }
      if (f.length < Frames.PSI_HEADER || f[0] != Frames.PSI) {
        throw new PeerProtocolException(
            "expected a PSI frame of "
                + phase
                + " round "
                + (r - 1)
                + ", got "
                + (f.length == 0 ? "an empty frame" : "frame type " + f[0]));
      }
      if (f[1] != phase.ordinal() || (f[2] & 0xff) != r - 1) {
        throw new PeerProtocolException(
            "expected "
                + phase
                + " round "
                + (r - 1)
                + ", peer sent phase "
                + f[1]
                + " round "
                + (f[2] & 0xff));
      }
      boolean last = f[3] == 1;
      session.feed(phase, r, f, Frames.PSI_HEADER, f.length - Frames.PSI_HEADER, last);
      if (last) {
        return;
      }
    }
  }
}
