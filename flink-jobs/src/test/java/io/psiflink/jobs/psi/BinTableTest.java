package io.psiflink.jobs.psi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.jobs.token.Tokens;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BinTableTest {
  @Test
  void groupsRowsByTokenAcrossChunksAndPadsWithDistinctDummies() {
    SplittableRandom r = new SplittableRandom(5);
    Map<String, List<String>> oracle = new HashMap<>();
    List<byte[]> chunks = new ArrayList<>();
    ByteArrayOutputStream chunk = new ByteArrayOutputStream();
    long[][] keys = new long[300][];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = new long[] {r.nextLong() & Long.MAX_VALUE, r.nextLong()};
    }
    for (int i = 0; i < 2000; i++) {
      long[] k = keys[r.nextInt(keys.length)];
      String row = "row" + i;
      BinChunks.append(chunk, k[0], k[1], row.getBytes());
      oracle.computeIfAbsent(k[0] + ":" + k[1], x -> new ArrayList<>()).add(row);
      if (chunk.size() > 1000) {
        chunks.add(chunk.toByteArray());
        chunk.reset();
      }
    }
    chunks.add(chunk.toByteArray());
    BinTable t = new BinTable(chunks);
    assertEquals(2000, t.rows());
    assertEquals(oracle.size(), t.distinct());
    for (int u = 0; u < t.distinct(); u++) {
      List<String> rows = new ArrayList<>();
      t.forEachRow(u, (b, off, len) -> rows.add(new String(b, off, len)));
      assertEquals(oracle.get(t.hi(u) + ":" + t.lo(u)), rows);
      assertEquals(rows.size(), t.rowCount(u));
    }

    int bound = t.distinct() + 50;
    byte[] e = t.elements(bound, true, 3);
    Set<String> distinct = new HashSet<>();
    for (int i = 0; i < bound; i++) {
      long hi = Tokens.hiAt(e, i * 16);
      assertEquals(i >= t.distinct(), Tokens.isDummy(hi));
      assertTrue(distinct.add(hi + ":" + Tokens.loAt(e, i * 16)));
    }
  }

  @Test
  void emptyBinIsAllDummies() {
    BinTable t = new BinTable(List.of());
    assertEquals(0, t.distinct());
    byte[] e = t.elements(4, false, 0);
    assertEquals(64, e.length);
    assertTrue(Tokens.isDummy(Tokens.hiAt(e, 0)));
  }

  @Test
  void payloadCipherDetectsTamperingReplayAndReordering() throws Exception {
    byte[] key = new byte[32];
    PayloadCipher send = new PayloadCipher(key, 1, 99);
    byte[] c0 = send.seal("first".getBytes(), 0, 5);
    byte[] c1 = send.seal("second".getBytes(), 0, 6);
    PayloadCipher recv = new PayloadCipher(key, 1, 99);
    assertArrayEquals("first".getBytes(), recv.open(c0, 0, c0.length));
    // replaying c0 in place of c1 fails
    PayloadCipher replay = new PayloadCipher(key, 1, 99);
    replay.open(c0, 0, c0.length);
    org.junit.jupiter.api.Assertions.assertThrows(PeerProtocolException.class,
        () -> replay.open(c0, 0, c0.length));
    byte[] bad = c1.clone();
    bad[2] ^= 1;
    org.junit.jupiter.api.Assertions.assertThrows(PeerProtocolException.class,
        () -> recv.open(bad, 0, bad.length));
    // a different bin's key does not open it
    PayloadCipher other = new PayloadCipher(key, 2, 99);
    org.junit.jupiter.api.Assertions.assertThrows(PeerProtocolException.class,
        () -> other.open(c0, 0, c0.length));
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
    long[] some = java.util.stream.LongStream.range(0, t.distinct())
        .filter(u -> r.nextInt(3) > 0).toArray();
    int[] expected = java.util.Arrays.stream(some).mapToInt(u -> (int) u).boxed()
        .sorted((a, b) -> {
          int c = Long.compareUnsigned(t.hi(a), t.hi(b));
          return c != 0 ? c : Long.compareUnsigned(t.lo(a), t.lo(b));
        }).mapToInt(Integer::intValue).toArray();
    assertArrayEquals(expected, t.byToken(some));
    assertArrayEquals(new int[0], t.byToken(new long[0]));
  }
}
