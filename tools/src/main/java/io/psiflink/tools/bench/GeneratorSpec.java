package io.psiflink.tools.bench;

/**
 * What the {@link TableGenerator} produces.
 *
 * <ul>
 *   <li>{@code rowsA}, {@code rowsB}: rows of table a and table b.
 *   <li>{@code nullKeyFraction}: on each side, {@code round(nullKeyFraction · rows)} rows have card
 *       or zip (or both) NULL; they never join.
 *   <li>{@code overlap} F: on each side exactly {@code M = round(F · min(nonNullA, nonNullB))} rows
 *       carry a key that also occurs in the other table, where {@code nonNull = rows −
 *       nullKeyRows}. For equal sizes without nulls this is "F of a's rows match b, and as many of
 *       b's rows match a"; for unequal sizes F is the fraction of the smaller side's (non-null-key)
 *       rows that match.
 *   <li>{@code duplicateFraction} d: of the M matching rows, {@code round(d · M)} repeat an earlier
 *       key of the same table, so {@code K = M − round(d · M)} distinct keys are shared (at least 1
 *       when M ≥ 1); likewise for the non-matching rows. Repeats are spread evenly (each key occurs
 *       ⌊M/K⌋ or ⌈M/K⌉ times) and the heavier keys of a and b overlap only partly, so the join
 *       expands 1×1, 1×2, 2×1, 2×2, … exactly as SQL does.
 *   <li>{@code seed}: everything is a deterministic function of the spec.
 * </ul>
 */
public record GeneratorSpec(
    long rowsA,
    long rowsB,
    double overlap,
    double duplicateFraction,
    double nullKeyFraction,
    long seed) {

  public static final long DEFAULT_SEED = 20240229L;

  public GeneratorSpec {
    if (rowsA < 0 || rowsB < 0) {
      throw new IllegalArgumentException("row counts must be >= 0");
    }
    if (!(overlap >= 0 && overlap <= 1)) {
      throw new IllegalArgumentException("overlap must be in [0, 1]: " + overlap);
    }
    if (!(duplicateFraction >= 0 && duplicateFraction < 1)) {
      throw new IllegalArgumentException(
          "duplicateFraction must be in [0, 1): " + duplicateFraction);
    }
    if (!(nullKeyFraction >= 0 && nullKeyFraction <= 1)) {
      throw new IllegalArgumentException("nullKeyFraction must be in [0, 1]: " + nullKeyFraction);
    }
    if (rowsA >= (1L << 60) || rowsB >= (1L << 60)) {
      throw new IllegalArgumentException("too many rows");
    }
  }

  /** Equal sizes, no duplicates, no null keys, the default seed. */
  public static GeneratorSpec of(long rows, double overlap) {
    return new GeneratorSpec(rows, rows, overlap, 0, 0, DEFAULT_SEED);
  }

  public GeneratorSpec withSeed(long newSeed) {
    return new GeneratorSpec(rowsA, rowsB, overlap, duplicateFraction, nullKeyFraction, newSeed);
  }
}
