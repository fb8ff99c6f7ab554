package io.psiflink.helper;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The random strings of the helper-dealt AND, expanded from 16-byte seeds by AES-128 in counter
 * mode, so that the helper sends seeds instead of strings wherever it can: stream s of a seed is
 * the keystream under the seed with the IV (s as 8 bytes ‖ block counter as 8 bytes, big-endian),
 * read as little-endian 64-bit words; chunk c holds words [c·{@link HelperClient#CHUNK_WORDS},
 * ...). Both the helper and the parties expand the same way. Not thread-safe: one instance per
 * thread.
 */
public final class CorrelationStreams {
  /** B's m_0 and m_1, A's σ: stream ids under their seeds. */
  public static final int M0 = 0;

  public static final int M1 = 1;
  public static final int SIGMA = 2;

  /** Seed length: an AES-128 key. */
  public static final int SEED_BYTES = 16;

  /** At most this many words per call (32 MiB of keystream), so the byte count stays an int. */
  public static final int MAX_WORDS = 1 << 22;

  private final Cipher aes;
  private final SecretKeySpec key;
  private byte[] buffer = new byte[0];

  /** The seed is copied. */
  public CorrelationStreams(byte[] seed) {
    if (seed == null || seed.length != SEED_BYTES) {
      throw new IllegalArgumentException("a correlation seed has " + SEED_BYTES + " bytes");
    }
    try {
      aes = Cipher.getInstance("AES/CTR/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES/CTR is not available", e);
    }
    key = new SecretKeySpec(seed, "AES");
  }

  /**
   * Writes {@code words} words of stream {@code stream}, from word {@code firstWord} (even and
   * non-negative: a counter block holds two words), to {@code out[0..words)}.
   */
  public void expand(int stream, long firstWord, long[] out, int words) {
    if (firstWord < 0
        || (firstWord & 1) != 0
        || words < 0
        || words > out.length
        || words > MAX_WORDS) {
      throw new IllegalArgumentException("bad range: word " + firstWord + ", " + words + " words");
    }
    int bytes = words * Long.BYTES;
    if (buffer.length < bytes) {
      buffer = new byte[bytes];
    }
    byte[] iv = ByteBuffer.allocate(16).putLong(stream).putLong(firstWord / 2).array();
    try {
      aes.init(Cipher.ENCRYPT_MODE, key, new IvParameterSpec(iv));
      Arrays.fill(buffer, 0, bytes, (byte) 0);
      aes.doFinal(buffer, 0, bytes, buffer, 0); // keystream = encryption of zeros
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES/CTR failed", e);
    }
    ByteBuffer.wrap(buffer, 0, bytes)
        .order(ByteOrder.LITTLE_ENDIAN)
        .asLongBuffer()
        .get(out, 0, words);
  }
}
