package io.psiflink.jobs.psi;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.nativepsi.Aead;
import io.psiflink.nativepsi.PsiException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A bridge stream whose every frame (type byte and body) is encrypted and authenticated end to end
 * between the two jobs, so that the relay in between can neither read, alter, forge, replay,
 * reorder nor drop a frame without the receiver noticing.
 *
 * <p>ChaCha20-Poly1305 ({@link Aead}) under one key per direction, derived from the session's frame
 * key (agreed in the signed control handshake, unknown to the relay) and the stream's context:
 * {@code K_dir = HMAC-SHA256(frameKey, "psi-flink frame key v1" ‖ 0x00 ‖ u16 len ‖ session (UTF-8)
 * ‖ i32 bin ‖ i32 attempt ‖ u8 dir)}, dir 0 for frames party A sends, 1 for party B's, bin -1 for
 * the control stream and -2 for the pre-filter's. Binding the context into the key does the work of
 * associated data (the native AEAD takes none): a frame sealed for another session, bin, attempt or
 * direction does not open. The frame type is inside the ciphertext. The nonce is {@code u8 dir ‖
 * 0x000000 ‖ u64 seq}, seq counting the frames of one direction from 0, so a gap, a repeat or a
 * swap fails the next open. Once the bin's protocol instance is fixed, {@link #rekey} moves both
 * directions to keys that also bind the instance and the HELLO transcript, so frames of an earlier
 * attempt cannot be replayed into a later one even if the relay repeats an attempt number.
 *
 * <p>A frame that fails to open is a {@link PeerProtocolException}; the end of the stream is passed
 * on as null (callers know which frame they waited for, so a cut is refused there). Not
 * thread-safe; does not own the bridge stream.
 */
public final class SealedBinStream implements AutoCloseable {
  /** The bin of the control stream's frames (the session's setup rounds). */
  public static final int CONTROL = -1;

  /** The bin of the pre-filter's AND stream (its own keys: never the control stream's). */
  public static final int PREFILTER = -2;

  private static final String KEY_LABEL = "psi-flink frame key v1";
  private static final String INSTANCE_KEY_LABEL = "psi-flink frame key v1 instance";

  private final BridgeStream raw;
  private final byte[] frameKey;
  private final byte[] context;
  private final int bin;
  private final Role self;
  private Aead out;
  private Aead in;
  private long sent;
  private long received;

  /**
   * @param frameKey the session's 32-byte frame key; copied
   * @param bin the bin this stream carries, or {@link #CONTROL}
   * @param self this side's role, {@link Role#A} or {@link Role#B} (sets the directions)
   */
  public SealedBinStream(BridgeStream raw, byte[] frameKey, int bin, Role self) {
    if (frameKey == null || frameKey.length != Aead.KEY_BYTES) {
      throw new IllegalArgumentException("the frame key must be " + Aead.KEY_BYTES + " bytes");
    }
    this.raw = raw;
    this.frameKey = frameKey.clone();
    this.bin = bin;
    this.self = self;
    this.context = context(raw, bin);
    this.out = aead(KEY_LABEL, new byte[0], direction(self));
    this.in = aead(KEY_LABEL, new byte[0], direction(self.peer()));
  }

  /**
   * From the next frame on, both directions use keys bound to the bin's protocol instance and the
   * hash of both HELLOs (sequence numbers go on counting).
   */
  public void rekey(byte[] instance, byte[] transcriptHash) {
    byte[] extra =
        ByteBuffer.allocate(instance.length + transcriptHash.length)
            .put(instance)
            .put(transcriptHash)
            .array();
    out.close();
    in.close();
    out = aead(INSTANCE_KEY_LABEL, extra, direction(self));
    in = aead(INSTANCE_KEY_LABEL, extra, direction(self.peer()));
  }

  /** Seals and sends one frame: {@code type} then {@code body}. */
  public void send(byte type, byte[] body) throws BridgeException {
    send(Frames.of(type, body));
  }

  /** Seals and sends one control message of control.proto as a frame of {@code type}. */
  public void send(byte type, com.google.protobuf.MessageLite message) throws BridgeException {
    send(Frames.of(type, message));
  }

  public void send(byte[] frame) throws BridgeException {
    send(frame, 0, frame.length);
  }

  /** Seals and sends {@code frame[off, off+len)}, which starts with its type byte. */
  public void send(byte[] frame, int off, int len) throws BridgeException {
    if (len < 1) {
      throw new IllegalArgumentException("a frame has at least its type byte");
    }
    byte[] sealed = out.seal(nonce(direction(self), sent), frame, off, len);
    sent++;
    raw.send(sealed);
  }

  /**
   * The next frame from the peer, opened (type byte first), or null when the peer ended the stream.
   *
   * @throws PeerProtocolException if the frame does not open: altered, forged, replayed, reordered,
   *     an earlier one dropped, or sealed for another session, bin, attempt or direction
   */
  public byte[] receive() throws BridgeException, PeerProtocolException {
    byte[] f = raw.receive();
    if (f == null) {
      return null;
    }
    long seq = received++;
    byte[] plain;
    try {
      plain = in.open(nonce(direction(self.peer()), seq), f, 0, f.length);
    } catch (PsiException e) {
      throw new PeerProtocolException(
          "frame "
              + seq
              + " from party "
              + self.peer().label()
              + " on "
              + where()
              + " failed authentication (altered, forged, replayed, reordered, "
              + "an earlier frame dropped, or not sealed by the peer for this stream)");
    }
    if (plain.length == 0) {
      throw new PeerProtocolException("peer sent an empty frame on " + where());
    }
    return plain;
  }

  public void finish() throws BridgeException {
    raw.finish();
  }

  public BridgeStream raw() {
    return raw;
  }

  @Override
  public void close() {
    out.close();
    in.close();
    Arrays.fill(frameKey, (byte) 0);
  }

  /**
   * The stream's context, {@code u16 len ‖ session (UTF-8) ‖ i32 bin ‖ i32 attempt}: bound into the
   * frame keys here, and into the bin's nonce commitments and protocol instance.
   */
  static byte[] context(BridgeStream stream, int bin) {
    byte[] session = stream.session().getBytes(StandardCharsets.UTF_8);
    if (session.length > 0xffff) {
      throw new IllegalArgumentException("session id too long");
    }
    return ByteBuffer.allocate(2 + session.length + 8)
        .putShort((short) session.length)
        .put(session)
        .putInt(bin)
        .putInt(stream.attempt())
        .array();
  }

  private String where() {
    return switch (bin) {
      case CONTROL -> "the control stream";
      case PREFILTER -> "the prefilter stream";
      default -> "bin " + bin + " attempt " + raw.attempt();
    };
  }

  /** The direction of the frames {@code sender} sends: its party index (0 for A, 1 for B). */
  private static byte direction(Role sender) {
    return (byte) sender.index();
  }

  private Aead aead(String label, byte[] extra, byte dir) {
    byte[] k = key(label, extra, dir);
    try {
      return new Aead(k);
    } finally {
      Arrays.fill(k, (byte) 0);
    }
  }

  private byte[] key(String label, byte[] extra, byte dir) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(frameKey, "HmacSHA256"));
      mac.update(label.getBytes(StandardCharsets.US_ASCII));
      mac.update((byte) 0);
      mac.update(context);
      mac.update(extra);
      mac.update(dir);
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable in this JVM", e);
    }
  }

  private static byte[] nonce(byte dir, long seq) {
    return ByteBuffer.allocate(Aead.NONCE_BYTES).put(dir).put(new byte[3]).putLong(seq).array();
  }
}
