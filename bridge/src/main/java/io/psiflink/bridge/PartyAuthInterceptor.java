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
import java.util.Set;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits a call only if the client's TLS certificate CN is an allowed party, and hands the party
 * name to the handler through the gRPC {@link Context}. TLS has already checked that the
 * certificate chains to a trusted CA (client auth is required).
 */
final class PartyAuthInterceptor implements ServerInterceptor {
  private static final Logger LOG = LoggerFactory.getLogger(PartyAuthInterceptor.class);

  private final Set<String> allowedParties;
  private final Context.Key<String> partyKey;

  PartyAuthInterceptor(Set<String> allowedParties, Context.Key<String> partyKey) {
    this.allowedParties = allowedParties;
    this.partyKey = partyKey;
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
      ServerCallHandler<ReqT, RespT> next) {
    String party = peerParty(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
    if (party == null) {
      call.close(Status.UNAUTHENTICATED.withDescription("a TLS client certificate with a CN is required"), new Metadata());
      return new ServerCall.Listener<>() {};
    }
    if (!allowedParties.contains(party)) {
      LOG.warn("refused a stream from party '{}' at {}: not in the allowed parties {}", party,
          call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR), allowedParties);
      call.close(Status.PERMISSION_DENIED.withDescription("party '" + party + "' is not allowed on this bridge"),
          new Metadata());
      return new ServerCall.Listener<>() {};
    }
    return Contexts.interceptCall(Context.current().withValue(partyKey, party), call, headers, next);
  }

  private static String peerParty(SSLSession session) {
    if (session == null) {
      return null;
    }
    try {
      Certificate[] peer = session.getPeerCertificates();
      if (peer.length > 0 && peer[0] instanceof X509Certificate leaf) {
        return Certificates.commonName(leaf);
      }
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
    return null;
  }
}
