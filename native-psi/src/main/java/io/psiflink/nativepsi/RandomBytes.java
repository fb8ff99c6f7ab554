package io.psiflink.nativepsi;

/**
 * Fresh random bytes from the operating system through the native library ({@code
 * psi_random_bytes}: libsodium over getrandom(2)). The JDK's default SecureRandom on Linux
 * (NativePRNG) mixes every byte it reads with a SHA1PRNG that runs in Java, slow until C2 compiles
 * it: the dummies padding one bin of a 10^6-row join cost each party about 25 ms of CPU there.
 */
public final class RandomBytes {
  private RandomBytes() {}

  /** Fills {@code out} with fresh random bytes. */
  public static void fill(byte[] out) {
    int st = PsiNative.psi_random_bytes(out, out.length);
    if (st != PsiStatus.OK.code()) {
      throw new PsiException(PsiStatus.fromCode(st), "psi_random_bytes failed");
    }
  }
}
