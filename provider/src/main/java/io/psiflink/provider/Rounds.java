package io.psiflink.provider;

import static io.psiflink.provider.ProviderWire.CHUNK_BYTES;
import static io.psiflink.provider.ProviderWire.PSI;
import static io.psiflink.provider.ProviderWire.PSI_HEADER;

import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.HelloCrypto.Rejected;
import io.psiflink.nativepsi.EmitResult;
import io.psiflink.nativepsi.PsiPhase;
import io.psiflink.nativepsi.PsiSession;

/**
 * The rounds of a native mpsi phase on sealed streams, chunk by chunk (a message is never whole in
 * memory): a party's side against the provider ({@link #party}), and the pieces the provider's side
 * is made of ({@link #emit} for its broadcasts, {@link #chunk} for what it takes from each party).
 * Every chunk travels with its phase, round and last flag inside the seal, so the relay can neither
 * alter nor cut a round.
 */
final class Rounds {
  /** Emits that write nothing before an emit loop is declared stuck (a native bug). */
  private static final int MAX_IDLE_EMITS = 16;

  private Rounds() {}

  /** Takes one frame of a round: the header is {@code frame[0, PSI_HEADER)}. */
  @FunctionalInterface
  interface ChunkSink<E extends Exception> {
    void accept(byte[] frame, int len) throws E;
  }

  /** A buffer for one frame: header and a chunk. */
  static byte[] frameBuffer() {
    return new byte[PSI_HEADER + CHUNK_BYTES];
  }

  /**
   * Streams the message of round {@code round} to {@code sink} chunk by chunk (the last frame
   * flagged); the phase's last round emits nothing and sends nothing.
   */
  static <E extends Exception> void emit(
      PsiSession s, PsiPhase phase, int round, byte[] frame, ChunkSink<E> sink) throws E {
    boolean lastRound = round + 1 == s.roundCount(phase);
    for (int idle = 0; ; ) {
      EmitResult e = s.emit(phase, round, frame, PSI_HEADER, CHUNK_BYTES);
      if (lastRound && e.written() > 0) {
        throw new IllegalStateException(
            phase + " round " + round + " is the last but emitted " + e.written() + " bytes");
      }
      if (!lastRound && (e.written() > 0 || e.done())) {
        frame[0] = PSI;
        frame[1] = (byte) phase.code();
        frame[2] = (byte) round;
        frame[3] = (byte) (e.done() ? 1 : 0);
        sink.accept(frame, PSI_HEADER + e.written());
      }
      if (e.done()) {
        return;
      }
      idle = e.written() == 0 ? idle + 1 : 0;
      if (idle > MAX_IDLE_EMITS) {
        throw new IllegalStateException(phase + " round " + round + ": emit makes no progress");
      }
    }
  }

  /**
   * Checks that {@code f} is a chunk of {@code phase}'s round {@code round}, sent by {@code who};
   * returns whether it is the round's last.
   */
  static boolean chunk(byte[] f, PsiPhase phase, int round, String who) throws Rejected {
    if (f.length < PSI_HEADER || f[0] != PSI) {
      throw new Rejected(
          who
              + " sent "
              + ProviderWire.describeFrame(f)
              + " where a chunk of "
              + phase
              + " round "
              + round
              + " was due");
    }
    if (f[1] != phase.code() || (f[2] & 0xff) != round || (f[3] & 0xfe) != 0) {
      throw new Rejected(
          who
              + " sent a chunk of phase "
              + f[1]
              + " round "
              + (f[2] & 0xff)
              + " where one of "
              + phase
              + " round "
              + round
              + " was due");
    }
    return f[3] == 1;
  }

  /**
   * A party's side of {@code phase}: feeds the provider's broadcast of each previous round, streams
   * its own messages to the provider.
   *
   * @throws io.psiflink.nativepsi.PsiException if the native session refuses a message
   */
  static void party(PsiSession s, PsiPhase phase, SealedLink link, String provider)
      throws BridgeException, Rejected {
    byte[] frame = frameBuffer();
    int rounds = s.roundCount(phase);
    for (int r = 0; r < rounds; r++) {
      if (!s.isMine(phase, r)) {
        continue;
      }
      if (r == 0) {
        s.feed(phase, 0, frame, 0, 0, true);
      } else {
        boolean last;
        do {
          byte[] f = link.receive();
          if (f == null) {
            throw new Rejected(
                provider
                    + " ended the stream before its "
                    + phase
                    + " message of round "
                    + (r - 1));
          }
          last = chunk(f, phase, r - 1, provider);
          s.feed(phase, r, f, PSI_HEADER, f.length - PSI_HEADER, last);
        } while (!last);
      }
      emit(s, phase, r, frame, (f, len) -> link.send(f, 0, len));
    }
  }
}
