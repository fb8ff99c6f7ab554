package io.psiflink.nativepsi;

import java.util.Objects;

/**
 * A native call returned a status other than {@link PsiStatus#OK}. The message reads {@code
 * "PSI_ERR_PEER_MESSAGE: kkrt online round 1: expected 8388608 bytes, got 12"}: the status name,
 * then the native library's explanation.
 *
 * <p>After any status other than {@link PsiStatus#ARGUMENT} the native session is failed; close it
 * and start a new attempt (with a new {@code instance}).
 */
public final class PsiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final PsiStatus status;
  private final String nativeMessage;

  /**
   * @param status the failing status (not {@link PsiStatus#OK})
   * @param nativeMessage the library's explanation, possibly empty
   */
  public PsiException(PsiStatus status, String nativeMessage) {
    super(format(status, nativeMessage));
    this.status = Objects.requireNonNull(status, "status");
    this.nativeMessage = nativeMessage == null ? "" : nativeMessage;
  }

  private static String format(PsiStatus status, String nativeMessage) {
    String name = status == null ? "null" : status.nativeName();
    return nativeMessage == null || nativeMessage.isEmpty() ? name : name + ": " + nativeMessage;
  }

  /** The status the native call returned. */
  public PsiStatus status() {
    return status;
  }

  /** The native library's explanation ({@code psi_session_error}), possibly empty. */
  public String nativeMessage() {
    return nativeMessage;
  }
}
