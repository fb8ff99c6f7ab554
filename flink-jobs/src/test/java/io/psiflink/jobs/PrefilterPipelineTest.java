package io.psiflink.jobs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.ColumnType;
import io.psiflink.api.Role;
import io.psiflink.connectors.BadRowLimit;
import io.psiflink.connectors.CsvOptions;
import io.psiflink.connectors.TableFormat;
import io.psiflink.connectors.row.RowCodec;
import io.psiflink.jobs.bin.TokenRecord;
import io.psiflink.jobs.prefilter.BloomPartial;
import io.psiflink.jobs.prefilter.CandidateSelect;
import io.psiflink.jobs.prefilter.FilterChunks;
import io.psiflink.jobs.prefilter.PrefilterPlan;
import io.psiflink.jobs.psi.BridgeEndpoint;
import io.psiflink.jobs.session.JobSecrets;
import io.psiflink.jobs.token.Tokens;
import io.psiflink.nativepsi.FilterPositions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The prefilter's Flink operators without a helper, under the job's own Flink configuration (BATCH,
 * unsorted inputs, hybrid shuffle): the partial filters OR to the filter of the whole set, and the
 * candidate selection keeps every token of the intersection (a Java HashSet is the oracle), exactly
 * the tokens whose positions are all set in F, and emits the others at A of a LEFT join as
 * unmatched rows. The combined filter arrives late on purpose: the selection must read it first.
 */
class PrefilterPipelineTest {
  @TempDir Path dir;

  private static final int P = 2;
  private static final PrefilterPlan PLAN = new PrefilterPlan(16, 2, Role.A);

  private PartyConfig config() {
    return new PartyConfig(
        Role.A,
        "SELECT a.v, b.w FROM a LEFT JOIN b ON a.k = b.k",
        dir.resolve("t.csv").toString(),
        dir.resolve("out").toString(),
        TableFormat.CSV,
        null,
        BadRowLimit.DEFAULT,
        CsvOptions.DEFAULT,
        "prefilter-test",
        new BridgeEndpoint(
            "127.0.0.1",
            1,
            "c.pem",
            "k.pem",
            "ca.pem",
            Duration.ofSeconds(5),
            Duration.ofSeconds(5)),
        "party-b",
        null,
        0,
        40,
        "kkrt",
        "",
        io.psiflink.api.JoinMode.BOTH,
        io.psiflink.api.PartyOptions.DEFAULT_LABEL_BYTES,
        P,
        1,
        dir.resolve("work").toString(),
        io.psiflink.api.PublicSize.DEFAULT,
        null,
        true,
        io.psiflink.api.Prefilter.NONE,
        0,
        0,
        1.0,
        null,
        null,
        null,
        false,
        true);
  }

  private static long[] tokens(SplittableRandom r, int n) {
    long[] t = new long[2 * n];
    for (int i = 0; i < n; i++) {
      t[2 * i] = r.nextLong() >>> 1; // real tokens have the top bit clear
      t[2 * i + 1] = r.nextLong();
    }
    return t;
  }

  private static long[] filter(FilterPositions fp, long[] tokens) {
    long[] f = new long[(int) PLAN.words()];
    int n = tokens.length / 2;
    byte[] bytes = new byte[n * Tokens.BYTES];
    for (int i = 0; i < n; i++) {
      Tokens.put(bytes, i * Tokens.BYTES, tokens[2 * i], tokens[2 * i + 1]);
    }
    long[] pos = new long[n * PLAN.hashes()];
    fp.positions(bytes, n, Tokens.BYTES, pos);
    FilterChunks.set(f, pos, pos.length);
    return f;
  }

  private static String hex(long hi, long lo) {
    return Long.toHexString(hi) + ":" + Long.toHexString(lo);
  }

