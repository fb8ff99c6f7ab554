package io.psiflink.coordinator;

import io.psiflink.bridge.PartyCredentials;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS material from PEM files (the same format as the bridge's: ThrowawayPki, PartyCredentials).
 */
final class Tls {
  private Tls() {}

  /**
   * A server context presenting {@code chain}/{@code key}; trusts {@code ca} for outgoing calls.
   */
  static SSLContext context(Path chain, Path key, Path ca) {
    PartyCredentials creds = PartyCredentials.load(chain, key, ca);
    try {
      char[] pw = new char[0];
      KeyStore ks = KeyStore.getInstance(PartyCredentials.IN_MEMORY_KEY_STORE);
      ks.load(null, null);
      ks.setKeyEntry(
          "coordinator", creds.privateKey(), pw, creds.chain().toArray(new X509Certificate[0]));
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, pw);
      KeyStore ts = KeyStore.getInstance("PKCS12");
      ts.load(null, null);
      int i = 0;
      for (X509Certificate c : creds.trustedCas()) {
        ts.setCertificateEntry("ca" + i++, c);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ts);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
      return ctx;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot set up TLS: " + e.getMessage(), e);
    }
  }

  /** SHA-256 (lower-case hex) of the DER encoding of the first certificate in a PEM file. */
  static String fingerprint(Path pem) {
    try (InputStream in = Files.newInputStream(pem)) {
      List<Certificate> certs =
          new ArrayList<>(CertificateFactory.getInstance("X.509").generateCertificates(in));
      if (certs.isEmpty()) {
        throw new IllegalArgumentException("no certificate in " + pem);
      }
      return HexFormat.of().formatHex(Tokens.sha256(certs.get(0).getEncoded()));
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "cannot read certificate " + pem + ": " + e.getMessage(), e);
    }
  }
}
