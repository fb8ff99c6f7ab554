package io.psiflink.bridge;

import java.security.GeneralSecurityException;
import java.security.InvalidAlgorithmParameterException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.PKIXReason;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Certificate helpers shared by credentials loading, peer checks and the relay's authentication.
 */
final class Certificates {
  private Certificates() {}

  /**
   * The subject's common name (CN): the first in the name's encoded order, or null if it has none
   * or the name is not valid DER. Read here, not with BouncyCastle: its jar is signed, so its
   * classes are verified as they load and cannot be in a class-data sharing archive (about 0.25 s
   * of every party's start); and not through the JDK's RFC 2253 form, which prints a BMPString's
   * bytes one by one.
   */
  static String commonName(X509Certificate cert) {
    try {
      return commonName(cert.getSubjectX500Principal().getEncoded());
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** The first CN of a DER-encoded X.500 Name, or null; IllegalArgumentException if not DER. */
  static String commonName(byte[] name) {
    DerReader rdns = DerReader.of(name).enter(0x30); // Name ::= SEQUENCE OF RDN
    while (rdns.more()) {
      DerReader rdn = rdns.enter(0x31); // SET OF AttributeTypeAndValue
      while (rdn.more()) {
        DerReader ava = rdn.enter(0x30);
        DerReader type = ava.enter(0x06);
        int tag = ava.peekTag();
        DerReader value = ava.enter(tag);
        if (type.is(CN_OID)) {
          return value.string(tag);
        }
      }
    }
    return null;
  }

  /** The content octets of the OID 2.5.4.3 (id-at-commonName). */
  private static final byte[] CN_OID = {0x55, 0x04, 0x03};

  /**
   * Checks, with PKIX and without revocation, that {@code cert} chains to one of {@code trustedCas}
   * and is valid at {@code now}.
   */
  static void verifyChain(X509Certificate cert, List<X509Certificate> trustedCas, Date now)
      throws BridgeException {
    String who = describe(cert);
    try {
      Set<TrustAnchor> anchors = new HashSet<>();
      for (X509Certificate ca : trustedCas) {
        anchors.add(new TrustAnchor(ca, null));
      }
      CertPath path = CertificateFactory.getInstance("X.509").generateCertPath(List.of(cert));
      PKIXParameters params = new PKIXParameters(anchors);
      params.setRevocationEnabled(false);
      params.setDate(now);
      CertPathValidator.getInstance("PKIX").validate(path, params);
    } catch (CertPathValidatorException e) {
      String why;
      if (e.getReason() == CertPathValidatorException.BasicReason.EXPIRED) {
        why = "it expired on " + cert.getNotAfter().toInstant();
      } else if (e.getReason() == CertPathValidatorException.BasicReason.NOT_YET_VALID) {
        why = "it is not valid before " + cert.getNotBefore().toInstant();
      } else if (e.getReason() == PKIXReason.NO_TRUST_ANCHOR
          || e.getReason() == CertPathValidatorException.BasicReason.INVALID_SIGNATURE) {
        why = "it is not signed by a trusted CA (" + e.getMessage() + ")";
      } else {
        why = e.getMessage();
      }
      throw new BridgeException("certificate " + who + " is not acceptable: " + why, e);
    } catch (InvalidAlgorithmParameterException e) {
      throw new BridgeException(
          "cannot check certificate " + who + ": no usable trusted CA certificate", e);
    } catch (GeneralSecurityException e) {
      throw new BridgeException("cannot check certificate " + who + ": " + e.getMessage(), e);
    }
  }

  /**
   * True if {@code key} is the private half of {@code publicKey} (checked by signing a random
   * challenge).
   */
  static boolean keysMatch(PrivateKey key, PublicKey publicKey) {
    if (!key.getAlgorithm().equals(publicKey.getAlgorithm())) {
      return false;
    }
    try {
      String algorithm = HelloCrypto.signatureAlgorithm(key);
      byte[] challenge = new byte[32];
      new SecureRandom().nextBytes(challenge);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(challenge);
      byte[] sig = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(publicKey);
      verifier.update(challenge);
      return verifier.verify(sig);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  static String describe(X509Certificate cert) {
    String cn = commonName(cert);
    return cn != null ? "'" + cn + "'" : "'" + cert.getSubjectX500Principal().getName() + "'";
  }
}
