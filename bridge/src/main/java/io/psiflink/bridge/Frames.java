package io.psiflink.bridge;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.UnknownFieldSet;
import com.google.protobuf.UnsafeByteOperations;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.psiflink.bridge.proto.v1.Abort;
import io.psiflink.bridge.proto.v1.BridgeGrpc;
import io.psiflink.bridge.proto.v1.Finish;
import io.psiflink.bridge.proto.v1.Frame;
import io.psiflink.bridge.proto.v1.Paired;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The frames of an Exchange call: {@code psiflink.bridge.v1.Frame} (bridge.proto), built and
 * checked here.
 *
 * <ul>
 *   <li>DATA: opaque payload (at most maxFrameBytes)
 *   <li>PAIRED (relay to client): the attempt, then the peer's party name
 *   <li>FINISH: the sender's direction ended cleanly
 *   <li>ABORT: the reason in words
 * </ul>
 *
 * <p>Messages are parsed by {@link #PARSED}, which never throws: a message that is no frame reaches
 * the receiver as a {@link Parsed} naming the problem, so the receiver fails the stream in words
 * (and the relay tells the peer) instead of gRPC resetting the call.
 */
final class Frames {
  /**
   * Longest abort reason or party name on the wire; longer reasons are cut (they end up in gRPC
   * trailers).
   */
  static final int MAX_TEXT_BYTES = 1024;

  /**
   * What a message may carry beyond maxFrameBytes of payload: the protobuf tag and length of DATA,
   * or a control frame's body.
   */
  static final int MAX_OVERHEAD = 16 + MAX_TEXT_BYTES;

  private static final Frame FINISH =
      Frame.newBuilder().setFinish(Finish.getDefaultInstance()).build();

  /** The generated marshaller of {@code Frame}, for the frames this side sends. */
  static final MethodDescriptor.Marshaller<Frame> FRAME =
      BridgeGrpc.getExchangeMethod().getRequestMarshaller();

  /** One received message: a frame, or (frame null) why it is not one. */
  record Parsed(Frame frame, String problem) {}

  /** Parses messages into {@link Parsed}; serializes only well-formed ones. */
  static final MethodDescriptor.Marshaller<Parsed> PARSED =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(Parsed value) {
          return FRAME.stream(value.frame());
        }

        @Override
        public Parsed parse(InputStream stream) {
          try {
            byte[] bytes;
            if (stream instanceof KnownLength) {
              bytes = new byte[stream.available()];
              int n = stream.readNBytes(bytes, 0, bytes.length);
              if (n != bytes.length || stream.read() != -1) {
                throw new IOException(
                    "message length differs from the announced " + bytes.length + " bytes");
              }
            } else {
              bytes = stream.readAllBytes();
            }
            return Frames.parse(bytes);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  private Frames() {}

  /**
   * Parses one message. The DATA payload aliases {@code message} (no copy): the array must not
   * change afterwards.
   */
  static Parsed parse(byte[] message) {
    if (message.length == 0) {
      return new Parsed(null, "empty frame");
    }
    try {
      // over an array protobuf takes as immutable: only then does aliasing not copy the bytes
      CodedInputStream in = UnsafeByteOperations.unsafeWrap(message).newCodedInput();
      in.enableAliasing(true);
      return new Parsed(Frame.parseFrom(in), null);
    } catch (IOException e) { // InvalidProtocolBufferException: the array holds the whole message
      return new Parsed(null, "not a psiflink.bridge.v1 frame (" + e.getMessage() + ")");
    }
  }

  /**
   * The frame carries {@code payload[off, off+len)} without copying it: the frame is serialized
   * while it is sent, so the caller may reuse the array once {@code send} returned.
   */
  static Frame data(byte[] payload, int off, int len) {
    return Frame.newBuilder().setData(UnsafeByteOperations.unsafeWrap(payload, off, len)).build();
  }

  static Frame paired(int attempt, String peerParty) {
    return Frame.newBuilder()
        .setPaired(Paired.newBuilder().setAttempt(attempt).setPeerParty(truncated(peerParty)))
        .build();
  }

  static Frame finish() {
    return FINISH;
  }

  static Frame abort(String reason) {
    return Frame.newBuilder().setAbort(Abort.newBuilder().setReason(truncated(reason))).build();
  }

  /**
   * Checks a parsed message and returns its frame's kind: every field is checked, and fields this
   * version does not know are refused (the peer speaks another version).
   *
   * @throws MalformedFrameException naming the problem in plain words
   */
  static Frame.KindCase check(Parsed message, int maxFrameBytes) throws MalformedFrameException {
    if (message.problem() != null) {
      throw new MalformedFrameException(message.problem());
    }
    return check(message.frame(), maxFrameBytes);
  }

  static Frame.KindCase check(Frame frame, int maxFrameBytes) throws MalformedFrameException {
    Frame.KindCase kind = frame.getKindCase();
    if (kind == Frame.KindCase.KIND_NOT_SET) {
      throw new MalformedFrameException(
          frame.getUnknownFields().asMap().isEmpty()
              ? "empty frame"
              : "unknown frame kind (field " + frame.getUnknownFields().asMap().keySet() + ")");
    }
    unknownFields(kind, frame.getUnknownFields());
    switch (kind) {
      case DATA -> {
        if (frame.getData().size() > maxFrameBytes) {
          throw new MalformedFrameException(
              "DATA frame of "
                  + frame.getData().size()
                  + " bytes exceeds the limit of "
                  + maxFrameBytes
                  + " bytes");
        }
      }
      case PAIRED -> {
        Paired p = frame.getPaired();
        unknownFields(kind, p.getUnknownFields());
        if (p.getPeerPartyBytes().size() > MAX_TEXT_BYTES) {
          throw new MalformedFrameException(
              "PAIRED peer name of "
                  + p.getPeerPartyBytes().size()
                  + " bytes exceeds "
                  + MAX_TEXT_BYTES
                  + " bytes");
        }
        if (p.getAttempt() < 0) {
          throw new MalformedFrameException(
              "PAIRED attempt " + Integer.toUnsignedString(p.getAttempt()) + " is out of range");
        }
      }
      case FINISH -> unknownFields(kind, frame.getFinish().getUnknownFields());
      case ABORT -> {
        Abort a = frame.getAbort();
        unknownFields(kind, a.getUnknownFields());
        if (a.getReasonBytes().size() > MAX_TEXT_BYTES) {
          throw new MalformedFrameException(
              "ABORT reason of "
                  + a.getReasonBytes().size()
                  + " bytes exceeds "
                  + MAX_TEXT_BYTES
                  + " bytes");
        }
      }
      default -> throw new MalformedFrameException("unknown frame kind " + kind);
    }
    return kind;
  }

  private static void unknownFields(Frame.KindCase kind, UnknownFieldSet unknown)
      throws MalformedFrameException {
    if (!unknown.asMap().isEmpty()) {
      throw new MalformedFrameException(
          kind
              + " frame with unknown field(s) "
              + unknown.asMap().keySet()
              + ": the sender speaks another version than psiflink.bridge.v1");
    }
  }

  /** The payload of a checked DATA frame, as a new array. */
  static byte[] dataPayload(Frame frame) {
    return frame.getData().toByteArray();
  }

  static String typeName(Frame.KindCase kind) {
    return kind == Frame.KindCase.KIND_NOT_SET ? "empty" : kind.name();
  }

  /** {@code text}, cut at a character boundary to at most {@link #MAX_TEXT_BYTES} of UTF-8. */
  static String truncated(String text) {
    String s = text == null ? "" : text;
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= MAX_TEXT_BYTES) {
      return s;
    }
    int end = MAX_TEXT_BYTES;
    while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
      end--; // do not split a multi-byte character
    }
    return new String(Arrays.copyOf(bytes, end), StandardCharsets.UTF_8);
  }

  /** A frame that breaks the framing rules. */
  static final class MalformedFrameException extends Exception {
    private static final long serialVersionUID = 1L;

    MalformedFrameException(String message) {
      super(message);
    }
  }
}
