package io.psiflink.bridge;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
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
import java.util.Arrays;
import java.util.Date;
import java.util.HashSet;
import java.util.HexFormat;
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
    Der rdns = new Der(name, 0, 0, name.length).enter(0x30); // Name ::= SEQUENCE OF RDN
    while (rdns.more()) {
      Der rdn = rdns.enter(0x31); // SET OF AttributeTypeAndValue
      while (rdn.more()) {
        Der ava = rdn.enter(0x30);
        Der type = ava.enter(0x06);
        int tag = ava.peekTag();
        Der value = ava.enter(tag);
        if (type.is(CN_OID)) {
          return value.string(tag);
        }
      }
    }
    return null;
  }

  /** The content octets of the OID 2.5.4.3 (id-at-commonName). */
  private static final byte[] CN_OID = {0x55, 0x04, 0x03};

  /** A cursor over DER content octets: definite lengths only, every length checked. */
  private static final class Der {
    private final byte[] b;
    private final int tagAt; // where this element's tag is (its contents follow the header)
    private final int start;
    private final int end;
    private int pos;

    Der(byte[] b, int tagAt, int start, int end) {
      this.b = b;
      this.tagAt = tagAt;
      this.start = start;
      this.end = end;
      this.pos = start;
    }

    boolean more() {
      return pos < end;
    }

    int peekTag() {
      if (pos >= end) {
        throw new IllegalArgumentException("truncated DER");
      }
      return b[pos] & 0xff;
    }

    /** The contents of the next element, which must have tag {@code tag}. */
    Der enter(int tag) {
      if (peekTag() != tag || (tag & 0x1f) == 0x1f) {
        throw new IllegalArgumentException("unexpected DER tag " + peekTag());
      }
      int tagAt = pos++;
      if (pos >= end) {
        throw new IllegalArgumentException("truncated DER");
      }
      int first = b[pos++] & 0xff;
      long length = first;
      if (first >= 0x80) {
        int n = first & 0x7f;
        if (n == 0 || n > 3 || end - pos < n) {
          throw new IllegalArgumentException("unsupported DER length");
        }
        length = 0;
        for (int i = 0; i < n; i++) {
          length = (length << 8) | (b[pos++] & 0xff);
        }
      }
      if (length > end - pos) {
        throw new IllegalArgumentException("DER length beyond its container");
      }
      Der inner = new Der(b, tagAt, pos, pos + (int) length);
      pos += (int) length;
      return inner;
    }

    boolean is(byte[] content) {
      return Arrays.equals(b, start, end, content, 0, content.length);
    }

    /** A string value by its ASN.1 type; any other type as "#" and its DER in hex. */
    String string(int tag) {
      return switch (tag) {
        case 0x0c -> new String(b, start, end - start, StandardCharsets.UTF_8);
        case 0x12, 0x13, 0x14, 0x16, 0x1a -> // Numeric, Printable, T61, IA5, Visible
            new String(b, start, end - start, StandardCharsets.ISO_8859_1);
        case 0x1e -> new String(b, start, end - start, StandardCharsets.UTF_16BE); // BMPString
        case 0x1c -> new String(b, start, end - start, Charset.forName("UTF-32BE")); // Universal
        default -> "#" + HexFormat.of().formatHex(b, tagAt, end);
      };
    }
  }

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
