package io.psiflink.jobs.prefilter;

import io.psiflink.api.PartyOptions;
import io.psiflink.api.Role;
import java.io.Serializable;
import java.util.Objects;

/**
 * The prefilter's agreed shape: a Bloom filter of 2^{@code filterBits} bits with {@code hashes}
 * positions per token, and the party that chooses in the AND ({@link FilterAnd}): the one with the
 * smaller size estimate (A on a tie), whose filter is ready first, so it sends its half while the
 * other still reads its table. Both parties compute it from the same public facts (the requests and
 * both size estimates of the handshake), so it needs no extra round. Immutable.
 */
public record PrefilterPlan(int filterBits, int hashes, Role chooser) implements Serializable {
  public PrefilterPlan {
    Objects.requireNonNull(chooser, "chooser");
    if (!chooser.equals(Role.A) && !chooser.equals(Role.B)) {
      throw new IllegalArgumentException("the chooser is party A or B, not " + chooser.label());
    }
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
   * The largest L the automatic choice takes (a 512 MiB filter per copy; the job holds a few):
   * larger filters must be asked for.
   */
  public static final int AUTO_MAX_BITS = 32;

  /** The largest k the automatic choice takes: beyond, positions cost more than they save. */
  public static final int AUTO_MAX_HASHES = 4;

  /**
   * The cost model of the automatic choices, in nanoseconds of wall time of both parties on one
   * machine of this class (2 cores, P = 2): per filter bit (the helper's m_σ and the three A-B
   * chunk streams, 4 bits on the wire per filter bit, and the AND), per position computed (FF1 and
   * the hash), per row of either table with the filter (its positions set while tokenizing, the
   * rows kept until the filter is known and scanned for candidates), per key that goes on to the
   * PSI (tokens spilled to the bins, the PSI at both parties and the lookups), and once per join
   * with the filter (the helper's connection, the AND's stream, one more stage).
   * docs/benchmarks.md, "The automatic choice", has the runs they are fitted to: the time the
   * filter saved or lost at 10^6 × 10^5, 10^7 × 10^6, 10^8 × 10^7 and 10^7 × 10^7 with 10 % and 50
   * % in common. The per-bit cost was fitted while the whole AND ran after both parties'
   * tokenizing; since the helper's bits and the chooser's e cross during it, it overstates the
   * filter's cost (refitting it is left to the next runs of those joins).
   */
  static final double NANOS_PER_FILTER_BIT = 14;

  static final double NANOS_PER_POSITION = 15;
  static final double NANOS_PER_ROW = 700;
  static final double NANOS_PER_CANDIDATE = 1400;
  static final double NANOS_PER_JOIN = 3e9;

  /**
   * The plan for the requested L and k (0: automatic) and the two parties' size estimates. The
   * automatic choice minimises the model's time: the filter's cost, 2^L bits, against the
   * candidates' {@link #expectedFalseCandidates} when no key is common (the filter pays for itself
   * when few are, and the intersection goes to the PSI whatever the filter).
   */
  public static PrefilterPlan choose(int requestedBits, int requestedHashes, long nA, long nB) {
    if (nA < 0 || nB < 0) {
      throw new IllegalArgumentException("size estimates are not negative");
    }
    Role chooser = nB < nA ? Role.B : Role.A;
    PrefilterPlan best = null;
    double bestCost = Double.POSITIVE_INFINITY;
    int fromBits = requestedBits != 0 ? requestedBits : PartyOptions.FILTER_BITS_MIN;
    int toBits = requestedBits != 0 ? requestedBits : AUTO_MAX_BITS;
    int fromHashes = requestedHashes != 0 ? requestedHashes : 1;
    int toHashes = requestedHashes != 0 ? requestedHashes : AUTO_MAX_HASHES;
    for (int bits = fromBits; bits <= toBits; bits++) {
      for (int k = fromHashes; k <= toHashes; k++) {
        PrefilterPlan p = new PrefilterPlan(bits, k, chooser);
        double cost = p.nanosWith(nA, nB, 0);
        if (cost < bestCost) {
          best = p;
          bestCost = cost;
        }
      }
    }
    return best;
  }

  /**
   * The model's time of the join's filter and PSI with this plan, for sets of nA and nB keys with
   * {@code common} in common.
   */
  double nanosWith(long nA, long nB, long common) {
    return NANOS_PER_JOIN
        + NANOS_PER_FILTER_BIT * Math.scalb(1.0, filterBits)
        + (NANOS_PER_POSITION * hashes + NANOS_PER_ROW) * ((double) nA + nB)
        + NANOS_PER_CANDIDATE * expectedCandidates(nA, nB, common);
  }

  /** The model's time of the PSI without a filter: every key of both parties goes to it. */
  static double nanosWithout(long nA, long nB) {
    return NANOS_PER_CANDIDATE * ((double) nA + nB);
  }

  /**
   * Whether the model expects this filter to save time ({@code --prefilter auto}) when {@code
   * overlap} of the smaller set's keys are common.
   */
  public boolean pays(long nA, long nB, double overlap) {
    return nanosWith(nA, nB, common(nA, nB, overlap)) < nanosWithout(nA, nB);
  }

  /** The model's two times, for the log of the automatic choice. */
  public String describeChoice(long nA, long nB, double overlap) {
    return String.format(
        java.util.Locale.ROOT,
        "model: %.1f s with a filter of 2^%d bits and k = %d, %.1f s without",
        nanosWith(nA, nB, common(nA, nB, overlap)) / 1e9,
        filterBits,
        hashes,
        nanosWithout(nA, nB) / 1e9);
  }

  private static long common(long nA, long nB, double overlap) {
    return Math.round(overlap * Math.min(nA, nB));
  }

  /**
   * The candidates of both parties that are not in the intersection, expected for sets of nA and nB
   * keys with {@code common} in common: a key of A outside B is a candidate when its k positions
   * are all set in B's filter, with probability (1 − e^(−k·nB/2^L))^k, and the other way round.
   */
  public double expectedCandidates(long nA, long nB, long common) {
    return 2.0 * common + (nA - common) * falsePositive(nB) + (nB - common) * falsePositive(nA);
  }

  /** {@link #expectedCandidates} when no key is common. */
  public double expectedFalseCandidates(long nA, long nB) {
    return expectedCandidates(nA, nB, 0);
  }

  /**
   * A bound on either party's candidates, to size the bins before anyone knows them: the smaller
   * set all in common, plus the other keys' expected false candidates.
   */
  public long candidateBound(long nA, long nB) {
    long common = Math.min(nA, nB);
    double a = common + (nA - common) * falsePositive(nB);
    double b = common + (nB - common) * falsePositive(nA);
    return (long) Math.ceil(Math.max(a, b));
  }

  /**
   * The probability that a key outside a set of n keys has all its k positions set in its filter.
   */
  double falsePositive(long n) {
    // StrictMath: both parties must reach the same L, k and auto decision bit for bit, on any JVM
    return StrictMath.pow(
        -StrictMath.expm1(-hashes * (double) n / Math.scalb(1.0, filterBits)), hashes);
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
