package io.psiflink.nativepsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * The native token PRF against the JDK's HMAC-SHA256 (an independent implementation) truncated to
 * 16 bytes, for batches of messages of every length up to two blocks and beyond; a known answer;
 * argument errors named; closed objects refused.
 */
class TokenPrfJnaTest {
  private static byte[] jdkHmac16(byte[] key, byte[] m, int off, int len) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    mac.update(m, off, len);
    return Arrays.copyOf(mac.doFinal(), 16);
  }

  @Test
  void aBatchEqualsTheJdksHmacOfEachMessage() throws Exception {
    SplittableRandom r = new SplittableRandom(5);
    byte[] key = new byte[32];
    r.nextBytes(key);
    ByteArrayOutputStream data = new ByteArrayOutputStream();
    int count = 300;
    int[] ends = new int[count + 7]; // longer than count: allowed
    for (int i = 0; i < count; i++) {
      byte[] m = new byte[i % 150]; // 0 to 149 bytes: one-, two- and three-block tails
      r.nextBytes(m);
      data.writeBytes(m);
      ends[i] = data.size();
    }
    byte[] bytes = data.toByteArray();
    byte[] out = new byte[16 * count];
    try (TokenPrf prf = TokenPrf.create(key)) {
      prf.compute(bytes, ends, count, out);
    }
    int start = 0;
    for (int i = 0; i < count; i++) {
      assertArrayEquals(
          jdkHmac16(key, bytes, start, ends[i] - start),
          Arrays.copyOfRange(out, 16 * i, 16 * i + 16),
          "message " + i);
      start = ends[i];
    }
  }

  @Test
  void knownAnswer() {
    // Python: hmac.new(bytes(range(32)), b"psi-flink token", "sha256").hexdigest()[:32]
    byte[] key = new byte[32];
    for (int i = 0; i < 32; i++) {
      key[i] = (byte) i;
    }
    byte[] m = "psi-flink token".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    byte[] out = new byte[16];
    try (TokenPrf prf = TokenPrf.create(key)) {
      prf.compute(m, new int[] {m.length}, 1, out);
    }
    assertArrayEquals(HexFormat.of().parseHex("e6579e6266e7d7879b0411d5a3ef7079"), out);
  }

  @Test
  void badArgumentsAreNamed() {
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> TokenPrf.create(new byte[16]))
            .getMessage()
            .contains("32 bytes"));
    TokenPrf prf = TokenPrf.create(new byte[32]);
    byte[] data = new byte[10];
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () -> prf.compute(data, new int[] {4, 2}, 2, new byte[32]))
            .getMessage()
            .contains("ends[1] = 2"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () -> prf.compute(data, new int[] {11}, 1, new byte[16]))
            .getMessage()
            .contains("beyond data_len 10"));
    assertThrows(
        IllegalArgumentException.class, () -> prf.compute(data, new int[] {1}, 2, new byte[32]));
    assertThrows(
        IllegalArgumentException.class, () -> prf.compute(data, new int[] {1}, 1, new byte[15]));
    prf.close();
    prf.close();
    assertThrows(
        IllegalStateException.class, () -> prf.compute(data, new int[] {1}, 1, new byte[16]));
  }
}
