package io.psiflink.jobs.token;

import io.psiflink.nativepsi.TokenBins;
import io.psiflink.nativepsi.TokenPrf;
import java.util.Arrays;

/**
 * Computes 128-bit tokens of canonical key encodings and their bins, a batch at a time.
 *
 * <p>{@code token = HMAC-SHA256(k, canonical(keys))} truncated to 128 bits with the top bit
 * cleared: real tokens live in the lower half of the 128-bit space, so a dummy (top bit set, see
 * {@link Tokens}) can never equal a real token. {@code bin = SipHash-2-4_s(token) mod m}. Both keys
 * are agreed between the two parties' jobs for one session only. The HMAC runs natively ({@link
 * TokenPrf}), {@value #BATCH} keys per call: the JDK's Mac cost about 800 ns per key, most of the
 * tokenizing; so does the bins' SipHash ({@link TokenBins}), which cost C1-compiled Java about 50
 * ns a token.
 *
 * <p>Use: {@link #add} keys until it says the batch is full (or the input ends), {@link #tokenize},
 * read {@link #hi}, {@link #lo}, {@link #bin} of each, {@link #clear}. Holds a native object:
 * {@link #close} it. Not thread-safe.
 */
public final class Tokenizer implements AutoCloseable {
  /** Keys per native call: its cost (about a microsecond) then is a few per cent of theirs. */
  public static final int BATCH = 1024;

  private final TokenPrf prf;
  private final byte[] binKey;
  private final int bins;
  private byte[] data = new byte[BATCH * 32];
  private final int[] ends = new int[BATCH];
  private final byte[] out = new byte[BATCH * TokenPrf.OUT_BYTES];
  private final int[] binOut = new int[BATCH];
  private int count;
  private boolean tokenized;

  public Tokenizer(byte[] tokenKey, byte[] binSeed, int bins) {
    if (tokenKey.length != 32) {
      throw new IllegalArgumentException("token key must be 32 bytes");
    }
    if (bins <= 0) {
      throw new IllegalArgumentException("bins must be positive, got " + bins);
    }
    if (binSeed.length != TokenBins.KEY_BYTES) {
      throw new IllegalArgumentException("bin seed must be " + TokenBins.KEY_BYTES + " bytes");
    }
    this.binKey = binSeed.clone();
    this.bins = bins;
    this.prf = TokenPrf.create(tokenKey);
  }

  /**
   * Adds {@code len} bytes of {@code encoding} as the batch's next key (copied).
   *
   * @return whether the batch is now full: {@link #tokenize} it before adding more
   * @throws IllegalStateException if the batch is full or already tokenized
   */
  public boolean add(byte[] encoding, int len) {
    if (count == BATCH || tokenized) {
      throw new IllegalStateException("the batch is full or tokenized: tokenize and clear it");
    }
    int from = count == 0 ? 0 : ends[count - 1];
    if (from + len > data.length) {
      data = Arrays.copyOf(data, Math.max(data.length * 2, from + len));
    }
    System.arraycopy(encoding, 0, data, from, len);
    ends[count++] = from + len;
    return count == BATCH;
  }

  /** Keys in the batch. */
  public int size() {
    return count;
  }

  /** Computes the tokens of the batch's keys and their bins. */
  public void tokenize() {
    prf.compute(data, ends, count, out);
    TokenBins.compute(binKey, out, count, bins, binOut);
    tokenized = true;
  }

  /** The high half of key {@code i}'s token (top bit clear), after {@link #tokenize}. */
  public long hi(int i) {
    return be64(out, checked(i) * TokenPrf.OUT_BYTES) & Long.MAX_VALUE;
  }

  public long lo(int i) {
    return be64(out, checked(i) * TokenPrf.OUT_BYTES + 8);
  }

  /** Empties the batch. */
  public void clear() {
    count = 0;
    tokenized = false;
  }

  /** The bin of key {@code i}'s token: {@code SipHash_s(token) mod m}, in [0, m). */
  public int bin(int i) {
    return binOut[checked(i)];
  }

  /** Frees the native PRF and wipes its key states; idempotent. */
  @Override
  public void close() {
    prf.close();
    Arrays.fill(data, (byte) 0);
    Arrays.fill(out, (byte) 0);
    Arrays.fill(binKey, (byte) 0);
  }

  private int checked(int i) {
    if (!tokenized || i < 0 || i >= count) {
      throw new IllegalStateException(
          "no token " + i + ": " + count + " keys, tokenized " + tokenized);
    }
    return i;
  }

  /** The big-endian long at {@code b[off, off + 8)}; unrolled: the client compiler keeps loops. */
  static long be64(byte[] b, int off) {
    return (b[off] & 0xffL) << 56
        | (b[off + 1] & 0xffL) << 48
        | (b[off + 2] & 0xffL) << 40
        | (b[off + 3] & 0xffL) << 32
        | (b[off + 4] & 0xffL) << 24
        | (b[off + 5] & 0xffL) << 16
        | (b[off + 6] & 0xffL) << 8
        | (b[off + 7] & 0xffL);
  }
}
