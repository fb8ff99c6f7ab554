package io.psiflink.jobs.bin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
import io.psiflink.jobs.token.Tokens;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

class BinTableTest {
  @Test
  void groupsRowsByTokenAcrossChunksAndPadsWithDistinctDummies() {
    SplittableRandom r = new SplittableRandom(5);
    Map<String, List<String>> oracle = new HashMap<>();
    long[][] keys = new long[300][];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = new long[] {r.nextLong() & Long.MAX_VALUE, r.nextLong()};
    }
    BinTable t = new BinTable(chunks(2000, 1000, i -> keys[r.nextInt(keys.length)], oracle));
    assertEquals(2000, t.rows());
    assertRowsAsIn(oracle, t);

    int bound = t.distinct() + 50;
    byte[] e = t.elements(bound, Role.B);
    Set<String> distinct = new HashSet<>();
    for (int i = 0; i < bound; i++) {
      long hi = Tokens.hiAt(e, i * 16);
      assertEquals(i >= t.distinct(), Tokens.isDummy(hi));
      assertTrue(distinct.add(hi + ":" + Tokens.loAt(e, i * 16)));
    }
  }

  @Test
  void dummiesAreRandomInTheirPartysDomainAndFreshPerAttempt() {
    SplittableRandom r = new SplittableRandom(3);
    ByteArrayOutputStream chunk = new ByteArrayOutputStream();
    Set<String> real = new HashSet<>();
    for (int i = 0; i < 500; i++) {
      long hi = r.nextLong() & Long.MAX_VALUE;
      long lo = r.nextLong();
      real.add(hi + ":" + lo);
      BinChunks.append(chunk, hi, lo, new byte[0]);
    }
    BinTable t = new BinTable(List.of(chunk.toByteArray()));
    int bound = 4000;
    Set<String> seen = new HashSet<>();
    long[] orHi = new long[2];
    for (Role owner : List.of(Role.A, Role.B)) {
      for (int attempt = 0; attempt < 2; attempt++) {
        byte[] e = t.elements(bound, owner);
        for (int i = 0; i < t.distinct(); i++) { // the real tokens first, unchanged
          assertTrue(real.contains(Tokens.hiAt(e, i * 16) + ":" + Tokens.loAt(e, i * 16)));
        }
        for (int i = t.distinct(); i < bound; i++) {
          long hi = Tokens.hiAt(e, i * 16);
          long lo = Tokens.loAt(e, i * 16);
          assertTrue(hi < 0, "top bit set: outside the real tokens' domain");
          assertEquals(owner.equals(Role.B), (hi & (1L << 62)) != 0, "the party's bit");
          assertTrue(Tokens.isDummy(hi));
          assertEquals(owner, Tokens.dummyOwner(hi));
          // distinct from real tokens, from each other, across attempts and across parties
          assertTrue(seen.add(hi + ":" + lo), "a dummy repeats");
          orHi[owner.index()] |= hi & ((1L << 62) - 1);
        }
      }
    }
    // the 62 free bits of hi are random: over thousands of dummies, every one of them is set
    assertEquals((1L << 62) - 1, orHi[0]);
    assertEquals((1L << 62) - 1, orHi[1]);
  }

  @Test
  void emptyBinIsAllDummies() {
    BinTable t = new BinTable(List.of());
    assertEquals(0, t.distinct());
    byte[] e = t.elements(4, Role.A);
    assertEquals(64, e.length);
    assertTrue(Tokens.isDummy(Tokens.hiAt(e, 0)));
  }

  @Test
  void byTokenOrdersLikeAComparatorEvenWhenPrefixesCollide() {
    SplittableRandom r = new SplittableRandom(9);
    ByteArrayOutputStream chunk = new ByteArrayOutputStream();
    for (int i = 0; i < 5000; i++) {
      long hi = r.nextLong() & Long.MAX_VALUE;
      if (i % 10 < 3) {
        hi = (0x1234_5678_9000_0000L | r.nextInt(4)) & Long.MAX_VALUE; // shared top bits
      }
      BinChunks.append(chunk, hi, i % 7 == 0 ? -r.nextLong(1000) : r.nextLong(), new byte[0]);
    }
    BinTable t = new BinTable(List.of(chunk.toByteArray()));
    long[] some =
        java.util.stream.LongStream.range(0, t.distinct()).filter(u -> r.nextInt(3) > 0).toArray();
    int[] expected =
        java.util.Arrays.stream(some)
            .mapToInt(u -> (int) u)
            .boxed()
            .sorted(
                (a, b) -> {
                  int c = Long.compareUnsigned(t.hi(a), t.hi(b));
                  return c != 0 ? c : Long.compareUnsigned(t.lo(a), t.lo(b));
                })
            .mapToInt(Integer::intValue)
            .toArray();
    assertArrayEquals(expected, t.byToken(some));
    assertArrayEquals(new int[0], t.byToken(new long[0]));
  }

  @Test
  void distinctTokensAreNumberedInTokenOrderWithEachKeysRowsInArrivalOrder() {
    // Many rows on few keys (buckets far larger than the sort's small case, two heavy keys
    // sharing their top bits), keys with the top bit set and equal hi, and unique keys.
    SplittableRandom r = new SplittableRandom(11);
    long[][] keys = new long[400][];
    for (int i = 0; i < keys.length; i++) {
      long hi = i < 4 ? 0x7000_0000_0000_0000L | i : r.nextLong();
      keys[i] = new long[] {i % 5 == 0 ? 42 : hi, r.nextLong()};
    }
    Map<String, List<String>> oracle = new HashMap<>();
    BinTable t =
        new BinTable(
            chunks(
                20000,
                4000,
                i -> keys[i % 3 == 0 ? r.nextInt(4) : r.nextInt(keys.length)],
                oracle));
    assertRowsAsIn(oracle, t);
    for (int u = 1; u < t.distinct(); u++) {
      int c = Long.compareUnsigned(t.hi(u - 1), t.hi(u));
      assertTrue(c < 0 || c == 0 && Long.compareUnsigned(t.lo(u - 1), t.lo(u)) < 0, "at " + u);
    }
    assertArrayEquals(new int[] {1, 3, 7}, t.byToken(new long[] {7, 1, 3}));
  }

  /**
   * Chunks of about {@code chunkBytes} holding rows "r0", "r1", ... on the keys {@code keyOf} gives
   * them, in that order; each key's rows, in order, are added to {@code oracle}.
   */
  private static List<byte[]> chunks(
      int rows, int chunkBytes, IntFunction<long[]> keyOf, Map<String, List<String>> oracle) {
    List<byte[]> chunks = new ArrayList<>();
    ByteArrayOutputStream chunk = new ByteArrayOutputStream();
    for (int i = 0; i < rows; i++) {
      long[] k = keyOf.apply(i);
      String row = "r" + i;
      BinChunks.append(chunk, k[0], k[1], row.getBytes());
      oracle.computeIfAbsent(k[0] + ":" + k[1], x -> new ArrayList<>()).add(row);
      if (chunk.size() > chunkBytes) {
        chunks.add(chunk.toByteArray());
        chunk.reset();
      }
    }
    chunks.add(chunk.toByteArray());
    return chunks;
  }

  /** The table holds the oracle's keys, each with its rows in order. */
  private static void assertRowsAsIn(Map<String, List<String>> oracle, BinTable t) {
    assertEquals(oracle.size(), t.distinct());
    for (int u = 0; u < t.distinct(); u++) {
      List<String> rows = new ArrayList<>();
      t.forEachRow(u, (b, off, len) -> rows.add(new String(b, off, len)));
      assertEquals(oracle.get(t.hi(u) + ":" + t.lo(u)), rows);
      assertEquals(rows.size(), t.rowCount(u));
    }
  }
}
