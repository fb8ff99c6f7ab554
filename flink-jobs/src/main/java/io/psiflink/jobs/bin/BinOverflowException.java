package io.psiflink.jobs.bin;

/**
 * A bin holds more distinct keys than the public bound it is padded to. Running it would reveal the
 * overflow (or drop keys), so the job fails instead. With the bound of section 3.1 this happens
 * with probability at most 2^-σ for random keys; retrying does not help.
 */
public class BinOverflowException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public BinOverflowException(int bin, long distinct, long bound, long n, int bins, int sigma) {
    super(
        String.format(
            "bin %d holds %,d distinct keys, above the public bound of %,d "
                + "((1+δ0)·n/m for n=%,d, m=%d, σ=%d). This happens with probability at most 2^-%d for "
                + "random keys; the job stops rather than reveal it. Run again (a new session draws new "
                + "keys) or raise σ.",
            bin, distinct, bound, n, bins, sigma, sigma));
  }
}
