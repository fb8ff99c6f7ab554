package io.psiflink.jobs.psi;

import io.psiflink.nativepsi.Aead;
import io.psiflink.nativepsi.PsiException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals the revealed columns one job sends the other, so that the bridge relay in between never sees
 * rows in the clear. ChaCha20-Poly1305 from the native library (the JDK's AES-GCM spent a third of
 * the output party's bin-stage CPU in Java GHASH) under a key derived for one (bin, protocol
 * instance) from the session's payload key; the nonce is the frame's sequence number, so frames can
 * be neither replayed, reordered nor dropped without the receiver noticing. Not thread-safe.
 */
public final class PayloadCipher implements AutoCloseable {
  private final Aead aead;
  private long sealed;
  private long opened;

  public PayloadCipher(byte[] payloadKey, int bin, long instance) {
    byte[] key;
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(payloadKey, "HmacSHA256"));
      mac.update("psi-flink payload v2".getBytes(StandardCharsets.US_ASCII));
      mac.update(ByteBuffer.allocate(12).putInt(bin).putLong(instance).array());
      key = mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable in this JVM", e);
    }
    this.aead = new Aead(key);
    java.util.Arrays.fill(key, (byte) 0);
  }

  public byte[] seal(byte[] plain, int off, int len) {
    return aead.seal(nonce(sealed++), plain, off, len);
  }

  /** Opens the next frame; a frame that was altered, replayed or reordered fails. */
  public byte[] open(byte[] sealedFrame, int off, int len) throws PeerProtocolException {
    try {
      return aead.open(nonce(opened++), sealedFrame, off, len);
    } catch (PsiException e) {
      throw new PeerProtocolException("payload frame " + (opened - 1)
          + " failed authentication (altered, replayed or out of order)");
    }
  }

  @Override
  public void close() {
    aead.close();
  }

  private static byte[] nonce(long counter) {
    return ByteBuffer.allocate(Aead.NONCE_BYTES).putInt(0).putLong(counter).array();
  }
}
