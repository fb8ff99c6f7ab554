package io.psiflink.nativepsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** The native AEAD against the JDK's ChaCha20-Poly1305 as an independent oracle. */
class AeadTest {
  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static byte[] jdkSeal(byte[] key, byte[] nonce, byte[] plain) throws Exception {
    Cipher c = Cipher.getInstance("ChaCha20-Poly1305");
    c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "ChaCha20"), new IvParameterSpec(nonce));
    return c.doFinal(plain);
  }

  @Test
  void sealsLikeTheJdkAndOpensWhatItSealed() throws Exception {
    byte[] key = random(32, 1);
    try (Aead aead = new Aead(key)) {
      for (int len : new int[] {0, 1, 17, 4096, 300_000, 10}) { // shrinking again reuses buffers
        byte[] nonce = random(12, len);
        byte[] plain = random(len + 5, len + 7);
        byte[] sealed = aead.seal(nonce, plain, 5, len);
        byte[] slice = java.util.Arrays.copyOfRange(plain, 5, 5 + len);
        assertArrayEquals(jdkSeal(key, nonce, slice), sealed, "len " + len);
        byte[] framed = new byte[sealed.length + 1];
        System.arraycopy(sealed, 0, framed, 1, sealed.length);
        assertArrayEquals(slice, aead.open(nonce, framed, 1, sealed.length));
      }
    }
  }

  @Test
  void alteredTruncatedOrReorderedMessagesFail() {
    try (Aead aead = new Aead(random(32, 2))) {
      byte[] nonce = random(12, 3);
      byte[] sealed = aead.seal(nonce, random(64, 4), 0, 64);
      byte[] altered = sealed.clone();
      altered[10] ^= 1;
      PsiException e =
          assertThrows(PsiException.class, () -> aead.open(nonce, altered, 0, altered.length));
      assertEquals(PsiStatus.PEER_MESSAGE, e.status());
      assertEquals(
          PsiStatus.PEER_MESSAGE,
          assertThrows(PsiException.class, () -> aead.open(nonce, sealed, 0, 15)).status());
      assertEquals(
          PsiStatus.PEER_MESSAGE,
          assertThrows(PsiException.class, () -> aead.open(random(12, 5), sealed, 0, sealed.length))
              .status());
    }
    try (Aead other = new Aead(random(32, 6));
        Aead sealer = new Aead(random(32, 2))) {
      byte[] nonce = random(12, 3);
      byte[] sealed = sealer.seal(nonce, new byte[8], 0, 8);
      assertEquals(
          PsiStatus.PEER_MESSAGE,
          assertThrows(PsiException.class, () -> other.open(nonce, sealed, 0, sealed.length))
              .status());
    }
  }

  @Test
  void badArgumentsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new Aead(new byte[16]));
    try (Aead aead = new Aead(random(32, 7))) {
      assertEquals(
          PsiStatus.ARGUMENT,
          assertThrows(PsiException.class, () -> aead.seal(new byte[8], new byte[4], 0, 4))
              .status());
      assertThrows(
          IndexOutOfBoundsException.class, () -> aead.seal(new byte[12], new byte[4], 2, 4));
    }
  }
}
