package io.psiflink.provider;

import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.BridgeTimeoutException;
import io.psiflink.bridge.HelloCrypto;
import io.psiflink.bridge.HelloCrypto.Rejected;
import io.psiflink.nativepsi.Aead;
import io.psiflink.nativepsi.PsiException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

/**
 * One party-provider bridge stream whose frames are sealed end to end (provider.proto, "Sealed
 * frames"): ChaCha20-Poly1305 ({@link Aead}) under a key per direction derived from the party's
 * link key and the stream's context (session, bin, attempt and, for a bin, the run's nonces), the
 * nonce counting the frames of one direction. So the relay can neither read, alter, forge, reorder,
 * drop nor replay a frame unnoticed, and a frame of another session, bin, attempt or run does not
 * open. Both sides count every sealed frame; the first frame of a bin stream carries a cleartext
 * prefix (the attempt and a nonce) before its sealed part.
 *
 * <p>Not thread-safe; owns neither the bridge stream nor the link key.
 */
final class SealedLink implements AutoCloseable {
  /** Direction of the frames a party sends. */
  static final byte UP = 0;

  /** Direction of the frames the provider sends. */
  static final byte DOWN = 1;

  private static final String LABEL = "psi-flink provider frame key v1";
  private static final byte[] NONE = new byte[0];

  private final BridgeStream raw;
  private byte[] linkKey;
  private final byte[] context;
  private final byte mine;
  private final Duration patience;
  private final String peer;
  private Aead out;
  private Aead in;
  private long sent;
  private long received;

  /**
   * @param bin the bin, or -1 for the setup stream
   * @param party whether this side is the party (it sends {@link #UP})
   * @param patience null to let the bridge's idle timeout end a wait (the provider: a silent party
   *     is at fault); else how long to wait out bridge timeouts without a frame (a party waiting
   *     for the provider, which itself times out parties that do not arrive or keep up)
   * @param peer how messages name the other side, e.g. {@code provider 'p'}
   */
  SealedLink(
      BridgeStream raw, int bin, int attempt, boolean party, Duration patience, String peer) {
    this.raw = raw;
    this.context = ProviderWire.context(raw.session(), bin, attempt);
    this.mine = party ? UP : DOWN;
    this.patience = patience;
    this.peer = peer;
  }

  /** Keys frames from now on under the party's 32-byte link key K (copied); returns this. */
  SealedLink withKey(byte[] linkKey) {
    this.linkKey = linkKey.clone();
    return this;
  }

  /** The setup stream's keys: no nonces (its link key is fresh). */
  void keySetup() {
    keyOut(NONE, NONE);
    keyIn(NONE, NONE);
  }

  /** From the next frame this side sends on: the key binding these nonces. */
  void keyOut(byte[] partyNonce, byte[] providerNonce) {
    if (out != null) {
      out.close();
    }
    out = aead(partyNonce, providerNonce, mine);
  }

  /** From the next frame this side receives on: the key binding these nonces. */
  void keyIn(byte[] partyNonce, byte[] providerNonce) {
    if (in != null) {
      in.close();
    }
    in = aead(partyNonce, providerNonce, (byte) (1 - mine));
  }

  BridgeStream raw() {
    return raw;
  }

  /** Seals {@code plain} as the next frame of this direction, behind {@code prefix} in clear. */
  byte[] seal(byte[] prefix, byte[] plain, int off, int len) {
    byte[] sealed = out.seal(nonce(mine, sent), plain, off, len);
    sent++;
    if (prefix.length == 0) {
      return sealed;
    }
    byte[] f = Arrays.copyOf(prefix, prefix.length + sealed.length);
    System.arraycopy(sealed, 0, f, prefix.length, sealed.length);
    return f;
  }

  /** Seals and sends one frame. */
  void send(byte[] plain) throws BridgeException {
    send(plain, 0, plain.length);
  }

  /** Seals and sends {@code plain[off, off+len)}. */
  void send(byte[] plain, int off, int len) throws BridgeException {
    sendRaw(seal(NONE, plain, off, len));
  }

  /** Sends a frame as it is (its sealing done by {@link #seal}), waiting as patient as it may. */
  void sendRaw(byte[] frame) throws BridgeException {
    long start = System.nanoTime();
    while (true) {
      try {
        raw.send(frame);
        return;
      } catch (BridgeTimeoutException e) {
        if (!patient(start)) {
          throw e;
        }
      }
    }
  }

  /** The next frame as it came, or null at the end of the stream, waiting as patient as it may. */
  byte[] receiveRaw() throws BridgeException {
    long start = System.nanoTime();
    while (true) {
      try {
        return raw.receive();
      } catch (BridgeTimeoutException e) {
        if (!patient(start)) {
          throw e;
        }
      }
    }
  }

  /** The next frame opened, or null at the end of the stream. */
  byte[] receive() throws BridgeException, Rejected {
    byte[] f = receiveRaw();
    return f == null ? null : open(f, 0);
  }

  /**
   * Opens the sealed part of frame {@code f} from {@code off}, as the next frame of the other
   * direction.
   */
  byte[] open(byte[] f, int off) throws Rejected {
    long seq = received++;
    byte[] plain;
    try {
      plain = in.open(nonce((byte) (1 - mine), seq), f, off, f.length - off);
    } catch (PsiException e) {
      throw new Rejected(
          "frame "
              + seq
              + " from "
              + peer
              + " failed authentication (altered, forged, replayed, reordered, an earlier frame"
              + " dropped, or not sealed for this stream and run)");
    }
    if (plain.length == 0) {
      throw new Rejected(peer + " sent an empty frame");
    }
    return plain;
  }

  @Override
  public void close() {
    if (out != null) {
      out.close();
    }
    if (in != null) {
      in.close();
    }
    if (linkKey != null) {
      Arrays.fill(linkKey, (byte) 0);
    }
  }

  private boolean patient(long start) {
    return patience != null && System.nanoTime() - start < patience.toNanos();
  }

  private Aead aead(byte[] partyNonce, byte[] providerNonce, byte dir) {
    byte[] k =
        HelloCrypto.hmacSha256(
            linkKey,
            LABEL.getBytes(StandardCharsets.US_ASCII),
            new byte[] {0},
            context,
            partyNonce,
            providerNonce,
            new byte[] {dir});
    try {
      return new Aead(k);
    } finally {
      Arrays.fill(k, (byte) 0);
    }
  }

  private static byte[] nonce(byte dir, long seq) {
    return ByteBuffer.allocate(Aead.NONCE_BYTES).put(dir).put(new byte[3]).putLong(seq).array();
  }
}
