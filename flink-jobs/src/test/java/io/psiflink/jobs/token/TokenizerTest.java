package io.psiflink.jobs.token;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.ColumnType;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;

class TokenizerTest {
  private static final byte[] KEY = new byte[32];
  private static final byte[] SEED = new byte[16];

  static {
    for (int i = 0; i < 32; i++) {
      KEY[i] = (byte) i;
    }
    for (int i = 0; i < 16; i++) {
      SEED[i] = (byte) i;
    }
  }

  /** The unrolled byte order helpers against the JDK's big-endian ByteBuffer, at every offset. */
  @Test
  void bigEndianLongsReadAndWriteAsByteBufferDoes() {
    java.util.SplittableRandom r = new java.util.SplittableRandom(5);
    for (int k = 0; k < 1000; k++) {
      byte[] b = new byte[24];
      for (int i = 0; i < b.length; i++) {
        b[i] = (byte) r.nextInt(256);
      }
      int off = r.nextInt(9);
      java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(b);
      assertEquals(bb.getLong(off), Tokenizer.be64(b, off));
      long hi = r.nextLong();
      long lo = r.nextLong();
      byte[] put = new byte[24];
      Tokens.put(put, off, hi, lo);
      assertEquals(hi, java.nio.ByteBuffer.wrap(put).getLong(off));
      assertEquals(lo, java.nio.ByteBuffer.wrap(put).getLong(off + 8));
      assertEquals(hi, Tokens.hiAt(put, off));
      assertEquals(lo, Tokens.loAt(put, off));
    }
  }

  @Test
  void sipHashMatchesReferenceVectors() {
    // Reference vectors of SipHash-2-4 (key 00..0f, message 00..len-1) from the SipHash paper's
    // code.
    SipHash h = new SipHash(SEED);
    assertEquals(0x726fdb47dd0e0e31L, h.hash(msg(0), 0, 0));
    assertEquals(0x74f839c593dc67fdL, h.hash(msg(1), 0, 1));
    assertEquals(0x93f5f5799a932462L, h.hash(msg(8), 0, 8));
    assertEquals(0xa129ca6149be45e5L, h.hash(msg(15), 0, 15));
  }

  @Test
  void sipHashOfTwoWordsEqualsThatOfTheirLittleEndianBytes() {
    SipHash h = new SipHash(SEED);
    java.util.SplittableRandom r = new java.util.SplittableRandom(7);
    for (int i = 0; i < 1000; i++) {
      long a = r.nextLong();
      long b = r.nextLong();
      byte[] m = new byte[16];
      for (int j = 0; j < 8; j++) {
        m[j] = (byte) (a >>> (8 * j));
        m[8 + j] = (byte) (b >>> (8 * j));
      }
      assertEquals(h.hash(m, 0, 16), h.hash128(a, b));
    }
  }

  @Test
  void encodingIsInjectiveAcrossColumnBoundaries() {
    KeyEncoder e =
        new KeyEncoder(new int[] {0, 1}, new ColumnType[] {ColumnType.STRING, ColumnType.STRING});
    assertTrue(e.encode(Row.of("ab", "c")));
    byte[] x = Arrays.copyOf(e.buffer(), e.length());
    assertTrue(e.encode(Row.of("a", "bc")));
    byte[] y = Arrays.copyOf(e.buffer(), e.length());
    assertFalse(Arrays.equals(x, y));
  }

  @Test
  void integersOfBothWidthsAndDoubleSignsNormalise() {
    KeyEncoder ints = new KeyEncoder(new int[] {0}, new ColumnType[] {ColumnType.INT});
    KeyEncoder longs = new KeyEncoder(new int[] {0}, new ColumnType[] {ColumnType.BIGINT});
    assertTrue(ints.encode(Row.of(5)));
    byte[] x = Arrays.copyOf(ints.buffer(), ints.length());
    assertTrue(longs.encode(Row.of(5L)));
    assertTrue(Arrays.equals(x, Arrays.copyOf(longs.buffer(), longs.length())));

    KeyEncoder d = new KeyEncoder(new int[] {0}, new ColumnType[] {ColumnType.DOUBLE});
    assertTrue(d.encode(Row.of(0.0)));
    byte[] zero = Arrays.copyOf(d.buffer(), d.length());
    assertTrue(d.encode(Row.of(-0.0)));
    assertTrue(Arrays.equals(zero, Arrays.copyOf(d.buffer(), d.length())));
    assertFalse(d.encode(Row.of(Double.NaN)));
  }

  @Test
  void stringsAreTheirExactUtf8BytesAsSqlComparesThem() {
    KeyEncoder e = new KeyEncoder(new int[] {0}, new ColumnType[] {ColumnType.STRING});
    assertTrue(e.encode(Row.of("Cafe\u0301"))); // decomposed é
    byte[] decomposed = Arrays.copyOf(e.buffer(), e.length());
    // known answer: tag 4 (STRING), length 6, then the bytes as they are (no NFC)
    assertArrayEquals(
        new byte[] {4, 0, 0, 0, 6, 'C', 'a', 'f', 'e', (byte) 0xCC, (byte) 0x81}, decomposed);
    assertTrue(e.encode(Row.of("Caf\u00e9"))); // precomposed é: SQL says a different string
    assertArrayEquals(
        new byte[] {4, 0, 0, 0, 5, 'C', 'a', 'f', (byte) 0xC3, (byte) 0xA9},
        Arrays.copyOf(e.buffer(), e.length()));
    assertTrue(e.encode(Row.of("caf\u00e9")));
    assertFalse(Arrays.equals(decomposed, Arrays.copyOf(e.buffer(), e.length())));
    assertTrue(e.encode(Row.of("Caf\u00e9 ")));
    assertFalse(Arrays.equals(decomposed, Arrays.copyOf(e.buffer(), e.length())));
    assertTrue(e.encode(Row.of("")));
    assertArrayEquals(new byte[] {4, 0, 0, 0, 0}, Arrays.copyOf(e.buffer(), e.length()));
  }

