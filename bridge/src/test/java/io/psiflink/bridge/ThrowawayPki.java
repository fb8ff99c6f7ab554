package io.psiflink.bridge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throwaway CA and party certificates (ECDSA P-256) for local runs and tests. Never use these for
 * real data exchanges: the CA key only lives in memory and is discarded.
 *
 * <p>Writes {@code dir/ca.pem}, and per name {@code dir/<name>.pem} (leaf then CA) and {@code
 * dir/<name>.key} (PKCS#8, mode 600). Certificates have CN=name, SAN DNS localhost and IP
 * 127.0.0.1, are valid from one hour ago for seven days, and allow TLS server and client auth.
 */
public final class ThrowawayPki {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  private static final Duration BACKDATE =
      Duration.ofHours(1); // tolerate clock skew between machines
  private static final Duration VALIDITY = Duration.ofDays(7);

  private final Path caCertificate;
  private final Map<String, PartyCredentials> parties;

  private ThrowawayPki(Path caCertificate, Map<String, PartyCredentials> parties) {
    this.caCertificate = caCertificate;
    this.parties = parties;
  }

  /**
   * Creates the CA and one certificate per name in {@code dir} (created if missing).
   *
   * @throws IllegalArgumentException if a name is not a plain file name ([A-Za-z0-9._-], up to 64
   *     characters)
   * @throws UncheckedIOException if the files cannot be written
   */
  public static ThrowawayPki create(Path dir, String... names) {
    for (String name : names) {
      if (name == null || !NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            "party name '" + name + "' must match " + NAME.pattern());
      }
    }
    try {
      Files.createDirectories(dir);
      SecureRandom random = new SecureRandom();
      Instant now = Instant.now();
      Date notBefore = Date.from(now.minus(BACKDATE));
      Date notAfter = Date.from(now.plus(VALIDITY));
      JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();

      KeyPair caKeys = newKeyPair(random);
      // A distinct CA name per PKI, so that errors about a foreign CA are not mistaken for a bad
      // signature.
      X500Name caName =
          cn("psi-flink throwaway CA " + Long.toHexString(random.nextLong() & 0xffffffffL));
      X509v3CertificateBuilder ca =
          new JcaX509v3CertificateBuilder(
              caName, serial(random), notBefore, notAfter, caName, caKeys.getPublic());
      ca.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
      ca.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      ca.addExtension(
          Extension.subjectKeyIdentifier,
          false,
          extensions.createSubjectKeyIdentifier(caKeys.getPublic()));
      X509Certificate caCert = sign(ca, caKeys);
      Path caPath = dir.resolve("ca.pem");
      PemFiles.writeCertificates(caPath, List.of(caCert));

      Map<String, PartyCredentials> parties = new LinkedHashMap<>();
      for (String name : names) {
        KeyPair keys = newKeyPair(random);
        X509v3CertificateBuilder leaf =
            new JcaX509v3CertificateBuilder(
                caCert, serial(random), notBefore, notAfter, cn(name), keys.getPublic());
        addLeafExtensions(leaf, keys.getPublic(), caCert, extensions);
        X509Certificate cert = sign(leaf, caKeys);
        Path certPath = dir.resolve(name + ".pem");
        Path keyPath = dir.resolve(name + ".key");
        PemFiles.writeCertificates(certPath, List.of(cert, caCert));
        PemFiles.writePrivateKey(keyPath, keys.getPrivate());
        parties.put(name, PartyCredentials.load(certPath, keyPath, caPath));
      }
      return new ThrowawayPki(caPath, Map.copyOf(parties));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot write throwaway PKI to " + dir + ": " + e.getMessage(), e);
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot generate throwaway PKI: " + e.getMessage(), e);
    }
  }

  /** The credentials of a party created by {@link #create}, trusting this CA. */
  public PartyCredentials credentials(String name) {
    PartyCredentials c = parties.get(name);
    if (c == null) {
      throw new IllegalArgumentException(
          "no certificate for '" + name + "' in this PKI; it has " + parties.keySet());
    }
    return c;
  }

  /** The CA certificate (PEM) that signed every certificate of this PKI. */
  public Path caCertificate() {
    return caCertificate;
  }

  private static void addLeafExtensions(
      X509v3CertificateBuilder leaf,
      PublicKey key,
      X509Certificate caCert,
      JcaX509ExtensionUtils extensions)
      throws CertIOException, GeneralSecurityException {
    leaf.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
    leaf.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
    leaf.addExtension(
        Extension.extendedKeyUsage,
        false,
        new ExtendedKeyUsage(
            new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
    try {
      leaf.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(
              new GeneralName[] {
                new GeneralName(GeneralName.dNSName, "localhost"),
                new GeneralName(
                    GeneralName.iPAddress,
                    new DEROctetString(InetAddress.getByName("127.0.0.1").getAddress()))
              }));
    } catch (IOException e) {
      throw new CertIOException("cannot encode subject alternative names", e);
    }
    leaf.addExtension(
        Extension.subjectKeyIdentifier, false, extensions.createSubjectKeyIdentifier(key));
    leaf.addExtension(
        Extension.authorityKeyIdentifier, false, extensions.createAuthorityKeyIdentifier(caCert));
  }

  private static KeyPair newKeyPair(SecureRandom random) throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"), random);
    return generator.generateKeyPair();
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair issuer)
      throws OperatorCreationException, GeneralSecurityException {
    return new JcaX509CertificateConverter()
        .getCertificate(
            builder.build(
                new JcaContentSignerBuilder("SHA256withECDSA").build(issuer.getPrivate())));
  }

  private static X500Name cn(String name) {
    return new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, name).build();
  }

  private static BigInteger serial(SecureRandom random) {
    return new BigInteger(127, random)
        .add(BigInteger.ONE); // positive, unique with overwhelming probability
  }
}
