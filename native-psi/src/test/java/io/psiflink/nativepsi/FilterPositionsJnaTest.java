package io.psiflink.nativepsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import javax.crypto.Cipher;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * {@link FilterPositions} through JNA against an independent Java oracle: the JDK's AES for the
 * hash and FF1 written here from SP 800-38G Rev. 1, Algorithm 7, step by step with BigInteger
 * (itself pinned to NIST's FF1 samples 1-3). Plus the known-answer vector the C++ test
 * (positions_test.cc, KnownAnswerSharedWithJava) checks, and the argument checks.
 */
class FilterPositionsJnaTest {

  // --- the oracle -----------------------------------------------------------------------------

  private static byte[] aes(byte[] key, byte[] block) {
    try {
      Cipher c = Cipher.getInstance("AES/ECB/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"));
      return c.doFinal(block);
    } catch (java.security.GeneralSecurityException e) {
      throw new AssertionError(e);
    }
  }

  private static BigInteger num(int[] x, int radix) {
    BigInteger r = BigInteger.ZERO;
    for (int d : x) {
      r = r.multiply(BigInteger.valueOf(radix)).add(BigInteger.valueOf(d));
    }
    return r;
  }

  private static int[] str(BigInteger x, int radix, int m) {
    int[] out = new int[m];
    BigInteger r = BigInteger.valueOf(radix);
    for (int i = m - 1; i >= 0; i--) {
      BigInteger[] qr = x.divideAndRemainder(r);
      out[i] = qr[1].intValueExact();
      x = qr[0];
    }
    return out;
  }

  /** [x]^len: x as len big-endian bytes. */
  private static byte[] bytes(BigInteger x, int len) {
    byte[] out = new byte[len];
    for (int i = len - 1; i >= 0; i--) {
      out[i] = x.byteValue();
      x = x.shiftRight(8);
    }
    return out;
  }

  /** FF1.Encrypt(K, T, X), SP 800-38G Rev. 1 Algorithm 7, with AES-128. */
  static int[] ff1Encrypt(byte[] key, int radix, byte[] tweak, int[] x) {
    int n = x.length;
    int t = tweak.length;
    int u = n / 2; // 1.
    int v = n - u;
    int[] a = Arrays.copyOfRange(x, 0, u); // 2.
    int[] b = Arrays.copyOfRange(x, u, n);
    // 3. b = ceil(ceil(v * LOG(radix)) / 8); ceil(v * log2(radix)) = bit length of radix^v - 1
    int e = BigInteger.valueOf(radix).pow(v).subtract(BigInteger.ONE).bitLength();
    int bLen = (e + 7) / 8;
    int d = 4 * ((bLen + 3) / 4) + 4; // 4.
    byte[] p = { // 5.
      1,
      2,
      1,
      (byte) (radix >> 16),
      (byte) (radix >> 8),
      (byte) radix,
      10,
      (byte) (u % 256),
      (byte) (n >> 24),
      (byte) (n >> 16),
      (byte) (n >> 8),
      (byte) n,
      (byte) (t >> 24),
      (byte) (t >> 16),
      (byte) (t >> 8),
      (byte) t
    };
    for (int i = 0; i < 10; i++) { // 6.
      ByteArrayOutputStream q = new ByteArrayOutputStream(); // i.
      q.writeBytes(tweak);
      q.writeBytes(new byte[Math.floorMod(-t - bLen - 1, 16)]);
      q.write(i);
      q.writeBytes(bytes(num(b, radix), bLen));
      byte[] pq = new byte[16 + q.size()];
      System.arraycopy(p, 0, pq, 0, 16);
      System.arraycopy(q.toByteArray(), 0, pq, 16, q.size());
      byte[] r = new byte[16]; // ii. R = PRF(P || Q): CBC-MAC, zero IV
      for (int off = 0; off < pq.length; off += 16) {
        byte[] in = new byte[16];
        for (int j = 0; j < 16; j++) {
          in[j] = (byte) (r[j] ^ pq[off + j]);
        }
        r = aes(key, in);
      }
      ByteArrayOutputStream s = new ByteArrayOutputStream(); // iii.
      s.writeBytes(r);
      for (int j = 1; j < (d + 15) / 16; j++) {
        s.writeBytes(aes(key, bytes(new BigInteger(1, r).xor(BigInteger.valueOf(j)), 16)));
      }
      BigInteger y = new BigInteger(1, Arrays.copyOf(s.toByteArray(), d)); // iv.
      int m = i % 2 == 0 ? u : v; // v.
      BigInteger c = num(a, radix).add(y).mod(BigInteger.valueOf(radix).pow(m)); // vi.
      int[] cStr = str(c, radix, m); // vii.
      a = b; // viii.
      b = cStr; // ix.
    }
    int[] out = Arrays.copyOf(a, n); // 7.
    System.arraycopy(b, 0, out, u, v);
    return out;
  }

  /** The positions of one token as docs/protocols.md defines them. */
  static long[] oraclePositions(byte[] key, int bits, int hashes, byte[] token) {
    byte[] k1 = Arrays.copyOfRange(key, 0, 16);
    byte[] k2 = Arrays.copyOfRange(key, 16, 32);
    int blocks = (hashes * bits + 127) / 128;
    // H = H_0 || H_1 || ... as a little-endian integer, H_i = AES_{AES_K2(i)}(t)
    byte[] h = new byte[16 * blocks];
    for (int i = 0; i < blocks; i++) {
      byte[] subkey = aes(k2, bytes(BigInteger.valueOf(i), 16));
      System.arraycopy(aes(subkey, token), 0, h, 16 * i, 16);
    }
    byte[] bigEndian = h.clone();
    for (int i = 0; i < h.length; i++) {
      bigEndian[i] = h[h.length - 1 - i];
    }
    BigInteger hInt = new BigInteger(1, bigEndian);
    long[] out = new long[hashes];
    for (int j = 0; j < hashes; j++) {
      BigInteger hj = hInt.shiftRight(j * bits).mod(BigInteger.TWO.pow(bits));
      int[] c = ff1Encrypt(k1, 2, new byte[0], str(hj, 2, bits));
      out[j] = num(c, 2).longValueExact();
    }
    return out;
  }

  private static int[] digits(String s) {
    return s.chars().map(ch -> Character.digit(ch, 36)).toArray();
  }

  private static byte[] hex(String s) {
    return HexFormat.of().parseHex(s);
  }

  @Test
  void theOracleFf1ReproducesNistSamples() {
    byte[] key = hex("2B7E151628AED2A6ABF7158809CF4F3C");
    assertEquals(16, key.length);
    assertArrayEquals(digits("2433477484"), ff1Encrypt(key, 10, new byte[0], digits("0123456789")));
    assertArrayEquals(
        digits("6124200773"),
        ff1Encrypt(key, 10, hex("39383736353433323130"), digits("0123456789")));
    assertArrayEquals(
        digits("a9tv40mll9kdu509eum"),
        ff1Encrypt(key, 36, hex("3737373770717273373737"), digits("0123456789abcdefghi")));
  }

  // --- the native side ------------------------------------------------------------------------

  /** Key bytes 0..31; token i's byte b is 17*i + b (mod 256): as in positions_test.cc. */
  private static byte[] katKey() {
    byte[] k = new byte[32];
    for (int i = 0; i < 32; i++) {
      k[i] = (byte) i;
    }
    return k;
  }

  private static byte[] katTokens(int n) {
    byte[] t = new byte[16 * n];
    for (int i = 0; i < n; i++) {
      for (int b = 0; b < 16; b++) {
        t[16 * i + b] = (byte) (17 * i + b);
      }
    }
    return t;
  }

  private static long[] positions(byte[] key, int bits, int hashes, byte[] tokens, int count) {
    long[] out = new long[count * hashes];
    try (FilterPositions fp = FilterPositions.create(key, bits, hashes)) {
      assertEquals(bits, fp.filterBits());
      assertEquals(hashes, fp.hashes());
      fp.positions(tokens, count, 16, out);
    }
    return out;
  }

  @Test
  void knownAnswersEqualTheOracle() {
    long[] l20k3 = {
      457638, 554785, 674711, 269311, 8350, 247097, 617160, 523977, 803678, 1001976, 650843, 146641
    };
    long[] l36k5 = {
      31875587839L, 31048157171L, 28319323529L, 41250104071L, 50870088641L, 6502607093L,
      33126081934L, 60246827752L, 32676134593L, 64233091411L, 28706240930L, 27363938380L,
      21045900100L, 39773666066L, 34812275747L, 33800305936L, 63761163982L, 26513349521L,
      41454961247L, 3248159735L
    };
    byte[] key = katKey();
    byte[] tokens = katTokens(4);
    assertArrayEquals(l20k3, positions(key, 20, 3, tokens, 4));
    assertArrayEquals(l36k5, positions(key, 36, 5, tokens, 4));
    for (int i = 0; i < 4; i++) {
      byte[] token = Arrays.copyOfRange(tokens, 16 * i, 16 * i + 16);
      assertArrayEquals(
          Arrays.copyOfRange(l20k3, 3 * i, 3 * i + 3), oraclePositions(key, 20, 3, token));
      assertArrayEquals(
          Arrays.copyOfRange(l36k5, 5 * i, 5 * i + 5), oraclePositions(key, 36, 5, token));
    }
  }

  @Test
  void randomKeysAndTokensEqualTheOracle() {
    Random rnd = new Random(14);
    int[][] shapes = {{16, 3}, {28, 3}, {21, 7}, {36, 16}, {33, 1}};
    for (int[] s : shapes) {
      byte[] key = new byte[32];
      rnd.nextBytes(key);
      int count = 70; // more than one native chunk of 64 tokens
      byte[] tokens = new byte[16 * count];
      rnd.nextBytes(tokens);
      long[] got = positions(key, s[0], s[1], tokens, count);
      for (int i = 0; i < count; i += 23) {
        byte[] token = Arrays.copyOfRange(tokens, 16 * i, 16 * i + 16);
        assertArrayEquals(
            oraclePositions(key, s[0], s[1], token),
            Arrays.copyOfRange(got, s[1] * i, s[1] * i + s[1]),
            "L=" + s[0] + " k=" + s[1] + " token " + i);
      }
      for (long p : got) {
        assertTrue(p >= 0 && p < (1L << s[0]), "position " + p);
      }
    }
  }

  @Test
  void longerArraysAreAllowedAndOnlyThePrefixIsWritten() {
    byte[] tokens = Arrays.copyOf(katTokens(4), 16 * 4 + 5);
    long[] out = new long[3 * 4 + 2];
    Arrays.fill(out, -1);
    try (FilterPositions fp = FilterPositions.create(katKey(), 20, 3)) {
      fp.positions(tokens, 2, 16, out);
      fp.positions(tokens, 0, 16, new long[0]);
    }
    assertArrayEquals(
        Arrays.copyOf(positions(katKey(), 20, 3, katTokens(2), 2), 6), Arrays.copyOf(out, 6));
    for (int i = 6; i < out.length; i++) {
      assertEquals(-1, out[i], "out[" + i + "] written");
    }
  }

  @Test
  void badArgumentsAreRejectedNamingTheCause() {
    byte[] key = katKey();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> FilterPositions.create(new byte[31], 20, 3));
    assertTrue(e.getMessage().contains("32 bytes"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> FilterPositions.create(key, 15, 3));
    assertTrue(e.getMessage().contains("filter bits 15"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> FilterPositions.create(key, 37, 3));
    e = assertThrows(IllegalArgumentException.class, () -> FilterPositions.create(key, 20, 0));
    assertTrue(e.getMessage().contains("hashes 0"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> FilterPositions.create(key, 20, 17));
    assertThrows(NullPointerException.class, () -> FilterPositions.create(null, 20, 3));

    FilterPositions fp = FilterPositions.create(key, 20, 3);
    byte[] tokens = katTokens(4);
    e =
        assertThrows(
            IllegalArgumentException.class, () -> fp.positions(tokens, 5, 16, new long[15]));
    assertTrue(e.getMessage().contains("need 80 bytes, tokens has 64"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> fp.positions(tokens, 4, 16, new long[11]));
    assertTrue(e.getMessage().contains("need 12 positions, out has 11"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> fp.positions(tokens, -1, 16, new long[3]));
    // a token length the native side does not take: its status and message
    PsiException pe =
        assertThrows(PsiException.class, () -> fp.positions(tokens, 2, 32, new long[6]));
    assertEquals(PsiStatus.ARGUMENT, pe.status());
    assertTrue(pe.getMessage().contains("token_len must be 16, got 32"), pe.getMessage());
    // still usable after an argument error
    long[] out = new long[12];
    fp.positions(tokens, 4, 16, out);
    assertEquals(457638L, out[0]);

    fp.close();
    fp.close(); // idempotent
    assertTrue(fp.isClosed());
    assertThrows(IllegalStateException.class, () -> fp.positions(tokens, 4, 16, out));
  }
}
