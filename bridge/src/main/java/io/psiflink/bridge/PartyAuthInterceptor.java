package io.psiflink.bridge;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits a call only if the client's TLS certificate CN is an allowed party and, when the relay
 * ties parties to their own CAs ({@link RelayConfig#partyTrust}), the certificate chains to that
 * party's CA or matches its pin; hands the party name to the handler through the gRPC {@link
 * Context}. TLS has already checked that the certificate chains to some trusted CA (client auth is
 * required), which alone would let either organisation's CA issue the other's CN.
 */
final class PartyAuthInterceptor implements ServerInterceptor {
  private static final Logger LOG = LoggerFactory.getLogger(PartyAuthInterceptor.class);

  private final Set<String> allowedParties;
  private final Map<String, PartyTrust> partyTrust;
  private final Context.Key<String> partyKey;
  private final Context.Key<byte[]> certKey;

  PartyAuthInterceptor(
      Set<String> allowedParties,
      Map<String, PartyTrust> partyTrust,
      Context.Key<String> partyKey,
      Context.Key<byte[]> certKey) {
    this.allowedParties = allowedParties;
    this.partyTrust = partyTrust;
    this.partyKey = partyKey;
    this.certKey = certKey;
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    X509Certificate leaf = leaf(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
    String party = leaf == null ? null : Certificates.commonName(leaf);
    if (party == null) {
      call.close(
          Status.UNAUTHENTICATED.withDescription("a TLS client certificate with a CN is required"),
          new Metadata());
      return new ServerCall.Listener<>() {};
    }
    if (!allowedParties.contains(party)) {
      LOG.warn(
          "refused a stream from party '{}' at {}: not in the allowed parties {}",
          party,
          call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR),
          allowedParties);
      call.close(
          Status.PERMISSION_DENIED.withDescription(
              "party '" + party + "' is not allowed on this bridge"),
          new Metadata());
      return new ServerCall.Listener<>() {};
    }
    PartyTrust trust = partyTrust.get(party);
    if (trust != null) {
      try {
        trust.check(leaf);
      } catch (BridgeException e) {
        LOG.warn(
            "refused a stream claiming party '{}' at {}: the certificate is not {}'s: {}",
            party,
            call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR),
            party,
            e.getMessage());
        call.close(
            Status.PERMISSION_DENIED.withDescription(
                "the certificate with CN '"
                    + party
                    + "' was not issued by that party's CA (nor pinned for it)"),
            new Metadata());
        return new ServerCall.Listener<>() {};
      }
    } else if (!partyTrust.isEmpty()) {
      call.close(
          Status.PERMISSION_DENIED.withDescription("party '" + party + "' has no trust configured"),
          new Metadata());
      return new ServerCall.Listener<>() {};
    }
    byte[] sha256;
    try {
      sha256 = PartyTrust.sha256(leaf);
    } catch (BridgeException e) {
      call.close(
          Status.UNAUTHENTICATED.withDescription("unreadable client certificate"), new Metadata());
      return new ServerCall.Listener<>() {};
    }
    return Contexts.interceptCall(
        Context.current().withValue(partyKey, party).withValue(certKey, sha256),
        call,
        headers,
        next);
  }

  private static X509Certificate leaf(SSLSession session) {
    if (session == null) {
      return null;
    }
    try {
      Certificate[] peer = session.getPeerCertificates();
      if (peer.length > 0 && peer[0] instanceof X509Certificate leaf) {
        return leaf;
      }
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
    return null;
  }
}
