package io.psiflink.nativepsi;

/**
 * The role a session plays in a protocol run, mirroring {@code psi_role}: which roles a protocol
 * has is in its {@link ProtocolInfo#roles()}. Not an organisation's role ({@code
 * io.psiflink.api.Role}): which organisation plays which protocol role is the job's decision (see
 * the flink-jobs class {@code io.psiflink.jobs.psi.ProtocolRoles}).
 */
public enum PsiRole {
  /** Learns the intersection (KKRT: the cuckoo-hashing OPRF receiver). */
  RECEIVER(0),
  /** The other party of a two-party protocol. */
  SENDER(1),
  /** Third party of server-aided protocols. */
  HELPER(2),
  /** Party i of n of a multiparty protocol (parameters {@code parties}, {@code index}). */
  PARTY(3),
  /** The outsourcing provider of a multiparty protocol: holds no set, learns nothing. */
  PROVIDER(4);

  private final int code;

  PsiRole(int code) {
    this.code = code;
  }

  /** The numeric value of the C enum. */
  public int code() {
    return code;
  }

  /**
   * The native library's name of the role: {@code receiver}, {@code sender}, {@code helper}, {@code
   * party}, {@code provider}.
   */
  public String nativeName() {
    return PsiNative.psi_role_name(code);
  }

  /**
   * The role of a {@code psi_role} value.
   *
   * @throws IllegalArgumentException for a value this binding does not know
   */
  public static PsiRole of(int code) {
    for (PsiRole r : values()) {
      if (r.code == code) {
        return r;
      }
    }
    throw new IllegalArgumentException("unknown psi_role " + code);
  }
}
