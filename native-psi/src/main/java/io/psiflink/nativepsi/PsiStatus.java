package io.psiflink.nativepsi;

/** Status codes of the native API, mirroring {@code psi_status} in {@code psi_native.h}. */
public enum PsiStatus {
  /** Success. */
  OK(0, "PSI_OK"),
  /** Null pointer, bad length, unknown protocol, role or parameter; the session is still usable. */
  ARGUMENT(1, "PSI_ERR_ARGUMENT"),
  /** Call out of order, or the session already failed. */
  STATE(2, "PSI_ERR_STATE"),
  /** The peer's message is malformed: wrong length, bad encoding. */
  PEER_MESSAGE(3, "PSI_ERR_PEER_MESSAGE"),
  /** This party's input is invalid: wrong count, duplicate element. */
  INPUT(4, "PSI_ERR_INPUT"),
  /** A probabilistic structure overflowed (e.g. the cuckoo stash); a new attempt may succeed. */
  CAPACITY(5, "PSI_ERR_CAPACITY"),
  /** The native side could not allocate memory. */
  NO_MEMORY(6, "PSI_ERR_NO_MEMORY"),
  /** A bug in the native code, reported instead of crashing. */
  INTERNAL(7, "PSI_ERR_INTERNAL");

  private final int code;
  private final String nativeName;

  PsiStatus(int code, String nativeName) {
    this.code = code;
    this.nativeName = nativeName;
  }

  /** The numeric value of the C enum. */
  public int code() {
    return code;
  }

  /** The C name, e.g. {@code PSI_ERR_PEER_MESSAGE}. */
  public String nativeName() {
    return nativeName;
  }

  /**
   * Returns the status for a C code.
   *
   * @throws IllegalArgumentException if the code is not part of the ABI
   */
  public static PsiStatus fromCode(int code) {
    // values() clones the array; a switch keeps this allocation-free.
    switch (code) {
      case 0:
        return OK;
      case 1:
        return ARGUMENT;
      case 2:
        return STATE;
      case 3:
        return PEER_MESSAGE;
      case 4:
        return INPUT;
      case 5:
        return CAPACITY;
      case 6:
        return NO_MEMORY;
      case 7:
        return INTERNAL;
      default:
        throw new IllegalArgumentException("unknown psi_status code " + code);
    }
  }
}
