package io.psiflink.jobs.bin;

import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * Which subtask of the PSI operator runs which bin: bin b runs on subtask {@code b mod p}, so every
 * subtask gets its share of bins and subtask i of both parties' jobs works through the same bins in
 * the same order. Flink places a keyed record by a hash of its key, which would put bins unevenly
 * (with 4 bins and p = 2 often all on one subtask); so records are keyed by a routing key per bin,
 * the smallest distinct integers that Flink's hash sends to the wanted subtask.
 */
public final class BinRouting implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int parallelism;
  private final int[] keys;

  /**
   * @param bins the bin count m
   * @param maxParallelism the operator's max parallelism (its number of key groups)
   * @param parallelism the operator's parallelism p
   */
  public BinRouting(int bins, int maxParallelism, int parallelism) {
    if (bins < 1 || parallelism < 1 || maxParallelism < parallelism) {
      throw new IllegalArgumentException(
          "bins " + bins + ", maxParallelism " + maxParallelism + ", parallelism " + parallelism);
    }
    this.parallelism = parallelism;
    this.keys = new int[bins];
    List<ArrayDeque<Integer>> waiting = new ArrayList<>();
    for (int s = 0; s < parallelism; s++) {
      waiting.add(new ArrayDeque<>());
    }
    for (int b = 0; b < bins; b++) {
      waiting.get(b % parallelism).add(b);
    }
    int left = bins;
    for (int k = 0; left > 0; k++) {
      ArrayDeque<Integer> q =
          waiting.get(
              KeyGroupRangeAssignment.assignKeyToParallelOperator(k, maxParallelism, parallelism));
      if (!q.isEmpty()) {
        keys[q.poll()] = k;
        left--;
      }
    }
  }

  /** The bin count m. */
  public int bins() {
    return keys.length;
  }

  /** The key that routes bin {@code bin} to its subtask. */
  public int key(int bin) {
    return keys[bin];
  }

  /** The operator's parallelism p. */
  public int parallelism() {
    return parallelism;
  }

  /** The subtask that runs bin {@code bin}. */
  public int subtask(int bin) {
    if (bin < 0 || bin >= keys.length) {
      throw new IllegalArgumentException("bin " + bin + " of " + keys.length);
    }
    return bin % parallelism;
  }

  /** The bins subtask {@code subtask} runs, ascending. */
  public List<Integer> binsOf(int subtask) {
    List<Integer> out = new ArrayList<>();
    for (int b = subtask; b < keys.length; b += parallelism) {
      out.add(b);
    }
    return out;
  }
}
