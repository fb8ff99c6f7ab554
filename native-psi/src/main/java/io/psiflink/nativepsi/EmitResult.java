package io.psiflink.nativepsi;

/**
 * What one {@link PsiSession#emit} call produced.
 *
 * @param written bytes written into the caller's buffer (may be 0)
 * @param done whether the round's message is complete; no further emit for this round
 */
public record EmitResult(int written, boolean done) {
  /** Validates the byte count. */
  public EmitResult {
    if (written < 0) {
      throw new IllegalArgumentException("written < 0: " + written);
    }
  }
}
