package io.psiflink.bridge;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLException;

/**
 * Netty TLS contexts for mutual TLS: each side presents its chain and trusts only the configured
 * CAs.
 */
final class TlsContexts {
  private TlsContexts() {}

  /** The relay's server context; clients must present a certificate signed by a trusted CA. */
  static SslContext forRelay(PartyCredentials server) throws BridgeException {
    try {
      return GrpcSslContexts.configure(
              SslContextBuilder.forServer(server.privateKey(), chain(server)))
          .keyStoreType(PartyCredentials.IN_MEMORY_KEY_STORE)
          .trustManager(server.trustedCas().toArray(X509Certificate[]::new))
          .clientAuth(ClientAuth.REQUIRE)
          .build();
    } catch (SSLException | RuntimeException e) {
      throw new BridgeException(
          "cannot set up TLS for the relay with certificate "
              + server.certChainPem()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * A client context presenting {@code self}; the relay's certificate must match the host name
   * (standard HTTPS rules).
   */
  static SslContext forClient(PartyCredentials self) throws BridgeException {
    try {
      return GrpcSslContexts.forClient()
          .keyManager(self.privateKey(), chain(self))
          .keyStoreType(PartyCredentials.IN_MEMORY_KEY_STORE)
          .trustManager(self.trustedCas().toArray(X509Certificate[]::new))
          .build();
    } catch (SSLException | RuntimeException e) {
      throw new BridgeException(
          "cannot set up TLS for party '"
              + self.partyName()
              + "' with certificate "
              + self.certChainPem()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private static X509Certificate[] chain(PartyCredentials c) {
    return c.chain().toArray(X509Certificate[]::new);
  }
}
