package io.psiflink.jobs.psi;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals the revealed columns one job sends the other, so that the bridge relay in between never sees
 * rows in the clear. AES-256-GCM under a key derived for one (bin, protocol instance) from the
 * session's payload key; the nonce is the frame's sequence number, so frames can be neither replayed,
 * reordered nor dropped without the receiver noticing. Not thread-safe.
 */
public final class PayloadCipher {
  private static final int TAG_BITS = 128;
  private final SecretKeySpec key;
  private final Cipher cipher;
  private long sealed;
  private long opened;

  public PayloadCipher(byte[] payloadKey, int bin, long instance) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(payloadKey, "HmacSHA256"));
      mac.update("psi-flink payload v1".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      mac.update(ByteBuffer.allocate(12).putInt(bin).putLong(instance).array());
      this.key = new SecretKeySpec(mac.doFinal(), "AES");
      this.cipher = Cipher.getInstance("AES/GCM/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM or HmacSHA256 unavailable in this JVM", e);
    }
  }

  public byte[] seal(byte[] plain, int off, int len) {
    try {
      cipher.init(Cipher.ENCRYPT_MODE, key, nonce(sealed++));
      return cipher.doFinal(plain, off, len);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Opens the next frame; a frame that was altered, replayed or reordered fails. */
  public byte[] open(byte[] sealedFrame, int off, int len) throws PeerProtocolException {
    try {
      cipher.init(Cipher.DECRYPT_MODE, key, nonce(opened++));
      return cipher.doFinal(sealedFrame, off, len);
    } catch (AEADBadTagException e) {
      throw new PeerProtocolException("payload frame " + (opened - 1)
          + " failed authentication (altered, replayed or out of order)");
    } catch (GeneralSecurityException e) {
      throw new PeerProtocolException("payload frame " + (opened - 1) + " is malformed: "
          + e.getMessage());
    }
  }

  private static GCMParameterSpec nonce(long counter) {
    return new GCMParameterSpec(TAG_BITS, ByteBuffer.allocate(12).putInt(0).putLong(counter).array());
  }
}
