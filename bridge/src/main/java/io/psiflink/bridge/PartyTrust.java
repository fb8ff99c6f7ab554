package io.psiflink.bridge;

import java.io.Serializable;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Which certificates may speak for one party: those that chain to the party's own CA(s), or whose
 * SHA-256 is one of its pinned fingerprints. The two organisations' CAs are both trusted by TLS, so
 * a certificate's CN alone proves nothing: either CA can issue any CN.
 *
 * @param cas the CA certificates of this party (may be empty when pins are given)
 * @param sha256Pins SHA-256 fingerprints (64 lower-case hex digits) of certificates of this party
 */
public record PartyTrust(List<X509Certificate> cas, Set<String> sha256Pins)
    implements Serializable {
  public PartyTrust {
    cas = List.copyOf(cas);
    List<String> pins = new ArrayList<>();
    for (String p : sha256Pins) {
      String h = p.toLowerCase(Locale.ROOT);
      if (!h.matches("[0-9a-f]{64}")) {
        throw new IllegalArgumentException(
            "a pinned SHA-256 must be 64 hex digits, not '" + p + "'");
      }
      pins.add(h);
    }
    sha256Pins = Set.copyOf(pins);
    if (cas.isEmpty() && sha256Pins.isEmpty()) {
      throw new IllegalArgumentException("a party's trust needs a CA or a pinned certificate");
    }
  }

  /** The CA(s) in a PEM file, and optional pins. */
  public static PartyTrust load(Path caPem, Collection<String> sha256Pins) {
    return new PartyTrust(
        caPem == null ? List.of() : PemFiles.readCertificates(caPem), Set.copyOf(sha256Pins));
  }

  /** Only the pinned certificates. */
  public static PartyTrust pinned(Collection<String> sha256Pins) {
    return new PartyTrust(List.of(), Set.copyOf(sha256Pins));
  }

  /**
   * Checks that {@code leaf} may speak for this party: its SHA-256 is pinned, or it chains to one
   * of the party's CAs and is valid now.
   *
   * @throws BridgeException naming why not
   */
  public void check(X509Certificate leaf) throws BridgeException {
    if (!sha256Pins.isEmpty()) {
      byte[] actual = sha256(leaf);
      for (String pin : sha256Pins) {
        if (MessageDigest.isEqual(actual, HexFormat.of().parseHex(pin))) {
          return;
        }
      }
    }
    if (cas.isEmpty()) {
      throw new BridgeException(
          "the certificate "
              + HexFormat.of().formatHex(sha256(leaf))
              + " is not pinned for this party");
    }
    Certificates.verifyChain(leaf, cas, new Date());
  }

  /** The SHA-256 of a certificate's DER encoding: what pins and sessions name it by. */
  public static byte[] sha256(X509Certificate cert) throws BridgeException {
    try {
      return MessageDigest.getInstance("SHA-256").digest(cert.getEncoded());
    } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
      throw new BridgeException("cannot hash a certificate: " + e.getMessage(), e);
    }
  }
}
