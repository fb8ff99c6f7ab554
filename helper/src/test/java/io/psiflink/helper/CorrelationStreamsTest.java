package io.psiflink.helper;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The seed expansion against AES-128-ECB of the counter blocks done here with javax.crypto
 * (HelperBed.expand), and chunk-offset consistency.
 */
class CorrelationStreamsTest {
  private static final byte[] SEED = HexFormat.of().parseHex("000102030405060708090a0b0c0d0e0f");

  @Test
  void streamsAreAesOfTheCounterBlocks() throws Exception {
    CorrelationStreams s = new CorrelationStreams(SEED);
    for (int stream :
        new int[] {CorrelationStreams.M0, CorrelationStreams.M1, CorrelationStreams.SIGMA}) {
      long[] got = new long[1001];
      s.expand(stream, 0, got, 1001); // an odd count: half of the last block
      assertArrayEquals(HelperBed.expand(SEED, stream, 1001), got, "stream " + stream);
    }
  }

  @Test
  void chunksAtTheirOffsetsAreTheWholeStream() throws Exception {
    int bits = 24; // 4 chunks
    int words = 1 << (bits - 6);
    long[] whole = HelperBed.expand(SEED, CorrelationStreams.SIGMA, words);
    CorrelationStreams s = new CorrelationStreams(SEED);
    long[] chunk = new long[HelperClient.CHUNK_WORDS];
    for (int c = 0; c < HelperClient.chunks(bits); c++) {
      int n = HelperClient.chunkWords(bits, c);
      s.expand(CorrelationStreams.SIGMA, (long) c * HelperClient.CHUNK_WORDS, chunk, n);
      int from = c * HelperClient.CHUNK_WORDS;
      assertArrayEquals(Arrays.copyOfRange(whole, from, from + n), chunk, "chunk " + c);
    }
  }

  @Test
  void streamsAndSeedsDiffer() {
    long[] m0 = new long[4];
    long[] m1 = new long[4];
    long[] other = new long[4];
    new CorrelationStreams(SEED).expand(CorrelationStreams.M0, 0, m0, 4);
    new CorrelationStreams(SEED).expand(CorrelationStreams.M1, 0, m1, 4);
    byte[] seed2 = SEED.clone();
    seed2[15] ^= 1;
    new CorrelationStreams(seed2).expand(CorrelationStreams.M0, 0, other, 4);
    assertFalse(Arrays.equals(m0, m1));
    assertFalse(Arrays.equals(m0, other));
  }

  @Test
  void badArgumentsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new CorrelationStreams(new byte[15]));
    assertThrows(IllegalArgumentException.class, () -> new CorrelationStreams(null));
    CorrelationStreams s = new CorrelationStreams(SEED);
    long[] out = new long[4];
    assertThrows(IllegalArgumentException.class, () -> s.expand(0, 1, out, 2));
    assertThrows(IllegalArgumentException.class, () -> s.expand(0, -2, out, 2));
    assertThrows(IllegalArgumentException.class, () -> s.expand(0, 0, out, 5));
  }

  @Test
  void theDealtSeedIsCopiedAndHidden() {
    byte[] seed = SEED.clone();
    HelperClient.Dealt d = new HelperClient.Dealt(seed);
    seed[0] ^= 1;
    assertArrayEquals(SEED, d.seed());
    d.seed()[1] ^= 1;
    assertArrayEquals(SEED, d.seed());
    assertEquals(new HelperClient.Dealt(SEED), d);
    assertFalse(d.toString().contains(HexFormat.of().formatHex(SEED)), d.toString());
    assertFalse(d.toString().contains(Arrays.toString(SEED)), d.toString());
    assertFalse(d.toString().contains("[B@"), d.toString());
    assertThrows(IllegalArgumentException.class, () -> new HelperClient.Dealt(new byte[8]));
  }
}
