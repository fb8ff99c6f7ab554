package io.psiflink.bridge;

/**
 * Which certificate a known session names for each of its parties, so that the relay admits a
 * party's stream of that session only with that very certificate (the session's pin), on top of the
 * party's CA tie ({@link PartyTrust}). The coordinator that runs the relay answers from its
 * sessions.
 */
@FunctionalInterface
public interface SessionPins {
  /** {@link #pin}'s answer for a name that is no party of a known session: the relay refuses it. */
  String NOT_IN_SESSION = "not-in-session";

  /**
   * The SHA-256 (64 lower-case hex digits) of the certificate {@code session} names for {@code
   * party}; {@link #NOT_IN_SESSION} if the session is known here and {@code party} is none of its
   * parties (nor its helper or provider); null if this session is not known here (then only the CA
   * tie applies).
   */
  String pin(String session, String party);
}
