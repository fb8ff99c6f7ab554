package io.psiflink.nativepsi;

/** The party a session plays, mirroring {@code psi_role}. */
public enum PsiRole {
  /** Learns the intersection (KKRT: the cuckoo-hashing OPRF receiver). */
  RECEIVER(0),
  /** The other party of a two-party protocol. */
  SENDER(1),
  /** Third party of server-aided and multi-party protocols. */
  HELPER(2);

  private final int code;

  PsiRole(int code) {
    this.code = code;
  }

  /** The numeric value of the C enum. */
  public int code() {
    return code;
  }
}
