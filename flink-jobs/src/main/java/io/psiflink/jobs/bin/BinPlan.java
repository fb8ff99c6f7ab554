package io.psiflink.jobs.bin;

/**
 * The binning arithmetic of section 3.1 of the Spark-PSI paper: how many elements every bin is
 * padded to, and how many bins to use.
 *
 * <p>With n elements hashed into m bins, a bin holds μ = n/m on average. By a Chernoff bound and a
 * union bound over the m bins, no bin exceeds (1+δ)μ except with probability 2^-σ when {@code
 * m·exp(-δ²μ/3) ≤ 2^-σ}, i.e. δ0 = sqrt(3m/n·(σ ln 2 + ln m)) — valid for δ ≤ 1. For small bins (δ0
 * > 1) the paper's form does not apply; we use the general bound {@code P[X > (1+δ)μ] ≤
 * exp(-δ²μ/(2+δ))}, which gives δμ = (L + sqrt(L² + 8μL))/2 with L = σ ln 2 + ln m. The padded size
 * is {@code ceil((1+δ)·μ)}; it depends only on n, m and σ.
 */
public final class BinPlan {
  /** Elements per bin the automatic rule aims at: large enough that per-bin costs vanish. */
  public static final long TARGET_BIN_ELEMENTS = 1L << 20;

  /** The largest bin the native protocols accept (a KKRT limit). */
  public static final long MAX_BIN_ELEMENTS = (1L << 28) - 1;

  /** Largest bin count; bins are Flink keys and streams on the bridge. */
  public static final int MAX_BINS = 1 << 16;

  private BinPlan() {}

  /** δ0 for n elements in m bins at statistical security σ (the paper's formula when it is ≤ 1). */
  public static double delta(long n, int m, int sigma) {
    checkArgs(n, m, sigma);
    if (n == 0) {
      return Double.POSITIVE_INFINITY;
    }
    double mu = (double) n / m;
    double l = sigma * Math.log(2) + Math.log(m);
    double d = Math.sqrt(3 * l / mu);
    if (d <= 1) {
      return d;
    }
    return (l + Math.sqrt(l * l + 8 * mu * l)) / (2 * mu);
  }

  /** The public per-bin size every bin of a set of n elements is padded to. */
  public static long bound(long n, int m, int sigma) {
    checkArgs(n, m, sigma);
    double mu = (double) n / m;
    double l = sigma * Math.log(2) + Math.log(m);
    double padded = n == 0 ? l : (1 + delta(n, m, sigma)) * mu;
    long b = (long) Math.ceil(padded);
    if (b > MAX_BIN_ELEMENTS) {
      throw new IllegalArgumentException(
          String.format(
              "%,d elements in %d bins need bins of %,d elements, above the protocol's limit of %,d: "
                  + "use more bins",
              n, m, b, MAX_BIN_ELEMENTS));
    }
    return b;
  }

  /**
   * The automatic bin count: the smallest power of two that gives every parallel PSI task at least
   * two bins (so a slow bin does not idle the others) and keeps bins at or below {@link
   * #TARGET_BIN_ELEMENTS} elements.
   *
   * @param n the larger of the two parties' (estimated) set sizes
   * @param parallelism the number of bins processed at once
   */
  public static int autoBins(long n, int parallelism) {
    if (n < 0 || parallelism <= 0) {
      throw new IllegalArgumentException("n must be >= 0 and parallelism > 0");
    }
    long want = Math.max(2L * parallelism, (n + TARGET_BIN_ELEMENTS - 1) / TARGET_BIN_ELEMENTS);
    long m = Long.highestOneBit(want);
    if (m < want) {
      m <<= 1;
    }
    return (int) Math.min(m, MAX_BINS);
  }

  private static void checkArgs(long n, int m, int sigma) {
    if (n < 0) {
      throw new IllegalArgumentException("n must be >= 0, got " + n);
    }
    if (m <= 0 || m > MAX_BINS) {
      throw new IllegalArgumentException("bins must be in [1, " + MAX_BINS + "], got " + m);
    }
    if (sigma <= 0 || sigma > 128) {
      throw new IllegalArgumentException("sigma must be in [1, 128], got " + sigma);
    }
  }
}
