package io.psiflink.provider;

import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgePeerException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.BridgeTimeoutException;
import io.psiflink.bridge.HelloCrypto;
import io.psiflink.bridge.HelloCrypto.Rejected;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.nativepsi.PsiException;
import io.psiflink.nativepsi.PsiPhase;
import io.psiflink.nativepsi.PsiRole;
import io.psiflink.nativepsi.PsiSession;
import java.security.KeyPair;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A party's side of the multiparty join through the outsourcing provider (issue 15; provider.proto
 * has the wire, {@link ProviderService} the provider's side). {@link #connect} runs the session's
 * setup with the provider once; the {@link ProviderLink} it returns runs bins, on any of the
 * party's Flink tasks.
 *
 * <p>Every stream to the provider goes through the relay like the helper's: {@link
 * BridgeClient#open} with the provider as callee. It is end-to-end authenticated and sealed: signed
 * HELLOs (this party's TLS key, the provider's), X25519, HKDF, ChaCha20-Poly1305 per frame under
 * keys bound to the session, bin, attempt and run, so the relay learns only the traffic volume. The
 * provider's certificate must chain to this party's CA, carry the provider's name and, when the
 * request pins it, have that SHA-256.
 */
public final class ProviderClient {
  private static final Logger LOG = LoggerFactory.getLogger(ProviderClient.class);

  /**
   * How long a party waits for a frame from the provider before it gives up. The provider's own
   * timeouts end a run long before in every case but a provider that hangs: it aborts everyone when
   * a party does not arrive within its session timeout, or leaves it waiting longer than its idle
   * timeout; a party meanwhile waits for the slowest party, so it outlasts its own bridge client's
   * idle timeout.
   */
  public static final Duration MAX_PROVIDER_SILENCE = Duration.ofHours(1);

  private ProviderClient() {}

  /**
   * Session start: a signed HELLO to the provider and its signed answer (X25519 key agreement,
   * certificates checked: the provider's name and pinned hash here, the party's at the provider),
   * then the protocol's setup rounds (keys with Schnorr proofs) among all parties through the
   * provider. Blocks until all n parties have arrived (the provider's session timeout) and the
   * provider confirmed that every party completed the setup.
   *
   * @throws BridgeException if the relay cannot give this party a stream to the provider (e.g.
   *     "party 'p' is not connected to the relay")
   * @throws ProviderException if the provider refuses or aborts the session (e.g. a party did not
   *     arrive within its session timeout; the reason names it), sends anything that does not
   *     verify or open, or the native setup fails
   * @throws IllegalArgumentException if {@code me} is not {@code parties[index]}, or the native
   *     protocol refuses the request's parameters
   */
  public static ProviderLink connect(
      BridgeClient client, ProviderRequest request, PartyCredentials me)
      throws BridgeException, ProviderException {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(me, "me");
    if (!request.party().equals(me.partyName())) {
      throw new IllegalArgumentException(
          "parties["
              + request.index()
              + "] is '"
              + request.party()
              + "', these credentials are '"
              + me.partyName()
              + "'");
    }
    String self = ProviderWire.describe(request.index(), request.party());
    String provider = "provider '" + request.provider() + "'";
    // before the provider is called: parameters the native protocol refuses are this party's error
    PsiSession s = create(request.parties().size(), request.index(), request.protocolParams());
    KeyPair dh = HelloCrypto.x25519();
    byte[] hello = ProviderWire.partyHello(request, me, dh.getPublic().getEncoded());
    byte[] linkKey = null;
    try (s) {
      BridgeStream stream =
          client.open(
              request.session(), ProviderWire.setupChannel(request.index()), request.provider());
      try (SealedLink link = new SealedLink(stream, -1, 0, true, MAX_PROVIDER_SILENCE, provider)) {
        link.sendRaw(ProviderWire.sign(me, "party hello", request.session(), hello));
        byte[] answer = link.receiveRaw();
        if (answer == null) {
          throw new Rejected(provider + " ended the stream before its HELLO");
        }
        ProviderWire.ProviderHelloView h;
        try {
          h = ProviderWire.verifyProviderHello(answer, me, request, hello);
        } catch (Rejected e) {
          throw new Rejected("rejected the HELLO of " + provider + ": " + e.getMessage(), e);
        }
        linkKey =
            ProviderWire.linkKey(
                dh.getPrivate(), h.dhPublic(), request.session(), hello, h.helloBytes());
        link.withKey(linkKey).keySetup();
        Rounds.party(s, PsiPhase.SETUP, link, provider);
        byte[] setup = s.exportSetup();
        finish(link, provider);
        LOG.debug("{} set up session {} with {}", self, request.session(), provider);
        ProviderLink result = new ProviderLink(request, linkKey, setup);
        Arrays.fill(setup, (byte) 0);
        return result;
      } catch (Rejected | PsiException | BridgeException e) {
        throw failure(stream, self, provider, "the session's setup", e);
      } finally {
        stream.close();
      }
    } finally {
      if (linkKey != null) {
        Arrays.fill(linkKey, (byte) 0);
      }
    }
  }

  /** A party's native mpsi session for the setup (set_size 1: the setup does not depend on it). */
  private static PsiSession create(int parties, int index, String params) {
    try {
      return PsiSession.create(
          ProviderWire.PROTOCOL,
          PsiRole.PARTY,
          ProviderWire.sessionParams(parties, index, 1, null, params));
    } catch (PsiException e) {
      throw new IllegalArgumentException(
          "protocolParams '" + params + "' are refused by " + ProviderWire.PROTOCOL + ": " + e, e);
    }
  }

  /**
   * The end of a party's run: its DONE, its FINISH, then the provider's DONE (sent once all n
   * parties sent theirs) and the end of the stream.
   */
  static void finish(SealedLink link, String provider) throws BridgeException, Rejected {
    link.send(ProviderWire.done());
    link.raw().finish();
    ProviderWire.expectDone(link.receive(), provider);
    byte[] more = link.receive();
    if (more != null) {
      throw new Rejected(
          provider + " sent " + ProviderWire.describeFrame(more) + " after its DONE");
    }
  }

  /**
   * A failed run: aborts the stream with the reason (so the provider and, through it, the other
   * parties learn it) and returns what the party throws. A relay problem stays a {@link
   * BridgeException}; what the provider did (an abort, a message that does not verify, silence) and
   * what the native session refused become a {@link ProviderException}.
   */
  static ProviderException failure(
      BridgeStream stream, String self, String provider, String during, Exception e)
      throws BridgeException {
    String why;
    if (e instanceof Rejected) {
      why = e.getMessage();
    } else if (e instanceof PsiException p) {
      why = self + ": the native mpsi session failed in " + during + ": " + p.getMessage();
    } else if (e instanceof BridgePeerException) {
      // the relay's words carry the provider's reason: the provider's text, checked and truncated
      why = provider + " aborted " + during + ": " + HelloCrypto.quoted(e.getMessage(), 400);
    } else if (e instanceof BridgeTimeoutException) {
      why = provider + " sent nothing for " + MAX_PROVIDER_SILENCE + " in " + during;
    } else {
      stream.abort(self + " lost its stream to the relay");
      throw (BridgeException) e;
    }
    stream.abort(self + " stopped: " + why);
    return new ProviderException(why, e);
  }
}
