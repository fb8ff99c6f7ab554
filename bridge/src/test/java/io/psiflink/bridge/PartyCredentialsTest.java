package io.psiflink.bridge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.util.Date;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartyCredentialsTest {
  @TempDir static Path dir;
  @TempDir static Path otherDir;
  private static ThrowawayPki pki;
  private static ThrowawayPki other;

  @BeforeAll
  static void createPki() {
    pki = ThrowawayPki.create(dir, "party-a", "party-b");
    other = ThrowawayPki.create(otherDir, "party-a");
  }

  @Test
  void throwawayPkiWritesUsableFiles() throws Exception {
    PartyCredentials a = pki.credentials("party-a");
    assertEquals("party-a", a.partyName());
    assertEquals(dir.resolve("ca.pem"), pki.caCertificate());
    assertEquals(dir.resolve("party-a.pem"), a.certChainPem());
    assertEquals(dir.resolve("party-a.key"), a.privateKeyPem());
    assertEquals(pki.caCertificate(), a.trustedCaPem());
    assertEquals(2, a.chain().size(), "leaf then CA");
    assertEquals(a.certificate(), a.chain().get(0));
    assertEquals(a.trustedCas().get(0), a.chain().get(1));
    assertEquals("EC", a.privateKey().getAlgorithm());
    assertTrue(
        Files.readString(a.privateKeyPem()).startsWith("-----BEGIN PRIVATE KEY-----"),
        "PKCS#8 PEM");
    assertEquals(
        "rw-------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(a.privateKeyPem())));

    X509Certificate cert = a.certificate();
    cert.checkValidity();
    long now = System.currentTimeMillis();
    assertTrue(cert.getNotBefore().getTime() <= now - 3_500_000L, "back-dated about an hour");
    assertTrue(cert.getNotAfter().getTime() >= now + 6 * 86_400_000L, "valid for about a week");
    assertTrue(
        cert.getExtendedKeyUsage().containsAll(List.of("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2")),
        "server and client auth");
    assertEquals(
        List.of(List.of(2, "localhost"), List.of(7, "127.0.0.1")),
        cert.getSubjectAlternativeNames().stream().map(l -> List.copyOf(l)).toList());
    assertEquals(-1, cert.getBasicConstraints(), "not a CA");
    assertArrayEquals(
        new boolean[] {true, false, false, false, false, false, false, false, false},
        cert.getKeyUsage(),
        "digitalSignature only");
    X509Certificate ca = a.chain().get(1);
    assertEquals(0, ca.getBasicConstraints(), "a CA of path length 0");
    assertTrue(ca.getKeyUsage()[5] && ca.getKeyUsage()[6], "keyCertSign and cRLSign");
    cert.verify(ca.getPublicKey());
    assertEquals(ca.getSubjectX500Principal(), cert.getIssuerX500Principal());
    // the leaf's authority key identifier is the CA's subject key identifier (DER around both)
    byte[] ski = ca.getExtensionValue("2.5.29.14");
    byte[] aki = cert.getExtensionValue("2.5.29.35");
    assertArrayEquals(
        java.util.Arrays.copyOfRange(ski, ski.length - 20, ski.length),
        java.util.Arrays.copyOfRange(aki, aki.length - 20, aki.length));
    assertEquals(Set.of("2.5.29.19", "2.5.29.15"), cert.getCriticalExtensionOIDs());
  }

  @Test
  void verifyPeerAcceptsTheRightPartyFromTheTrustedCa() throws Exception {
    PartyCredentials a = pki.credentials("party-a");
    a.verifyPeer(pki.credentials("party-b").certificate(), "party-b");
    a.verifyPeer(a.certificate(), "party-a");
  }

  @Test
  void verifyPeerRejectsTheWrongName() {
    PartyCredentials a = pki.credentials("party-a");
    BridgeException e =
        assertThrows(
            BridgeException.class,
            () -> a.verifyPeer(pki.credentials("party-b").certificate(), "party-c"));
    assertTrue(
        e.getMessage().contains("'party-b'") && e.getMessage().contains("'party-c'"),
        e.getMessage());
  }

  @Test
  void verifyPeerRejectsAnUntrustedCa() {
    PartyCredentials b = pki.credentials("party-b");
    X509Certificate impostor = other.credentials("party-a").certificate(); // right CN, wrong CA
    BridgeException e =
        assertThrows(BridgeException.class, () -> b.verifyPeer(impostor, "party-a"));
    assertTrue(e.getMessage().contains("not signed by a trusted CA"), e.getMessage());
  }

  @Test
  void verifyPeerRejectsAnExpiredCertificate() throws Exception {
    KeyPair keys = KeyPairGenerator.getInstance("EC").generateKeyPair();
    X500Name name = new X500Name("CN=party-old");
    long day = 86_400_000L;
    X509Certificate expired =
        new JcaX509CertificateConverter()
            .getCertificate(
                new JcaX509v3CertificateBuilder(
                        name,
                        BigInteger.TEN,
                        new Date(System.currentTimeMillis() - 10 * day),
                        new Date(System.currentTimeMillis() - day),
                        name,
                        keys.getPublic())
                    .build(
                        new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
    Path certFile = otherDir.resolve("old.pem");
    PemFiles.writeCertificates(certFile, List.of(expired));
    Path keyFile = otherDir.resolve("old.key");
    PemFiles.writePrivateKey(keyFile, keys.getPrivate());
    PartyCredentials self = PartyCredentials.load(certFile, keyFile, certFile);
    BridgeException e =
        assertThrows(BridgeException.class, () -> self.verifyPeer(expired, "party-old"));
    assertTrue(e.getMessage().contains("expired"), e.getMessage());
  }

  @Test
  void loadsRsaKeys() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048);
    KeyPair keys = generator.generateKeyPair();
    X500Name name = new X500Name("CN=party-rsa");
    X509Certificate cert =
        new JcaX509CertificateConverter()
            .getCertificate(
                new JcaX509v3CertificateBuilder(
                        name,
                        BigInteger.TWO,
                        new Date(System.currentTimeMillis() - 60_000),
                        new Date(System.currentTimeMillis() + 86_400_000L),
                        name,
                        keys.getPublic())
                    .build(new JcaContentSignerBuilder("SHA256withRSA").build(keys.getPrivate())));
    Path certFile = otherDir.resolve("rsa.pem");
    Path keyFile = otherDir.resolve("rsa.key");
    PemFiles.writeCertificates(certFile, List.of(cert));
    PemFiles.writePrivateKey(keyFile, keys.getPrivate());
    PartyCredentials rsa = PartyCredentials.load(certFile, keyFile, certFile);
    assertEquals("party-rsa", rsa.partyName());
    assertEquals("RSA", rsa.privateKey().getAlgorithm());
    rsa.verifyPeer(cert, "party-rsa");
  }

  @Test
  void loadRejectsAKeyOfAnotherCertificate() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                PartyCredentials.load(
                    dir.resolve("party-a.pem"), dir.resolve("party-b.key"), pki.caCertificate()));
    assertTrue(
        e.getMessage().contains("does not belong to the certificate of 'party-a'"), e.getMessage());
  }

  @Test
  void loadRejectsFilesWithoutPem() throws Exception {
    Path junk = otherDir.resolve("junk.pem");
    Files.writeString(junk, "not a certificate\n");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> PartyCredentials.load(junk, dir.resolve("party-a.key"), pki.caCertificate()));
    assertTrue(
        e.getMessage().contains("no PEM certificate") && e.getMessage().contains("junk.pem"),
        e.getMessage());
    IllegalArgumentException k =
        assertThrows(
            IllegalArgumentException.class,
            () -> PartyCredentials.load(dir.resolve("party-a.pem"), junk, pki.caCertificate()));
    assertTrue(k.getMessage().contains("no PEM private key"), k.getMessage());
  }

  @Test
  void serializesAsPathsAndReloads() throws Exception {
    PartyCredentials a = pki.credentials("party-a");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(a);
    }
    String serialized = bytes.toString(java.nio.charset.StandardCharsets.ISO_8859_1);
    assertTrue(!serialized.contains("PRIVATE"), "no key material in the serialized form");
    PartyCredentials copy;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (PartyCredentials) in.readObject();
    }
    assertEquals("party-a", copy.partyName());
    assertEquals(a.certChainPem(), copy.certChainPem());
    assertArrayEquals(a.privateKey().getEncoded(), copy.privateKey().getEncoded());
  }

  @Test
  void configsSerializeForFlink() throws Exception {
    BridgeClientConfig config =
        BridgeClientConfig.defaults("relay.example", 7443, pki.credentials("party-a"));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(config);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      BridgeClientConfig copy = (BridgeClientConfig) in.readObject();
      assertEquals(config.host(), copy.host());
      assertEquals(config.idleTimeout(), copy.idleTimeout());
      assertEquals("party-a", copy.self().partyName());
    }
  }

  @Test
  void rejectsUnsafeNames() {
    assertThrows(IllegalArgumentException.class, () -> ThrowawayPki.create(otherDir, "../evil"));
    assertThrows(IllegalArgumentException.class, () -> pki.credentials("nobody"));
  }
}
