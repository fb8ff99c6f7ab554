package io.psiflink.jobs.prefilter;

import io.psiflink.api.PartyOptions;
import java.io.Serializable;

/**
 * The prefilter's agreed shape: a Bloom filter of 2^{@code filterBits} bits with {@code hashes}
 * positions per token. Both parties compute it from the same public facts (the requests and both
 * size estimates of the handshake), so it needs no extra round. Immutable.
 */
public record PrefilterPlan(int filterBits, int hashes) implements Serializable {
  /** The automatic k: the lead's starting rule, to be tuned by measurement. */
  public static final int AUTO_HASHES = 2;

  public PrefilterPlan {
    if (filterBits < PartyOptions.FILTER_BITS_MIN || filterBits > PartyOptions.FILTER_BITS_MAX) {
      throw new IllegalArgumentException(
          "filter bits must lie in ["
              + PartyOptions.FILTER_BITS_MIN
              + ", "
              + PartyOptions.FILTER_BITS_MAX
              + "], not "
              + filterBits);
    }
    if (hashes < 1 || hashes > PartyOptions.FILTER_HASHES_MAX) {
      throw new IllegalArgumentException(
          "filter hashes must lie in [1, " + PartyOptions.FILTER_HASHES_MAX + "], not " + hashes);
    }
  }

  /**
   * The plan for the requested L and k (0: automatic) and the two parties' size estimates. Auto L
   * is ceil(log2(2 max(nA, nB))), a filter of at least twice the larger set (the paper finds that
   * keeps the candidate ratio below about 5), clamped to the allowed range; auto k is {@link
   * #AUTO_HASHES}.
   */
  public static PrefilterPlan choose(int requestedBits, int requestedHashes, long nA, long nB) {
    if (nA < 0 || nB < 0) {
      throw new IllegalArgumentException("size estimates are not negative");
    }
    int bits = requestedBits != 0 ? requestedBits : autoBits(Math.max(nA, nB));
    int hashes = requestedHashes != 0 ? requestedHashes : AUTO_HASHES;
    return new PrefilterPlan(bits, hashes);
  }

  /** ceil(log2(2n)) clamped to [FILTER_BITS_MIN, FILTER_BITS_MAX]. */
  static int autoBits(long n) {
    if (n <= 1) {
      return PartyOptions.FILTER_BITS_MIN;
    }
    // 2n <= 2^L  <=>  n <= 2^(L-1); ceil(log2(n)) = 64 - nlz(n - 1) for n >= 2
    int l = 1 + (64 - Long.numberOfLeadingZeros(n - 1));
    return Math.max(PartyOptions.FILTER_BITS_MIN, Math.min(PartyOptions.FILTER_BITS_MAX, l));
  }

  /** The filter's length in 64-bit words. */
  public long words() {
    return 1L << (filterBits - 6);
  }

  /** The filter's length in bytes (as sent to the helper, and as held in memory). */
  public long bytes() {
    return 1L << (filterBits - 3);
  }
}
