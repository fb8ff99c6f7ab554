package io.psiflink.tools.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psiflink.api.CommandLineSyntax;
import io.psiflink.api.OptionValues;
import io.psiflink.api.TypedOption;
import io.psiflink.nativepsi.FilterPositions;
import io.psiflink.tools.cli.ToolOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * {@code ./psi bench prefilter}: the candidate ratio of the helper pre-filter (candidates over the
 * intersection, per party) against the filter's size and hash count, on the seed paper's five
 * datasets scaled by 1/10 (its Table 4). Tokens are uniformly random 16-byte strings, which is what
 * the job's tokens are (PRF outputs); positions come from the job's own native FilterPositions, and
 * a token is a candidate when all its positions are set in both filters, as after the helper-dealt
 * AND. No network, no Flink: the ratio depends on the filters only.
 */
public final class PrefilterRatios {
  private PrefilterRatios() {}

  /** A dataset of the paper's Table 2, scaled: sizes of A and B, keys in common. */
  record Dataset(String name, long a, long b, long common, int[] paperBits, double[][] paper) {}

  /**
   * The paper's datasets / 10 and its Table 4 (ratio of A, ratio of B at each filter size 2^L of
   * the unscaled data). Our filters are 2^(L−3): 1/8 of the paper's for 1/10 of the data, so 1.25×
   * its bits per key; the report shows bits per key of the larger set beside each ratio.
   */
  static final List<Dataset> PAPER =
      List.of(
          new Dataset(
              "1",
              2_200_000,
              220_000,
              17_000,
              new int[] {24, 25, 26, 27},
              new double[][] {{16.78, 9.73}, {9.15, 6.74}, {5.14, 4.33}, {3.08, 2.80}}),
          new Dataset(
              "2",
              2_200_000,
              2_200_000,
              166_000,
              new int[] {25, 26, 27, 28},
              new double[][] {{6.91, 6.91}, {4.43, 4.43}, {2.85, 2.85}, {1.96, 1.96}}),
          new Dataset(
              "3",
              21_000_000,
              220_000,
              21_000,
              new int[] {27, 28, 29, 30},
              new double[][] {{17.25, 8.50}, {9.15, 6.14}, {5.08, 4.06}, {3.05, 2.68}}),
          new Dataset(
              "4",
              21_000_000,
              2_200_000,
              213_000,
              new int[] {28, 29, 30, 31},
              new double[][] {{8.67, 6.06}, {4.91, 4.01}, {2.98, 2.66}, {1.99, 1.87}}),
          new Dataset(
              "5",
              21_000_000,
              21_000_000,
              2_048_000,
              new int[] {29, 30, 31, 32},
              new double[][] {{3.99, 3.99}, {2.64, 2.64}, {1.86, 1.86}, {1.44, 1.44}}));

  static final TypedOption<String> HASHES =
      TypedOption.text("hashes", "K[,K...]", "hash counts to measure (default 1,2,3)", "1,2,3");
  static final TypedOption<String> DATASETS =
      TypedOption.text("datasets", "D[,D...]", "which of the paper's datasets, 1..5", "1,2,3,4,5");
  static final TypedOption<Long> SEED =
      ToolOptions.count("seed", "S", "seed of the random tokens and keys", 1L, 0L);
  static final TypedOption<Boolean> JSON =
      TypedOption.flag("json", "print one JSON object instead of a Markdown table");

  static final CommandLineSyntax SYNTAX =
      new CommandLineSyntax(
          "./psi bench prefilter",
          "Measures the helper pre-filter's candidate ratio against filter size and hash count on "
              + "the seed paper's datasets scaled by 1/10 (its Table 4), with the job's own "
              + "filter positions.",
          List.of(HASHES, DATASETS, SEED, JSON));

  /** One measured point. */
  record Point(
      String dataset,
      int filterBits,
      int hashes,
      double bitsPerKey,
      long candidatesA,
      long candidatesB,
      double ratioA,
      double ratioB,
      double paperRatioA,
      double paperRatioB,
      double seconds) {}

  public static void main(String[] args) throws Exception {
    ToolOptions.Parsed parsed =
        ToolOptions.parse(SYNTAX, "psi bench prefilter", args, System.out, System.err);
    if (parsed.done()) {
      System.exit(parsed.exitCode());
      return;
    }
    OptionValues o = parsed.values();
    List<Integer> hashes = ints(o.get(HASHES));
    List<Point> points = new ArrayList<>();
    for (int d : ints(o.get(DATASETS))) {
      if (d < 1 || d > PAPER.size()) {
        System.err.println("psi bench prefilter: no dataset " + d + " (1 to 5)");
        System.exit(2);
      }
      Dataset ds = PAPER.get(d - 1);
      for (int i = 0; i < ds.paperBits().length; i++) {
        for (int k : hashes) {
          Point p = measure(ds, i, k, o.get(SEED));
          points.add(p);
          System.err.printf(
              Locale.ROOT,
              "dataset %s, L=%d, k=%d: ratio A %.2f, B %.2f (paper %.2f, %.2f), %.1f s%n",
              p.dataset(),
              p.filterBits(),
              k,
              p.ratioA(),
              p.ratioB(),
              p.paperRatioA(),
              p.paperRatioB(),
              p.seconds());
        }
      }
    }
    if (o.get(JSON)) {
      ObjectNode n = Json.object();
      ArrayNode arr = n.putArray("points");
      for (Point p : points) {
        ObjectNode j = arr.addObject();
        j.put("dataset", p.dataset());
        j.put("filter_bits", p.filterBits());
        j.put("hashes", p.hashes());
        j.put("bits_per_key", Json.three(p.bitsPerKey()));
        j.put("candidates_a", p.candidatesA());
        j.put("candidates_b", p.candidatesB());
        j.put("ratio_a", Json.three(p.ratioA()));
        j.put("ratio_b", Json.three(p.ratioB()));
        j.put("paper_ratio_a", p.paperRatioA());
        j.put("paper_ratio_b", p.paperRatioB());
        j.put("seconds", Json.three(p.seconds()));
      }
      System.out.println(Json.write(n));
    } else {
      System.out.println(
          "| dataset (A × B, common) | L | bits per key | k | ratio A | ratio B | paper (L+3, k=1) A | B |");
      System.out.println("|---|---|---|---|---|---|---|---|");
      for (Point p : points) {
        Dataset ds = PAPER.get(Integer.parseInt(p.dataset()) - 1);
        System.out.printf(
            Locale.ROOT,
            "| %s (%s × %s, %s) | %d | %.2f | %d | %.2f | %.2f | %.2f | %.2f |%n",
            p.dataset(),
            millions(ds.a()),
            millions(ds.b()),
            millions(ds.common()),
            p.filterBits(),
            p.bitsPerKey(),
            p.hashes(),
            p.ratioA(),
            p.ratioB(),
            p.paperRatioA(),
            p.paperRatioB());
      }
    }
  }

