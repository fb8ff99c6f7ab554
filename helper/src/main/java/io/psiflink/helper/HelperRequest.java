package io.psiflink.helper;

import io.psiflink.api.Role;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;

/**
 * One party's side of a helper session.
 *
 * @param session the A-B session id (both parties name the same one; 1 to 200 printable ASCII
 *     characters without spaces, as the bridge requires)
 * @param role {@link Role#A} or {@link Role#B}
 * @param peerParty the other party's name (CN of its certificate)
 * @param helperParty the helper's name (CN of its certificate)
 * @param helperCertSha256 the SHA-256 (64 hex digits) of the helper's certificate, or null to
 *     accept any certificate of {@code helperParty} that chains to this party's CA
 * @param filterBits L: the filter has 2^L bits; {@value HelperClient#MIN_FILTER_BITS} to {@value
 *     HelperClient#MAX_FILTER_BITS}
 * @param timeout how long this party waits for the helper to make progress: its HELLO (which comes
 *     once the other party has arrived too), its seed, each chunk of m_σ (A), and the end of the
 *     session (B waits for it while A receives m_σ: 2^L bits)
 */
public record HelperRequest(
    String session,
    Role role,
    String peerParty,
    String helperParty,
    String helperCertSha256,
    int filterBits,
    Duration timeout) {
  public HelperRequest {
    Objects.requireNonNull(session, "session");
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(peerParty, "peerParty");
    Objects.requireNonNull(helperParty, "helperParty");
    Objects.requireNonNull(timeout, "timeout");
    if (!session.matches("[\\x21-\\x7e]{1,200}")) {
      throw new IllegalArgumentException(
          "session must be 1 to 200 printable ASCII characters without spaces");
    }
    if (!role.equals(Role.A) && !role.equals(Role.B)) {
      throw new IllegalArgumentException("the helper serves parties A and B, not " + role.label());
    }
    if (peerParty.isEmpty() || helperParty.isEmpty() || peerParty.equals(helperParty)) {
      throw new IllegalArgumentException(
          "peer '" + peerParty + "' and helper '" + helperParty + "' must be two named parties");
    }
    if (helperCertSha256 != null) {
      if (!helperCertSha256.matches("[0-9a-fA-F]{64}")) {
        throw new IllegalArgumentException(
            "helperCertSha256 must be 64 hex digits, not '" + helperCertSha256 + "'");
      }
      helperCertSha256 = helperCertSha256.toLowerCase(java.util.Locale.ROOT);
    }
    if (filterBits < HelperClient.MIN_FILTER_BITS || filterBits > HelperClient.MAX_FILTER_BITS) {
      throw new IllegalArgumentException(
          "filterBits must be "
              + HelperClient.MIN_FILTER_BITS
              + ".."
              + HelperClient.MAX_FILTER_BITS
              + ", got "
              + filterBits);
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, got " + timeout);
    }
  }

  /** The pin as bytes, or null. */
  byte[] helperCertPin() {
    return helperCertSha256 == null ? null : HexFormat.of().parseHex(helperCertSha256);
  }
}