  @Test
  void candidatesAreEveryCommonTokenAndTheRestAreUnmatchedRows() throws Exception {
    SplittableRandom r = new SplittableRandom(14);
    byte[] filterKey = new byte[32];
    r.nextBytes(filterKey);
    // A: 6000 tokens; B: 3000 tokens, 300 of them A's; A holds one common token twice
    long[] a = tokens(r, 6000);
    long[] b = tokens(r, 3000);
    for (int i = 0; i < 300; i++) {
      b[2 * i] = a[2 * (i * 7)];
      b[2 * i + 1] = a[2 * (i * 7) + 1];
    }
    a[2 * 5999] = a[0];
    a[2 * 5999 + 1] = a[1];
    Set<String> common = new HashSet<>();
    Set<String> inB = new HashSet<>();
    for (int i = 0; i < b.length / 2; i++) {
      inB.add(hex(b[2 * i], b[2 * i + 1]));
    }
    RowCodec kept = new RowCodec(List.of(ColumnType.STRING));
    List<byte[]> records = new ArrayList<>();
    for (int i = 0; i < a.length / 2; i++) {
      if (inB.contains(hex(a[2 * i], a[2 * i + 1]))) {
        common.add(hex(a[2 * i], a[2 * i + 1]));
      }
      byte[] row = kept.encode(Row.of("v" + i), new int[] {0});
      records.add(TokenRecord.of(i % 5, a[2 * i], a[2 * i + 1], row, 0, row.length));
    }
    assertEquals(300, common.size());

    long[] fa;
    long[] f;
    Map<String, Integer> expected = new HashMap<>();
    try (FilterPositions fp = FilterPositions.create(filterKey, PLAN.filterBits(), PLAN.hashes())) {
      fa = filter(fp, a);
      long[] fb = filter(fp, b);
      f = new long[fa.length];
      for (int i = 0; i < f.length; i++) {
        f[i] = fa[i] & fb[i];
      }
      byte[] one = new byte[Tokens.BYTES];
      long[] pos = new long[PLAN.hashes()];
      for (int i = 0; i < a.length / 2; i++) {
        Tokens.put(one, 0, a[2 * i], a[2 * i + 1]);
        fp.positions(one, 1, Tokens.BYTES, pos);
        if (FilterChunks.allSet(f, pos, 0, PLAN.hashes())) {
          expected.merge(hex(a[2 * i], a[2 * i + 1]), 1, Integer::sum);
        }
      }
    }
    for (String c : common) {
      assertTrue(expected.containsKey(c), "a Bloom filter has no false negatives");
    }
    assertTrue(expected.size() < 1000, "the filter removes most non-matches: " + expected.size());

    PartyConfig cfg = config();
    Path secrets =
        new JobSecrets(new byte[32], new byte[16], new byte[32], null, filterKey, null)
            .writeTo(PrivateJoinJob.secretDir(cfg));

    // 1. the partial filters OR to A's whole filter
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(PrivateJoinJob.flinkConfig(cfg, false));
    env.registerCachedFile(secrets.toUri().toString(), JobSecrets.CACHE_NAME);
    long[] union = new long[fa.length];
    int pieces = 0;
    try (var it =
        partial(env, records).getSideOutput(BloomPartial.FILTER_PIECES).executeAndCollect()) {
      while (it.hasNext()) {
        FilterChunks.orInto(it.next(), union);
        pieces++;
      }
    }
    assertArrayEquals(fa, union);
    assertEquals(P, pieces, "one piece per subtask at 2^16 bits");

    // 2. candidate selection, F arriving late
    env =
        StreamExecutionEnvironment.getExecutionEnvironment(PrivateJoinJob.flinkConfig(cfg, false));
    env.registerCachedFile(secrets.toUri().toString(), JobSecrets.CACHE_NAME);
    List<long[]> fPieces = List.of(FilterChunks.of(f, 0, f.length));
    DataStream<long[]> late =
        env.fromData(fPieces, PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO)
            .map(new Late())
            .returns(PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO)
            .setParallelism(1);
    SingleOutputStreamOperator<byte[]> selected =
        partial(env, records)
            .connect(late.broadcast())
            .transform(
                "candidates",
                PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
                new CandidateSelect(PLAN, JobSecrets.CACHE_NAME, kept, new int[] {0, -1}))
            .setParallelism(P);
    DataStream<String> all =
        selected
            .map(x -> "C" + hex(Tokens.hiAt(x, 4), Tokens.loAt(x, 4)))
            .returns(Types.STRING)
            .union(
                selected
                    .getSideOutput(CandidateSelect.UNMATCHED_ROWS)
                    .map(new DecodeUnmatched())
                    .returns(Types.STRING));
    Map<String, Integer> got = new HashMap<>();
    int unmatched = 0;
    Set<String> unmatchedValues = new HashSet<>();
    try (var it = all.executeAndCollect()) {
      while (it.hasNext()) {
        String s = it.next();
        if (s.startsWith("C")) {
          got.merge(s.substring(1), 1, Integer::sum);
        } else {
          unmatched++;
          unmatchedValues.add(s.substring(1));
        }
      }
    }
    assertEquals(expected, got);
    int candidates = got.values().stream().mapToInt(Integer::intValue).sum();
    assertEquals(6000, candidates + unmatched, "every row is a candidate or an unmatched row");
    assertEquals(6000 - candidates, unmatchedValues.size());
    assertTrue(unmatchedValues.stream().allMatch(v -> v.matches("v[0-9]+\\|null")));
  }

  /** The records, spread over P subtasks of {@link BloomPartial} without a helper. */
  private static SingleOutputStreamOperator<byte[]> partial(
      StreamExecutionEnvironment env, List<byte[]> records) {
    return env.fromData(records, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)
        .rebalance()
        .transform(
            "partial",
            PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
            new BloomPartial(PLAN, JobSecrets.CACHE_NAME, null))
        .setParallelism(P);
  }

  /** Holds the combined filter back, so that the tokens are there long before it. */
  static final class Late implements MapFunction<long[], long[]> {
    @Override
    public long[] map(long[] v) throws InterruptedException {
      Thread.sleep(1500);
      return v;
    }
  }

  /** An unmatched output row (v, NULL) as "Uv|null". */
  static final class DecodeUnmatched implements MapFunction<byte[], String> {
    @Override
    public String map(byte[] row) {
      Object[] cols = new Object[2];
      new RowCodec(List.of(ColumnType.STRING, ColumnType.STRING))
          .decode(row, 0, row.length, cols, 0);
      return "U" + cols[0] + "|" + cols[1];
    }
  }
}
