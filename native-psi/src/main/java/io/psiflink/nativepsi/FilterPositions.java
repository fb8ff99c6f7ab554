package io.psiflink.nativepsi;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.util.Objects;

/**
 * The Bloom filter positions of the server-aided prefilter ({@code psi_filter_positions_*} in
 * {@code psi_native.h}; docs/protocols.md, "Prefilter positions (FF1)"): the {@code k} positions of
 * a 16-byte token {@code t} in a filter of {@code 2^L} bits are {@code p_j(t) = FF1_K1(h_j(t))},
 * {@code h} a keyed AES hash of {@code t} to {@code k} L-bit values, FF1 of NIST SP 800-38G.
 *
 * <pre>{@code
 * try (FilterPositions fp = FilterPositions.create(key, 28, 3)) {
 *   long[] out = new long[batch * 3];
 *   fp.positions(tokens, batch, 16, out); // out[i*3 + j] = p_j(token i)
 * }
 * }</pre>
 *
 * <p>The native object holds the keys (wiped by {@link #close()}, which is idempotent; calls after
 * it throw {@link IllegalStateException}). <b>Not thread-safe</b>: one per Flink subtask, like
 * {@link PsiSession}. JNA copies the whole {@code byte[]} and {@code long[]} across on each call,
 * so pass arrays sized to the batch and batches of a few thousand tokens (a call costs about a
 * microsecond; a token about 100 ns).
 */
public final class FilterPositions implements AutoCloseable {
  /** Key length: K1 (FF1, 16 bytes) then K2 (hash, 16 bytes). */
  public static final int KEY_BYTES = 32;

  /** The token length the native side takes. */
  public static final int TOKEN_BYTES = 16;

  /** Smallest L (filter of 2^16 bits; below SP 800-38G's 10^6 domain only for tests). */
  public static final int MIN_FILTER_BITS = 16;

  /** Largest L (a filter of 2^36 bits, 8 GiB). */
  public static final int MAX_FILTER_BITS = 36;

  public static final int MIN_HASHES = 1;
  public static final int MAX_HASHES = 16;

  private static final int ERROR_BUFFER_BYTES = 512;

  private final int filterBits;
  private final int hashes;
  // null once closed. No Cleaner, for the reason PsiSession gives: close it.
  private Pointer handle;

  private FilterPositions(int filterBits, int hashes, Pointer handle) {
    this.filterBits = filterBits;
    this.hashes = hashes;
    this.handle = handle;
  }

  /**
   * @param key {@value #KEY_BYTES} bytes, K1 ‖ K2 (not retained on the Java side)
   * @param filterBits L: the filter has 2^L bits, L in [{@value #MIN_FILTER_BITS}, {@value
   *     #MAX_FILTER_BITS}]
   * @param hashes k in [{@value #MIN_HASHES}, {@value #MAX_HASHES}]
   * @throws IllegalArgumentException naming the bad argument
   */
  public static FilterPositions create(byte[] key, int filterBits, int hashes) {
    Objects.requireNonNull(key, "key");
    if (key.length != KEY_BYTES) {
      throw new IllegalArgumentException(
          "filter key must be "
              + KEY_BYTES
              + " bytes (K1 for FF1, K2 for the hash), got "
              + key.length);
    }
    if (filterBits < MIN_FILTER_BITS || filterBits > MAX_FILTER_BITS) {
      throw new IllegalArgumentException(
          "filter bits "
              + filterBits
              + " outside ["
              + MIN_FILTER_BITS
              + ", "
              + MAX_FILTER_BITS
              + "]");
    }
    if (hashes < MIN_HASHES || hashes > MAX_HASHES) {
      throw new IllegalArgumentException(
          "filter hashes " + hashes + " outside [" + MIN_HASHES + ", " + MAX_HASHES + "]");
    }
    PointerByReference out = new PointerByReference();
    byte[] err = new byte[ERROR_BUFFER_BYTES];
    int rc =
        PsiNative.psi_filter_positions_create(
            key, key.length, filterBits, hashes, out, err, err.length);
    if (rc != 0) {
      throw new PsiException(PsiSession.statusOf(rc), Native.toString(err));
    }
    Pointer handle = out.getValue();
    if (handle == null) {
      throw new PsiException(
          PsiStatus.INTERNAL, "psi_filter_positions_create returned OK and no object");
    }
    return new FilterPositions(filterBits, hashes, handle);
  }

  /** L: the filter has 2^L bits and every position is below 2^L. */
  public int filterBits() {
    return filterBits;
  }

  /** k: positions per token. */
  public int hashes() {
    return hashes;
  }

  /**
   * Writes the positions of {@code count} tokens: {@code out[i*hashes() + j] = p_j(token i)} for
   * the token at {@code tokens[i*tokenLen, (i+1)*tokenLen)}. Only {@code tokens[0, count*tokenLen)}
   * is read and {@code out[0, count*hashes())} written; longer arrays are allowed.
   *
   * @param tokenLen must be {@value #TOKEN_BYTES} (else {@link PsiException} with {@link
   *     PsiStatus#ARGUMENT} from the native side)
   * @throws IllegalArgumentException if count or tokenLen is negative or an array is too short
   * @throws IllegalStateException after {@link #close()}
   */
  public void positions(byte[] tokens, int count, int tokenLen, long[] out) {
    Objects.requireNonNull(tokens, "tokens");
    Objects.requireNonNull(out, "out");
    Pointer h = open();
    if (count < 0 || tokenLen < 0) {
      throw new IllegalArgumentException(
          "count and tokenLen must not be negative: " + count + ", " + tokenLen);
    }
    long tokenBytes = (long) count * tokenLen;
    if (tokenBytes > tokens.length) {
      throw new IllegalArgumentException(
          count
              + " tokens of "
              + tokenLen
              + " bytes need "
              + tokenBytes
              + " bytes, tokens has "
              + tokens.length);
    }
    long outLen = (long) count * hashes;
    if (outLen > out.length) {
      throw new IllegalArgumentException(
          count + " tokens need " + outLen + " positions, out has " + out.length);
    }
    int rc = PsiNative.psi_filter_positions_compute(h, tokens, count, tokenLen, out, outLen);
    if (rc != 0) {
      String message = PsiNative.psi_filter_positions_error(h);
      throw new PsiException(PsiSession.statusOf(rc), message == null ? "" : message);
    }
  }

  /** Whether {@link #close()} was called. */
  public boolean isClosed() {
    return handle == null;
  }

  /** Frees the native object and wipes its keys; idempotent. */
  @Override
  public void close() {
    Pointer h = handle;
    handle = null;
    if (h != null) {
      PsiNative.psi_filter_positions_free(h);
    }
  }

  @Override
  public String toString() {
    return "FilterPositions[L=" + filterBits + ", k=" + hashes + (isClosed() ? ", closed]" : "]");
  }

  private Pointer open() {
    if (handle == null) {
      throw new IllegalStateException("filter positions are closed");
    }
    return handle;
  }
}
