package io.psiflink.jobs.psi;

import io.psiflink.nativepsi.PsiPhase;

/**
 * The frames psi-flink's jobs exchange on a bridge stream. The bridge moves opaque frames; this is
 * their content: one type byte, then the body. On bin streams (and the setup rounds of the control
 * stream) every frame travels sealed as a whole, type byte included ({@link SealedBinStream}).
 * <ul>
 *   <li>HELLO: a handshake message (body defined by its user);</li>
 *   <li>REVEAL: the 32-byte nonce a bin HELLO committed to;</li>
 *   <li>PSI: phase u8, round u8, last u8, then a chunk of the native protocol message the sender
 *       emitted in that round;</li>
 *   <li>PAYLOAD: a chunk of revealed columns; PAYLOAD_END: the summary (keys, rows);</li>
 *   <li>DONE: the output party has everything for this bin.</li>
 * </ul>
 */
public final class Frames {
  public static final byte HELLO = 1;
  public static final byte PSI = 2;
  public static final byte PAYLOAD = 3;
  public static final byte PAYLOAD_END = 4;
  public static final byte DONE = 5;
  /** The nonce a HELLO committed to, sent once both HELLOs arrived. */
  public static final byte REVEAL = 6;
  /** Header length of a PSI frame. */
  public static final int PSI_HEADER = 4;

  private Frames() {}

  public static byte[] of(byte type, byte[] body) {
    byte[] f = new byte[1 + body.length];
    f[0] = type;
    System.arraycopy(body, 0, f, 1, body.length);
    return f;
  }

  public static void psiHeader(byte[] frame, PsiPhase phase, int round, boolean last) {
    frame[0] = PSI;
    frame[1] = (byte) phase.ordinal();
    frame[2] = (byte) round;
    frame[3] = (byte) (last ? 1 : 0);
  }

  /** The frame's type; the frame must not be empty. */
  public static byte type(byte[] frame) throws PeerProtocolException {
    if (frame.length == 0) {
      throw new PeerProtocolException("peer sent an empty frame");
    }
    return frame[0];
  }

  /** Checks that {@code frame} has the expected type and returns its body. */
  public static byte[] body(byte[] frame, byte expected, String what) throws PeerProtocolException {
    if (frame == null) {
      throw new PeerProtocolException("peer ended the stream while " + what);
    }
    if (type(frame) != expected) {
      throw new PeerProtocolException("peer sent frame type " + frame[0] + " while " + what
          + " (expected " + expected + ")");
    }
    byte[] b = new byte[frame.length - 1];
    System.arraycopy(frame, 1, b, 0, b.length);
    return b;
  }
}