  @Test
  void keysWithALoneSurrogateHaveNoEncodingInsteadOfSharingOne() {
    KeyEncoder e = new KeyEncoder(new int[] {0}, new ColumnType[] {ColumnType.STRING});
    // Two different keys that differ only in a lone surrogate: a lenient UTF-8 encoder makes both
    // "a?" (one token for two keys); a strict one refuses both.
    assertFalse(e.encode(Row.of("a\uD800")));
    assertFalse(e.encode(Row.of("a\uDC00")));
    assertFalse(e.encode(Row.of("\uDE00\uD83Da"))); // a pair in the wrong order is two lone halves
    assertTrue(e.encode(Row.of("a?")));
    assertTrue(e.encode(Row.of("a\uD83D\uDE00"))); // a proper pair encodes
    assertEquals(1 + 4 + 5, e.length());
    assertEquals(1, io.psiflink.connectors.row.Utf8.unpairedSurrogate("a\uD800b"));
    assertEquals(-1, io.psiflink.connectors.row.Utf8.unpairedSurrogate("a\uD83D\uDE00b"));
  }

  @Test
  void nullKeysHaveNoEncoding() {
    KeyEncoder e =
        new KeyEncoder(new int[] {0, 1}, new ColumnType[] {ColumnType.STRING, ColumnType.BIGINT});
    assertFalse(e.encode(Row.of("x", null)));
    assertFalse(e.encode(Row.of(null, 1L)));
  }

  /** The token of one key, through a batch of one. */
  private static long[] token(Tokenizer t, byte[] m) {
    t.clear();
    t.add(m, m.length);
    t.tokenize();
    return new long[] {t.hi(0), t.lo(0), t.bin(0)};
  }

  /** Every token's bin in full batches is SipHash of its halves mod m (the Java oracle). */
  @Test
  void binsOfBatchesAreSipHashOfTheTokens() {
    for (int m : new int[] {1, 4, 37, 1 << 20}) {
      try (Tokenizer t = new Tokenizer(KEY, SEED, m)) {
        SipHash h = new SipHash(SEED);
        int key = 0;
        for (int batch = 0; batch < 3; batch++) {
          t.clear();
          while (!t.add(Integer.toString(key).getBytes(), Integer.toString(key).length())) {
            key++;
          }
          key++;
          t.tokenize();
          assertEquals(Tokenizer.BATCH, t.size());
          for (int i = 0; i < t.size(); i++) {
            assertEquals(Long.remainderUnsigned(h.hash128(t.hi(i), t.lo(i)), m), t.bin(i));
          }
        }
      }
    }
  }

  @Test
  void tokenIsTruncatedHmacWithTopBitClearAndBinInRange() throws Exception {
    try (Tokenizer t = new Tokenizer(KEY, SEED, 37)) {
      byte[] enc = "hello".getBytes();
      long[] tok = token(t, enc);
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
      byte[] h = mac.doFinal(enc);
      assertEquals(Tokenizer.be64(h, 0) & Long.MAX_VALUE, tok[0]);
      assertEquals(Tokenizer.be64(h, 8), tok[1]);
      assertFalse(Tokens.isDummy(tok[0]));
      assertEquals(Long.remainderUnsigned(new SipHash(SEED).hash128(tok[0], tok[1]), 37), tok[2]);

      // Bins spread evenly: 37 bins, 37,000 tokens, each bin within 25 % of 1,000.
      int[] counts = new int[37];
      for (int i = 0; i < 37_000; i++) {
        counts[(int) token(t, Integer.toString(i).getBytes())[2]]++;
      }
      for (int c : counts) {
        assertTrue(c > 750 && c < 1250, "bin count " + c);
      }
    }
  }

  /** Full batches and a partial one give each key the JDK's HMAC, in order. */
  @Test
  void batchesGiveEachKeyItsOwnToken() throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
    try (Tokenizer t = new Tokenizer(KEY, SEED, 8)) {
      int n = 2 * Tokenizer.BATCH + 5;
      int done = 0;
      for (int i = 0; i < n; i++) {
        byte[] m = msg(i % 200); // up to four SHA-256 blocks; the buffer grows past its start
        if (t.add(m, m.length) || i == n - 1) {
          t.tokenize();
          for (int j = 0; j < t.size(); j++) {
            byte[] h = mac.doFinal(msg((done + j) % 200));
            assertEquals(Tokenizer.be64(h, 0) & Long.MAX_VALUE, t.hi(j), "key " + (done + j));
            assertEquals(Tokenizer.be64(h, 8), t.lo(j), "key " + (done + j));
          }
          done += t.size();
          t.clear();
        }
      }
      assertEquals(n, done);
      t.add(msg(3), 3);
      assertThrows(IllegalStateException.class, () -> t.hi(0), "not tokenized yet");
    }
  }

  @Test
  void differentSessionKeysGiveUnrelatedTokens() {
    byte[] other = KEY.clone();
    other[0] ^= 1;
    try (Tokenizer t1 = new Tokenizer(KEY, SEED, 8);
        Tokenizer t2 = new Tokenizer(other, SEED, 8)) {
      byte[] m = "same key".getBytes();
      assertNotEquals(token(t1, m)[1], token(t2, m)[1]);
    }
  }

  private static byte[] msg(int n) {
    byte[] m = new byte[n];
    for (int i = 0; i < n; i++) {
      m[i] = (byte) i;
    }
    return m;
  }
}