  /**
   * Builds both filters of dataset {@code ds} at its {@code i}-th size with {@code k} hashes and
   * counts each party's candidates. A's keys are tokens 0..a−1 of one stream, B's are the first
   * {@code common} of A's and then fresh ones.
   */
  static Point measure(Dataset ds, int i, int k, long seed) {
    long start = System.nanoTime();
    int bits = ds.paperBits()[i] - 3;
    SplittableRandom r = new SplittableRandom(seed * 1_000_003L + bits * 31L + k);
    byte[] key = new byte[32];
    fill(r, key);
    long tokenSeedA = r.nextLong();
    long tokenSeedB = r.nextLong();
    long[] fa = new long[(int) ((1L << bits) >>> 6)];
    long[] fb = new long[fa.length];
    try (FilterPositions pos = FilterPositions.create(key, bits, k)) {
      forEachBatch(pos, ds.a(), 0, tokenSeedA, tokenSeedB, ds.common(), (p, n) -> set(fa, p, n));
      forEachBatch(pos, ds.b(), 1, tokenSeedA, tokenSeedB, ds.common(), (p, n) -> set(fb, p, n));
      for (int w = 0; w < fa.length; w++) {
        fa[w] &= fb[w]; // the AND both parties end with
      }
      long[] cand = new long[2];
      forEachBatch(
          pos,
          ds.a(),
          0,
          tokenSeedA,
          tokenSeedB,
          ds.common(),
          (p, n) -> cand[0] += count(fa, p, n, k));
      forEachBatch(
          pos,
          ds.b(),
          1,
          tokenSeedA,
          tokenSeedB,
          ds.common(),
          (p, n) -> cand[1] += count(fa, p, n, k));
      double[] paper = ds.paper()[i];
      return new Point(
          ds.name(),
          bits,
          k,
          (double) (1L << bits) / Math.max(ds.a(), ds.b()),
          cand[0],
          cand[1],
          (double) cand[0] / ds.common(),
          (double) cand[1] / ds.common(),
          paper[0],
          paper[1],
          (System.nanoTime() - start) / 1e9);
    }
  }

  private interface Batch {
    void accept(long[] positions, int tokens);
  }

  private static final int BATCH = 8192;

  /**
   * The positions of a party's tokens, batch by batch: A's token j is token j of stream A; B's
   * token j is A's token j for j < common, else token j of stream B.
   */
  private static void forEachBatch(
      FilterPositions pos, long n, int party, long seedA, long seedB, long common, Batch out) {
    int k = pos.hashes();
    byte[] tokens = new byte[BATCH * 16];
    long[] positions = new long[BATCH * k];
    for (long start = 0; start < n; start += BATCH) {
      int count = (int) Math.min(BATCH, n - start);
      for (int t = 0; t < count; t++) {
        long j = start + t;
        boolean shared = party == 0 || j < common;
        token(shared ? seedA : seedB, j, tokens, t * 16);
      }
      pos.positions(tokens, count, 16, positions);
      out.accept(positions, count * k);
    }
  }

  /**
   * Token j of a stream: 16 bytes of a SplitMix64-style hash of (seed, j); distinct for distinct j.
   */
  private static void token(long seed, long j, byte[] out, int off) {
    long a = mix(seed ^ (j * 0x9E3779B97F4A7C15L));
    long b = mix(a ^ j ^ 0xD1B54A32D192ED03L);
    for (int i = 0; i < 8; i++) {
      out[off + i] = (byte) (a >>> (8 * i));
      out[off + 8 + i] = (byte) (b >>> (8 * i));
    }
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private static void set(long[] f, long[] p, int n) {
    for (int i = 0; i < n; i++) {
      f[(int) (p[i] >>> 6)] |= 1L << p[i];
    }
  }

  /** Tokens of the batch whose k positions are all set. */
  private static long count(long[] f, long[] p, int n, int k) {
    long c = 0;
    for (int i = 0; i < n; i += k) {
      boolean all = true;
      for (int j = 0; j < k && all; j++) {
        all = (f[(int) (p[i + j] >>> 6)] & (1L << p[i + j])) != 0;
      }
      c += all ? 1 : 0;
    }
    return c;
  }

  private static void fill(SplittableRandom r, byte[] b) {
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) r.nextInt(256);
    }
  }

  private static List<Integer> ints(String csv) {
    List<Integer> out = new ArrayList<>();
    for (String s : csv.split(",")) {
      out.add(Integer.parseInt(s.trim()));
    }
    return out;
  }

  private static String millions(long n) {
    return String.format(Locale.ROOT, "%.2fM", n / 1e6);
  }
}
