package io.psiflink.jobs.prefilter;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.BridgeTimeoutException;
import io.psiflink.helper.HelperRequest;
import io.psiflink.jobs.psi.BridgeEndpoint;
import java.io.Serializable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the pre-filter's operators reach the peer's job and the helper: the bridge, the session,
 * who is who, and how long to wait for the peer.
 *
 * @param helperCertSha256 the helper's certificate pin (hex), or null to accept any certificate of
 *     {@code helper} from a trusted CA
 * @param attempts pair timeouts to wait for the peer's job to open a stream (as a bin waits out a
 *     slower peer: the peer may still be tokenizing a larger table)
 */
public record PrefilterLink(
    BridgeEndpoint bridge,
    String session,
    Role role,
    String peer,
    String helper,
    String helperCertSha256,
    int attempts)
    implements Serializable {
  private static final Logger LOG = LoggerFactory.getLogger(PrefilterLink.class);

  /** The A-B stream of the chooser's e, from its exchange to the sender's prefetch. */
  static final String CHOICES_CHANNEL = "prefilter-choices";

  /** The A-B stream of the AND's w and c, between the two exchanges. */
  static final String AND_CHANNEL = "prefilter";

  /** This party's request to the helper for a filter of 2^filterBits bits. */
  HelperRequest helperRequest(int filterBits) {
    return new HelperRequest(
        session, role, peer, helper, helperCertSha256, filterBits, bridge.pairTimeout());
  }

  /**
   * The stream on {@code channel} with the peer's job, waiting up to {@code attempts} pair
   * timeouts.
   */
  BridgeStream open(BridgeClient client, String channel) throws BridgeException {
    for (int attempt = 1; ; attempt++) {
      try {
        return client.open(session, channel);
      } catch (BridgeTimeoutException e) {
        if (attempt >= attempts) {
          throw e;
        }
        LOG.info(
            "party {}: the peer's job has not opened the pre-filter's stream '{}' within {}"
                + " (wait {} of {})",
            role.label(),
            channel,
            bridge.pairTimeout(),
            attempt,
            attempts);
      }
    }
  }

  /** A failure of the pre-filter, naming this party, the helper and the cause. */
  PrefilterExchange.PrefilterException failed(Throwable cause) {
    return new PrefilterExchange.PrefilterException(
        "party "
            + role.label()
            + ": the prefilter with helper '"
            + helper
            + "' failed: "
            + cause.getMessage(),
        cause);
  }
}
