package io.psiflink.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.Random;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1Integer;
import org.bouncycastle.asn1.ASN1String;
import org.bouncycastle.asn1.DERBMPString;
import org.bouncycastle.asn1.DERIA5String;
import org.bouncycastle.asn1.DERPrintableString;
import org.bouncycastle.asn1.DERT61String;
import org.bouncycastle.asn1.DERUTF8String;
import org.bouncycastle.asn1.DERUniversalString;
import org.bouncycastle.asn1.x500.AttributeTypeAndValue;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The party name is the certificate's CN, read by {@link Certificates#commonName}; BouncyCastle's
 * reading of the same encoded names (how it was read before) is the oracle.
 */
class CertificatesTest {
  private static KeyPair keys;

  @BeforeAll
  static void keys() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(256);
    keys = g.generateKeyPair();
  }

  @Test
  void readsTheCnOfPlainAndAwkwardNamesAsBouncyCastleDoes() throws Exception {
    String[] values = {
      "party-a",
      "party_b.example",
      " leading and trailing blanks ",
      "#not-hex",
      "comma, plus+ quote\" semicolon; angle<> backslash\\ equals=",
      "Bänk Zürich 東京 \uD83D\uDE00",
      "tab\there",
    };
    for (String v : values) {
      X500Name subject = new X500Name(new RDN[] {new RDN(BCStyle.CN, new DERUTF8String(v))});
      assertSame(v, subject);
      X500Name longer =
          new X500Name(
              new RDN[] {
                new RDN(BCStyle.C, new DERPrintableString("DE")),
                new RDN(BCStyle.O, new DERUTF8String("Bank, AG")),
                new RDN(BCStyle.CN, new DERUTF8String(v)),
                new RDN(BCStyle.OU, new DERUTF8String("CN=impostor")),
              });
      assertSame(v, longer);
    }
  }

  @Test
  void readsEveryStringTypeOfTheCn() throws Exception {
    ASN1Encodable[] encodings = {
      new DERPrintableString("party-a"),
      new DERIA5String("party-a"),
      new DERBMPString("party-a"),
      new DERT61String("party-a"),
      new DERUTF8String("party-a"),
    };
    for (ASN1Encodable e : encodings) {
      assertSame("party-a", new X500Name(new RDN[] {new RDN(BCStyle.CN, e)}));
    }
  }

  @Test
  void decodesAUniversalStringWhichBouncyCastlePrintsInHex() throws Exception {
    byte[] utf32 = "party-a".getBytes(java.nio.charset.Charset.forName("UTF-32BE"));
    X500Name name = new X500Name(new RDN[] {new RDN(BCStyle.CN, new DERUniversalString(utf32))});
    assertEquals("party-a", Certificates.commonName(cert(name)));
  }

  @Test
  void agreesWithBouncyCastleOnRandomNames() throws Exception {
    Random random = new Random(20261202);
    for (int i = 0; i < 300; i++) {
      StringBuilder v = new StringBuilder();
      int length = 1 + random.nextInt(random.nextBoolean() ? 8 : 300); // long forms of lengths too
      boolean printable = random.nextInt(3) == 0;
      for (int j = 0; j < length; j++) {
        v.append(
            printable
                ? "abcXYZ019 '()+,-./:=?".charAt(random.nextInt(21))
                : (char) (1 + random.nextInt(random.nextBoolean() ? 127 : 0xd7ff)));
      }
      String value = v.toString();
      ASN1Encodable encoded =
          printable
              ? new DERPrintableString(value)
              : random.nextBoolean() ? new DERUTF8String(value) : new DERBMPString(value);
      List<RDN> rdns = new ArrayList<>();
      for (int k = random.nextInt(3); k > 0; k--) {
        rdns.add(new RDN(BCStyle.O, new DERUTF8String("org " + k)));
      }
      rdns.add(random.nextInt(rdns.size() + 1), new RDN(BCStyle.CN, encoded));
      assertSame(value, new X500Name(rdns.toArray(RDN[]::new)));
    }
  }

  @Test
  void refusesNamesThatAreNotDer() throws Exception {
    byte[] good = new X500Name("C=DE, O=Bank, CN=party-a").getEncoded();
    assertEquals("party-a", Certificates.commonName(good));
    Random random = new Random(7);
    for (int i = 0; i < 20_000; i++) {
      byte[] bad = Arrays.copyOf(good, random.nextInt(good.length + 4));
      for (int k = 1 + random.nextInt(3); k > 0 && bad.length > 0; k--) {
        bad[random.nextInt(bad.length)] = (byte) random.nextInt(256);
      }
      try {
        Certificates.commonName(bad); // a name, null, or the one exception: never another
      } catch (IllegalArgumentException expected) {
        // not DER
      }
    }
    assertThrows(IllegalArgumentException.class, () -> Certificates.commonName(new byte[0]));
    assertThrows(
        IllegalArgumentException.class,
        () -> Certificates.commonName(new byte[] {0x30, (byte) 0x84, 0x7f, 0, 0, 0}));
  }

  @Test
  void takesTheFirstEncodedCn() throws Exception {
    X500Name two =
        new X500Name(
            new RDN[] {
              new RDN(BCStyle.CN, new DERUTF8String("first")),
              new RDN(BCStyle.O, new DERUTF8String("x")),
              new RDN(BCStyle.CN, new DERUTF8String("second")),
            });
    assertSame("first", two);
  }

  @Test
  void aNameWithoutCnHasNone() throws Exception {
    assertNull(Certificates.commonName(cert(new X500Name("O=party-a, OU=CN"))));
    assertEquals("'O=party-a'", Certificates.describe(cert(new X500Name("O=party-a"))));
  }

  @Test
  void aMultiValuedRdnGivesItsCnNotItsFirstValue() throws Exception {
    X500Name multi =
        new X500Name(
            new RDN[] {
              new RDN(
                  new AttributeTypeAndValue[] {
                    new AttributeTypeAndValue(BCStyle.O, new DERUTF8String("a")),
                    new AttributeTypeAndValue(BCStyle.CN, new DERUTF8String("party-b")),
                  })
            });
    // DER sorts the set by encoding, so the shorter O comes first (BouncyCastle's getFirst gave it)
    X509Certificate c = cert(multi);
    assertEquals(
        BCStyle.O,
        X500Name.getInstance(c.getSubjectX500Principal().getEncoded())
            .getRDNs()[0]
            .getFirst()
            .getType());
    assertEquals("party-b", Certificates.commonName(c));
  }

  @Test
  void aCnThatIsNotAStringIsNamedByItsEncoding() throws Exception {
    X500Name odd = new X500Name(new RDN[] {new RDN(BCStyle.CN, new ASN1Integer(7))});
    String cn = Certificates.commonName(cert(odd));
    assertEquals("#020107", cn.toLowerCase(java.util.Locale.ROOT));
  }

  /** The CN read now, the one BouncyCastle reads, and the expected value are the same. */
  private static void assertSame(String expected, X500Name subject) throws Exception {
    X509Certificate c = cert(subject);
    ASN1Encodable bc =
        X500Name.getInstance(c.getSubjectX500Principal().getEncoded())
            .getRDNs(BCStyle.CN)[0]
            .getFirst()
            .getValue();
    assertTrue(bc instanceof ASN1String, subject.toString());
    assertEquals(expected, ((ASN1String) bc).getString(), "the oracle, " + subject);
    assertEquals(expected, Certificates.commonName(c), subject.toString());
  }

  private static X509Certificate cert(X500Name subject) throws Exception {
    return new JcaX509CertificateConverter()
        .getCertificate(
            new JcaX509v3CertificateBuilder(
                    subject,
                    BigInteger.ONE,
                    new Date(System.currentTimeMillis() - 60_000),
                    new Date(System.currentTimeMillis() + 86_400_000L),
                    subject,
                    keys.getPublic())
                .build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
  }
}
