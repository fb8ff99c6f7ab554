package io.psiflink.nativepsi;

/** The two phases of a protocol, mirroring {@code psi_phase}. */
public enum PsiPhase {
  /** Once per pair of parties; reusable across bins via export/import. */
  SETUP(0),
  /** Once per bin. */
  ONLINE(1);

  private final int code;

  PsiPhase(int code) {
    this.code = code;
  }

  /** The numeric value of the C enum. */
  public int code() {
    return code;
  }
}
