package io.psiflink.nativepsi;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.util.Objects;

/**
 * The token PRF of the private join ({@code psi_token_prf_*} in {@code psi_native.h};
 * docs/private-join.md, step 2): each canonical key encoding {@code m} becomes the first 16 bytes
 * of {@code HMAC-SHA256_k(m)}, {@code k} the session's 32-byte token key, exactly what {@code
 * javax.crypto.Mac} "HmacSHA256" gives, at about a tenth of its cost per key.
 *
 * <pre>{@code
 * try (TokenPrf prf = TokenPrf.create(key)) {
 *   prf.compute(data, ends, count, out); // out[16i, 16i+16) = PRF(data[ends[i-1], ends[i]))
 * }
 * }</pre>
 *
 * <p>The native object holds the key's HMAC states (wiped by {@link #close()}, which is idempotent;
 * calls after it throw {@link IllegalStateException}). <b>Not thread-safe</b>: one per Flink
 * subtask. JNA copies the arrays across on each call (about a microsecond), so pass batches of a
 * few thousand keys.
 */
public final class TokenPrf implements AutoCloseable {
  public static final int KEY_BYTES = 32;

  /** Bytes of one PRF value. */
  public static final int OUT_BYTES = 16;

  private static final int ERROR_BUFFER_BYTES = 512;

  // null once closed. No Cleaner, for the reason PsiSession gives: close it.
  private Pointer handle;

  private TokenPrf(Pointer handle) {
    this.handle = handle;
  }

  /**
   * @param key {@value #KEY_BYTES} bytes (not retained on the Java side)
   * @throws IllegalArgumentException if the key is not {@value #KEY_BYTES} bytes
   * @throws PsiException if the native library refuses (e.g. a CPU without its instructions)
   */
  public static TokenPrf create(byte[] key) {
    Objects.requireNonNull(key, "key");
    if (key.length != KEY_BYTES) {
      throw new IllegalArgumentException(
          "token key must be " + KEY_BYTES + " bytes, got " + key.length);
    }
    PointerByReference out = new PointerByReference();
    byte[] err = new byte[ERROR_BUFFER_BYTES];
    int rc = PsiNative.psi_token_prf_create(key, key.length, out, err, err.length);
    if (rc != 0) {
      throw new PsiException(PsiSession.statusOf(rc), Native.toString(err));
    }
    Pointer handle = out.getValue();
    if (handle == null) {
      throw new PsiException(PsiStatus.INTERNAL, "psi_token_prf_create returned OK and no object");
    }
    return new TokenPrf(handle);
  }

  /**
   * Writes the PRF values of {@code count} messages: message {@code i} is {@code data[ends[i-1],
   * ends[i])} (with {@code ends[-1] = 0}), its value goes to {@code out[16i, 16i+16)}. Longer
   * arrays are allowed; only {@code data[0, ends[count-1])} is read.
   *
   * @throws IllegalArgumentException if count is negative, an array is too short, or ends decrease
   *     or pass the end of data
   * @throws IllegalStateException after {@link #close()}
   */
  public void compute(byte[] data, int[] ends, int count, byte[] out) {
    Objects.requireNonNull(data, "data");
    Objects.requireNonNull(ends, "ends");
    Objects.requireNonNull(out, "out");
    Pointer h = open();
    if (count < 0 || count > ends.length) {
      throw new IllegalArgumentException(
          "count " + count + " outside [0, " + ends.length + "] (the length of ends)");
    }
    long outLen = (long) count * OUT_BYTES;
    if (outLen > out.length) {
      throw new IllegalArgumentException(
          count + " messages need " + outLen + " output bytes, out has " + out.length);
    }
    int rc = PsiNative.psi_token_prf_compute(h, data, data.length, ends, count, out, outLen);
    if (rc != 0) {
      String message = PsiNative.psi_token_prf_error(h);
      PsiStatus status = PsiSession.statusOf(rc);
      if (status == PsiStatus.ARGUMENT) {
        throw new IllegalArgumentException(message);
      }
      throw new PsiException(status, message == null ? "" : message);
    }
  }

  /** Whether {@link #close()} was called. */
  public boolean isClosed() {
    return handle == null;
  }

  /** Frees the native object and wipes the key's states; idempotent. */
  @Override
  public void close() {
    Pointer h = handle;
    handle = null;
    if (h != null) {
      PsiNative.psi_token_prf_free(h);
    }
  }

  @Override
  public String toString() {
    return isClosed() ? "TokenPrf[closed]" : "TokenPrf[]";
  }

  private Pointer open() {
    if (handle == null) {
      throw new IllegalStateException("the token PRF is closed");
    }
    return handle;
  }
}
