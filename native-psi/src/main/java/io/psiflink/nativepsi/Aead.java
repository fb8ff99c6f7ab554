package io.psiflink.nativepsi;

import com.sun.jna.Memory;

/**
 * ChaCha20-Poly1305 (IETF) through the native library ({@code psi_aead_seal}/{@code
 * psi_aead_open}): for data a job ships beside a protocol, such as the columns one party reveals to
 * the other. The JDK's AES-GCM runs its GHASH in Java until C2 compiles it, at a few tens of MB/s;
 * libsodium runs at memory speed from the first frame.
 *
 * <p>Holds one key and two native buffers that grow to the largest message; not thread-safe. The
 * caller supplies a fresh nonce per message under the key and must never repeat one.
 */
public final class Aead implements AutoCloseable {
  public static final int KEY_BYTES = 32;
  public static final int NONCE_BYTES = 12;
  public static final int TAG_BYTES = 16;

  private final byte[] key;
  private final Memory written = new Memory(8);
  private Memory in;
  private Memory out;

  /**
   * @param key 32 bytes; copied
   */
  public Aead(byte[] key) {
    if (key.length != KEY_BYTES) {
      throw new IllegalArgumentException("key must be " + KEY_BYTES + " bytes, got " + key.length);
    }
    this.key = key.clone();
  }

  /** Encrypts and authenticates {@code plain[off, off+len)}; returns ciphertext ‖ tag. */
  public byte[] seal(byte[] nonce, byte[] plain, int off, int len) {
    int cap = len + TAG_BYTES;
    Memory src = input(plain, off, len);
    Memory dst = output(cap);
    int st =
        PsiNative.psi_aead_seal(key, KEY_BYTES, nonce, nonce.length, src, len, dst, cap, written);
    check(st);
    return dst.getByteArray(0, (int) written.getLong(0));
  }

  /**
   * Checks and decrypts ciphertext ‖ tag.
   *
   * @throws PsiException with {@link PsiStatus#PEER_MESSAGE} if the message is short, altered, or
   *     was sealed under another key or nonce
   */
  public byte[] open(byte[] nonce, byte[] sealed, int off, int len) {
    int cap = Math.max(len - TAG_BYTES, 0);
    Memory src = input(sealed, off, len);
    Memory dst = output(cap);
    int st =
        PsiNative.psi_aead_open(key, KEY_BYTES, nonce, nonce.length, src, len, dst, cap, written);
    check(st);
    return dst.getByteArray(0, (int) written.getLong(0));
  }

  @Override
  public void close() {
    java.util.Arrays.fill(key, (byte) 0);
    if (in != null) {
      in.close();
    }
    if (out != null) {
      out.close();
    }
  }

  private Memory input(byte[] b, int off, int len) {
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    in = grow(in, len);
    in.write(0, b, off, len);
    return in;
  }

  private Memory output(int cap) {
    out = grow(out, cap);
    return out;
  }

  private static Memory grow(Memory m, int size) {
    if (m != null && m.size() >= Math.max(size, 1)) {
      return m;
    }
    if (m != null) {
      m.close();
    }
    return new Memory(Math.max(size, 1));
  }

  private static void check(int st) {
    if (st == PsiStatus.OK.code()) {
      return;
    }
    PsiStatus s = PsiStatus.fromCode(st);
    throw new PsiException(
        s,
        s == PsiStatus.PEER_MESSAGE
            ? "message failed authentication (short, altered, or sealed under another key or nonce)"
            : "bad AEAD arguments");
  }
}
