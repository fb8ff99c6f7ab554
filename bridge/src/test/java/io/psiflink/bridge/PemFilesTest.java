package io.psiflink.bridge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateKey;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.PBEParameterSpec;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.util.io.pem.PemObject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PEM files are read with the JDK where it can (certificates, PKCS#8 keys) and with BouncyCastle
 * otherwise; BouncyCastle's parser is the oracle for what a file holds.
 */
class PemFilesTest {
  @TempDir static Path dir;
  private static ThrowawayPki pki;

  @BeforeAll
  static void createPki() {
    pki = ThrowawayPki.create(dir.resolve("pki"), "party-a", "party-b");
  }

  @Test
  void readsCertificatesInFileOrderSkippingEverythingElse() throws Exception {
    Path a = pki.credentials("party-a").certChainPem();
    Path b = pki.credentials("party-b").certChainPem();
    Path mixed = dir.resolve("mixed.pem");
    Files.writeString(
        mixed,
        "some text before\n"
            + Files.readString(pki.credentials("party-b").privateKeyPem())
            + Files.readString(b).replace("\n", "\r\n")
            + "between\n"
            + "-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n"
            + Files.readString(a),
        StandardCharsets.US_ASCII);
    List<X509Certificate> read = PemFiles.readCertificates(mixed);
    List<X509Certificate> oracle = new ArrayList<>(bouncyCastleCertificates(b));
    oracle.addAll(bouncyCastleCertificates(a));
    assertEquals(4, oracle.size(), "two chains of leaf and CA");
    assertEquals(oracle, read);
  }

  @Test
  void readsPkcs8KeysOfEveryAlgorithmTheHelloSignsWith() throws Exception {
    for (String algorithm : List.of("EC", "RSA", "Ed25519")) {
      KeyPair keys = KeyPairGenerator.getInstance(algorithm).generateKeyPair();
      Path file = dir.resolve(algorithm + ".key");
      PemFiles.writePrivateKey(file, keys.getPrivate());
      PrivateKey read = PemFiles.readPrivateKey(file);
      assertEquals(keys.getPrivate().getAlgorithm(), read.getAlgorithm(), algorithm);
      assertArrayEquals(keys.getPrivate().getEncoded(), read.getEncoded(), algorithm);
    }
  }

  @Test
  void readsTraditionalKeysThroughBouncyCastle() throws Exception {
    for (String algorithm : List.of("EC", "RSA")) {
      KeyPairGenerator generator = KeyPairGenerator.getInstance(algorithm);
      generator.initialize(algorithm.equals("EC") ? 256 : 2048); // EC: secp256r1, as written
      KeyPair keys = generator.generateKeyPair();
      StringWriter pem = new StringWriter();
      try (JcaPEMWriter w = new JcaPEMWriter(pem)) {
        if (algorithm.equals("EC")) {
          // SEC 1 with the curve named and without the optional public key
          w.writeObject(
              new PemObject(
                  "EC PRIVATE KEY",
                  new org.bouncycastle.asn1.sec.ECPrivateKey(
                          256,
                          ((ECPrivateKey) keys.getPrivate()).getS(),
                          SECObjectIdentifiers.secp256r1)
                      .getEncoded()));
        } else {
          w.writeObject(keys); // PKCS#1
        }
      }
      assertTrue(
          pem.toString().startsWith("-----BEGIN " + algorithm + " PRIVATE KEY-----"),
          pem.toString());
      Path file = dir.resolve("traditional-" + algorithm + ".key");
      Files.writeString(file, pem.toString());
      PrivateKey read = PemFiles.readPrivateKey(file);
      if (read instanceof ECPrivateKey ec) {
        assertEquals(((ECPrivateKey) keys.getPrivate()).getS(), ec.getS());
      } else {
        RSAPrivateKey rsa = (RSAPrivateKey) read;
        assertEquals(((RSAPrivateKey) keys.getPrivate()).getModulus(), rsa.getModulus());
        assertEquals(
            ((RSAPrivateKey) keys.getPrivate()).getPrivateExponent(), rsa.getPrivateExponent());
      }
    }
  }

  @Test
  void refusesAnEncryptedKey() throws Exception {
    KeyPair keys = KeyPairGenerator.getInstance("EC").generateKeyPair();
    byte[] salt = new byte[16];
    new SecureRandom().nextBytes(salt);
    String pbe = "PBEWithSHA1AndDESede"; // one the JDK encodes as EncryptedPrivateKeyInfo
    Cipher cipher = Cipher.getInstance(pbe);
    cipher.init(
        Cipher.ENCRYPT_MODE,
        SecretKeyFactory.getInstance(pbe).generateSecret(new PBEKeySpec("secret".toCharArray())),
        new PBEParameterSpec(salt, 1000));
    byte[] der =
        new EncryptedPrivateKeyInfo(
                cipher.getParameters(), cipher.doFinal(keys.getPrivate().getEncoded()))
            .getEncoded();
    String pem =
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
            + Base64.getMimeEncoder().encodeToString(der)
            + "\n-----END ENCRYPTED PRIVATE KEY-----\n";
    Path file = dir.resolve("encrypted.key");
    Files.writeString(file, pem);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PemFiles.readPrivateKey(file));
    assertTrue(e.getMessage().contains("is encrypted"), e.getMessage());
  }

  @Test
  void namesTheFileAndTheFaultOfABrokenPem() throws Exception {
    String cert = Files.readString(pki.caCertificate());
    Path badBase64 = dir.resolve("bad-base64.pem");
    Files.writeString(badBase64, cert.replaceFirst("\n[A-Za-z0-9+/]{8}", "\n!!!!!!!!"));
    UncheckedIOException e =
        assertThrows(UncheckedIOException.class, () -> PemFiles.readCertificates(badBase64));
    assertTrue(
        e.getMessage().contains("bad-base64.pem") && e.getMessage().contains("not valid base64"),
        e.getMessage());

    Path truncated = dir.resolve("truncated.pem");
    Files.writeString(truncated, cert.substring(0, cert.indexOf("-----END")));
    e = assertThrows(UncheckedIOException.class, () -> PemFiles.readCertificates(truncated));
    assertTrue(e.getMessage().contains("has no END line"), e.getMessage());

    Path notACert = dir.resolve("not-a-cert.pem");
    Files.writeString(notACert, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
    IllegalArgumentException i =
        assertThrows(IllegalArgumentException.class, () -> PemFiles.readCertificates(notACert));
    assertTrue(i.getMessage().startsWith("invalid certificate in "), i.getMessage());

    Path der = dir.resolve("ca.der");
    Files.write(der, PemFiles.readCertificates(pki.caCertificate()).get(0).getEncoded());
    e = assertThrows(UncheckedIOException.class, () -> PemFiles.readCertificates(der));
    assertTrue(e.getMessage().contains("ca.der: it is not a PEM file"), e.getMessage());

    Path keyOnly = dir.resolve("key-only.pem");
    Files.copy(pki.credentials("party-a").privateKeyPem(), keyOnly);
    i = assertThrows(IllegalArgumentException.class, () -> PemFiles.readCertificates(keyOnly));
    assertTrue(i.getMessage().contains("no PEM certificate"), i.getMessage());
  }

  private static List<X509Certificate> bouncyCastleCertificates(Path file) throws Exception {
    List<X509Certificate> certs = new ArrayList<>();
    try (Reader r = Files.newBufferedReader(file);
        PEMParser p = new PEMParser(r)) {
      for (Object o = p.readObject(); o != null; o = p.readObject()) {
        if (o instanceof X509CertificateHolder h) {
          certs.add(new JcaX509CertificateConverter().getCertificate(h));
        }
      }
    }
    return certs;
  }
}
