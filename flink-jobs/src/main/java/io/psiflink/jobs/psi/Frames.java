package io.psiflink.jobs.psi;

import io.psiflink.jobs.control.v1.FrameType;
import io.psiflink.jobs.payload.BinPayload;
import io.psiflink.nativepsi.PsiPhase;

/**
 * The frames psi-flink's jobs exchange on a bridge stream. The bridge moves opaque frames; this is
 * their content: one type byte ({@code FrameType} of control.proto), then the body. On bin streams
 * (and the setup rounds of the control stream) every frame travels sealed as a whole, type byte
 * included ({@link SealedBinStream}).
 *
 * <ul>
 *   <li>HELLO: a {@code SignedSessionHello} on the control stream, a {@code BinHello} on a bin's;
 *   <li>REVEAL: a {@code Reveal}, the nonce a bin HELLO committed to;
 *   <li>PSI: phase u8, round u8, last u8, then a chunk of the native protocol message the sender
 *       emitted in that round (opaque);
 *   <li>PAYLOAD: a chunk of revealed columns (opaque, {@link BinPayload}); PAYLOAD_END: a {@code
 *       PayloadEnd};
 *   <li>DONE: a {@code Done}: the output party has everything for this bin;
 *   <li>GROUP_KEYS: a {@code GroupKeys} on the pairwise control stream of an n-party session.
 * </ul>
 *
 * Control bodies are parsed and checked by {@link ControlMessages}.
 */
public final class Frames {
  public static final byte HELLO = FrameType.HELLO_VALUE;
  public static final byte PSI = FrameType.PSI_VALUE;
  public static final byte PAYLOAD = FrameType.PAYLOAD_VALUE;
  public static final byte PAYLOAD_END = FrameType.PAYLOAD_END_VALUE;
  public static final byte DONE = FrameType.DONE_VALUE;

  /** The nonce a HELLO committed to, sent once both HELLOs arrived. */
  public static final byte REVEAL = FrameType.REVEAL_VALUE;

  /** The group's keys, from the output party of an n-party session to each other party. */
  public static final byte GROUP_KEYS = FrameType.GROUP_KEYS_VALUE;

  /** Header length of a PSI frame. */
  public static final int PSI_HEADER = 4;

  private Frames() {}

  /** The frame of a control message. */
  public static byte[] of(byte type, com.google.protobuf.MessageLite body) {
    byte[] f = new byte[1 + body.getSerializedSize()];
    f[0] = type;
    com.google.protobuf.CodedOutputStream out =
        com.google.protobuf.CodedOutputStream.newInstance(f, 1, f.length - 1);
    try {
      body.writeTo(out);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot serialize " + body.getClass().getSimpleName(), e);
    }
    out.checkNoSpaceLeft();
    return f;
  }

  /** The name of a frame type, for messages. */
  public static String name(byte type) {
    FrameType t = FrameType.forNumber(type);
    return t == null || t == FrameType.FRAME_TYPE_UNSPECIFIED
        ? "unknown frame type " + type
        : t.name();
  }

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
      throw new PeerProtocolException(
          "peer sent " + name(frame[0]) + " while " + what + " (expected " + name(expected) + ")");
    }
    byte[] b = new byte[frame.length - 1];
    System.arraycopy(frame, 1, b, 0, b.length);
    return b;
  }
}
