package io.psiflink.bridge;

import io.grpc.Status;
import javax.net.ssl.SSLException;

/**
 * Why a client stream ended badly, kept so that every later call can throw a fresh exception of the
 * right type with a readable message (never a raw gRPC status dump).
 */
record Failure(Kind kind, String message, Throwable cause) {
  enum Kind {
    PEER,
    TIMEOUT,
    /** The relay was not reachable (or shutting down) before pairing: safe to open again. */
    UNREACHABLE,
    OTHER
  }

  BridgeException toException() {
    return switch (kind) {
      case PEER -> new BridgePeerException(message, cause);
      case TIMEOUT -> new BridgeTimeoutException(message, cause);
      case UNREACHABLE -> new BridgeUnreachableException(message, cause);
      case OTHER -> new BridgeException(message, cause);
    };
  }

  static Failure other(String message) {
    return new Failure(Kind.OTHER, message, null);
  }

  /**
   * Translates the status a stream's call ended with. Relay-generated statuses carry a plain
   * description (ABORTED always means the peer's doing); transport failures are explained.
   */
  static Failure fromStatus(Status status, StreamKey key, int attempt, String relay) {
    String desc = status.getDescription() == null ? "" : status.getDescription();
    String where = attempt >= 0 ? key.describe(attempt) : key.describe();
    String at =
        desc.contains(key.describe())
            ? ""
            : " " + where; // relay messages may already name the stream
    Throwable cause = status.getCause();
    return switch (status.getCode()) {
      case ABORTED -> new Failure(Kind.PEER, desc + at, cause);
      case DEADLINE_EXCEEDED -> new Failure(Kind.TIMEOUT, desc + at, cause);
      case PERMISSION_DENIED, UNAUTHENTICATED ->
          new Failure(Kind.OTHER, "relay " + relay + " refused the stream: " + desc + at, cause);
      case INVALID_ARGUMENT ->
          new Failure(
              Kind.OTHER, "relay " + relay + " rejected this party's stream: " + desc + at, cause);
      case CANCELLED ->
          new Failure(Kind.OTHER, (desc.isEmpty() ? "stream cancelled" : desc) + at, cause);
      case FAILED_PRECONDITION ->
          new Failure(
              Kind.OTHER, "relay " + relay + " cannot pair the stream: " + desc + at, cause);
      case RESOURCE_EXHAUSTED ->
          new Failure(Kind.OTHER, "frame larger than allowed: " + desc + at, cause);
      case UNAVAILABLE -> unavailable(desc, at, cause, attempt >= 0, relay);
      default ->
          new Failure(
              Kind.OTHER,
              "stream failed (" + status.getCode() + (desc.isEmpty() ? "" : ": " + desc) + ")" + at,
              cause);
    };
  }

  private static Failure unavailable(
      String desc, String at, Throwable cause, boolean paired, String relay) {
    if (desc.equals(StreamPair.SHUTTING_DOWN)) {
      return new Failure(
          paired ? Kind.OTHER : Kind.UNREACHABLE,
          "relay " + relay + " is shutting down" + at,
          cause);
    }
    Throwable untrusted = find(cause, java.security.cert.CertificateException.class);
    if (untrusted != null) {
      return new Failure(
          Kind.OTHER,
          "TLS connection to relay "
              + relay
              + " failed: this party does not trust the"
              + " relay's certificate ("
              + rootMessage(untrusted)
              + ")"
              + at,
          cause);
    }
    SSLException tls = find(cause, SSLException.class);
    if (tls != null || desc.contains("SSL") || desc.contains("TLS")) {
      String detail = tls != null ? rootMessage(tls) : desc;
      String likely =
          detail.contains("ALERT") || detail.contains("alert")
              ? "the relay refused the TLS handshake, most likely because it does not trust this party's certificate"
              : "check that both certificates are signed by a CA the other side trusts";
      return new Failure(
          Kind.OTHER,
          "TLS connection to relay " + relay + " failed: " + likely + " (" + detail + ")" + at,
          cause);
    }
    String detail = cause != null ? rootMessage(cause) : desc;
    return new Failure(
        paired ? Kind.OTHER : Kind.UNREACHABLE,
        (paired ? "lost connection to relay " : "cannot reach relay ") + relay + ": " + detail + at,
        cause);
  }

  private static <T extends Throwable> T find(Throwable t, Class<T> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
    }
    return null;
  }

  private static String rootMessage(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String m = root.getMessage();
    return m == null || m.isEmpty() ? root.getClass().getSimpleName() : m;
  }
}
