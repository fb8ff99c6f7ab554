package io.psiflink.bridge;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The framing inside each gRPC message: one type byte, then the body.
 *
 * <ul>
 *   <li>DATA: opaque payload (at most maxFrameBytes)
 *   <li>PAIRED (relay to client): attempt as unsigned 32-bit big-endian, then the peer's party name in UTF-8
 *   <li>FINISH: empty; the sender's direction ended cleanly
 *   <li>ABORT: the reason in UTF-8
 * </ul>
 */
final class Frames {
  static final byte DATA = 1;
  static final byte PAIRED = 2;
  static final byte FINISH = 3;
  static final byte ABORT = 4;

  /** Longest abort reason or party name on the wire; longer reasons are cut (they end up in gRPC trailers). */
  static final int MAX_TEXT_BYTES = 1024;
  /** What a message may carry beyond maxFrameBytes of payload: the type byte, or a control frame's body. */
  static final int MAX_OVERHEAD = 1 + 4 + MAX_TEXT_BYTES;

  private Frames() {}

  static byte[] data(byte[] payload, int off, int len) {
    byte[] frame = new byte[1 + len];
    frame[0] = DATA;
    System.arraycopy(payload, off, frame, 1, len);
    return frame;
  }

  static byte[] paired(int attempt, String peerParty) {
    byte[] name = truncatedUtf8(peerParty);
    return ByteBuffer.allocate(1 + 4 + name.length).put(PAIRED).putInt(attempt).put(name).array();
  }

  static byte[] finish() {
    return new byte[] {FINISH};
  }

  static byte[] abort(String reason) {
    byte[] text = truncatedUtf8(reason);
    byte[] frame = new byte[1 + text.length];
    frame[0] = ABORT;
    System.arraycopy(text, 0, frame, 1, text.length);
    return frame;
  }

  /**
   * Checks a frame's structure and returns its type.
   *
   * @throws MalformedFrameException naming the problem in plain words
   */
  static byte check(byte[] frame, int maxFrameBytes) throws MalformedFrameException {
    if (frame.length == 0) {
      throw new MalformedFrameException("empty frame");
    }
    byte type = frame[0];
    int body = frame.length - 1;
    switch (type) {
      case DATA -> {
        if (body > maxFrameBytes) {
          throw new MalformedFrameException("DATA frame of " + body + " bytes exceeds the limit of " + maxFrameBytes + " bytes");
        }
      }
      case PAIRED -> {
        if (body < 4 || body - 4 > MAX_TEXT_BYTES) {
          throw new MalformedFrameException("PAIRED frame with a body of " + body + " bytes");
        }
        utf8(frame, 5, "PAIRED peer name");
      }
      case FINISH -> {
        if (body != 0) {
          throw new MalformedFrameException("FINISH frame with a body of " + body + " bytes");
        }
      }
      case ABORT -> {
        if (body > MAX_TEXT_BYTES) {
          throw new MalformedFrameException("ABORT reason of " + body + " bytes exceeds " + MAX_TEXT_BYTES + " bytes");
        }
        utf8(frame, 1, "ABORT reason");
      }
      default -> throw new MalformedFrameException(String.format("unknown frame type 0x%02x", type & 0xff));
    }
    return type;
  }

  static byte[] dataPayload(byte[] frame) {
    return Arrays.copyOfRange(frame, 1, frame.length);
  }

  static int pairedAttempt(byte[] frame) {
    return ByteBuffer.wrap(frame, 1, 4).getInt();
  }

  static String pairedPeer(byte[] frame) {
    return new String(frame, 5, frame.length - 5, StandardCharsets.UTF_8);
  }

  static String abortReason(byte[] frame) {
    return new String(frame, 1, frame.length - 1, StandardCharsets.UTF_8);
  }

  static String typeName(byte type) {
    return switch (type) {
      case DATA -> "DATA";
      case PAIRED -> "PAIRED";
      case FINISH -> "FINISH";
      case ABORT -> "ABORT";
      default -> String.format("0x%02x", type & 0xff);
    };
  }

  /** UTF-8 of {@code text}, cut at a character boundary to at most {@link #MAX_TEXT_BYTES}. */
  static byte[] truncatedUtf8(String text) {
    String s = text == null ? "" : text;
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= MAX_TEXT_BYTES) {
      return bytes;
    }
    int end = MAX_TEXT_BYTES;
    while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
      end--; // do not split a multi-byte character
    }
    return Arrays.copyOf(bytes, end);
  }

  private static void utf8(byte[] frame, int from, String what) throws MalformedFrameException {
    try {
      StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(frame, from, frame.length - from));
    } catch (CharacterCodingException e) {
      throw new MalformedFrameException(what + " is not valid UTF-8");
    }
  }

  /** A frame that breaks the framing rules. */
  static final class MalformedFrameException extends Exception {
    private static final long serialVersionUID = 1L;

    MalformedFrameException(String message) {
      super(message);
    }
  }
}
