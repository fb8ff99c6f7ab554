package io.psiflink.bridge;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A throwaway CA and party certificates (ECDSA P-256) for local runs and tests. Never use these for
 * real data exchanges: the CA key only lives in memory and is discarded.
 *
 * <p>Writes {@code dir/ca.pem}, and per name {@code dir/<name>.pem} (leaf then CA) and {@code
 * dir/<name>.key} (PKCS#8, mode 600). Certificates have CN=name, SAN DNS localhost and IP
 * 127.0.0.1, are valid from one hour ago for seven days, and allow TLS server and client auth.
 *
 * <p>The certificates are encoded here, in DER, with the JDK's signature: BouncyCastle's jar is
 * signed, and loading its classes took about 0.25 s of every {@code ./psi local} and demo start.
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
      byte[] validity = Der.seq(Der.time(now.minus(BACKDATE)), Der.time(now.plus(VALIDITY)));

      KeyPair caKeys = newKeyPair(random);
      // A distinct CA name per PKI, so that errors about a foreign CA are not mistaken for a bad
      // signature.
      byte[] caName =
          cn("psi-flink throwaway CA " + Long.toHexString(random.nextLong() & 0xffffffffL));
      byte[] caKeyId = keyIdentifier(caKeys.getPublic());
      X509Certificate caCert =
          sign(
              serial(random),
              caName,
              validity,
              caName,
              caKeys.getPublic(),
              List.of(
                  extension(BASIC_CONSTRAINTS, true, Der.seq(Der.TRUE, Der.integer(0))),
                  extension(KEY_USAGE, true, Der.bits(0x06, 1)), // keyCertSign, cRLSign
                  extension(SUBJECT_KEY_ID, false, Der.octets(caKeyId))),
              caKeys.getPrivate());
      Path caPath = dir.resolve("ca.pem");
      PemFiles.writeCertificates(caPath, List.of(caCert));

      Map<String, PartyCredentials> parties = new LinkedHashMap<>();
      for (String name : names) {
        KeyPair keys = newKeyPair(random);
        X509Certificate cert =
            sign(
                serial(random),
                caName,
                validity,
                cn(name),
                keys.getPublic(),
                leafExtensions(keys.getPublic(), caKeyId),
                caKeys.getPrivate());
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
    } catch (GeneralSecurityException e) {
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

  private static List<byte[]> leafExtensions(PublicKey key, byte[] caKeyId)
      throws GeneralSecurityException {
    return List.of(
        extension(BASIC_CONSTRAINTS, true, Der.seq()), // not a CA
        extension(KEY_USAGE, true, Der.bits(0x80, 7)), // digitalSignature
        extension(EXTENDED_KEY_USAGE, false, Der.seq(Der.oid(SERVER_AUTH), Der.oid(CLIENT_AUTH))),
        extension(
            SUBJECT_ALT_NAME,
            false,
            Der.seq(
                Der.tlv(0x82, "localhost".getBytes(StandardCharsets.US_ASCII)), // dNSName
                Der.tlv(0x87, new byte[] {127, 0, 0, 1}))), // iPAddress
        extension(SUBJECT_KEY_ID, false, Der.octets(keyIdentifier(key))),
        extension(AUTHORITY_KEY_ID, false, Der.seq(Der.tlv(0x80, caKeyId)))); // [0] keyIdentifier
  }

  private static final String BASIC_CONSTRAINTS = "2.5.29.19";
  private static final String KEY_USAGE = "2.5.29.15";
  private static final String EXTENDED_KEY_USAGE = "2.5.29.37";
  private static final String SUBJECT_ALT_NAME = "2.5.29.17";
  private static final String SUBJECT_KEY_ID = "2.5.29.14";
  private static final String AUTHORITY_KEY_ID = "2.5.29.35";
  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
  private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
  private static final String ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
  private static final String COMMON_NAME = "2.5.4.3";

  private static byte[] extension(String oid, boolean critical, byte[] value) {
    return critical
        ? Der.seq(Der.oid(oid), Der.TRUE, Der.octets(value))
        : Der.seq(Der.oid(oid), Der.octets(value));
  }

  /** RFC 5280's key identifier (method 1): SHA-1 of the subjectPublicKey bits. */
  private static byte[] keyIdentifier(PublicKey key) throws GeneralSecurityException {
    DerReader spki = DerReader.of(key.getEncoded()).enter(0x30);
    spki.enter(0x30); // the AlgorithmIdentifier
    byte[] bits = spki.enter(0x03).contents(); // the BIT STRING: unused bits, then the key
    return MessageDigest.getInstance("SHA-1").digest(Arrays.copyOfRange(bits, 1, bits.length));
  }

  /** An X.509 v3 certificate signed with ECDSA and SHA-256, parsed back by the JDK. */
  private static X509Certificate sign(
      BigInteger serial,
      byte[] issuer,
      byte[] validity,
      byte[] subject,
      PublicKey key,
      List<byte[]> extensions,
      PrivateKey issuerKey)
      throws GeneralSecurityException {
    byte[] algorithm = Der.seq(Der.oid(ECDSA_WITH_SHA256));
    byte[] tbs =
        Der.seq(
            Der.tlv(0xa0, Der.integer(2)), // [0] version v3
            Der.tlv(0x02, serial.toByteArray()),
            algorithm,
            issuer,
            validity,
            subject,
            key.getEncoded(),
            Der.tlv(0xa3, Der.seq(extensions.toArray(byte[][]::new)))); // [3] extensions
    Signature signer = Signature.getInstance("SHA256withECDSA");
    signer.initSign(issuerKey);
    signer.update(tbs);
    byte[] signature = Der.bits(signer.sign());
    return (X509Certificate)
        CertificateFactory.getInstance("X.509")
            .generateCertificate(new ByteArrayInputStream(Der.seq(tbs, algorithm, signature)));
  }

  private static KeyPair newKeyPair(SecureRandom random) throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"), random);
    return generator.generateKeyPair();
  }

  private static byte[] cn(String name) {
    return Der.seq(
        Der.tlv(
            0x31,
            Der.seq(Der.oid(COMMON_NAME), Der.tlv(0x0c, name.getBytes(StandardCharsets.UTF_8)))));
  }

  private static BigInteger serial(SecureRandom random) {
    return new BigInteger(127, random)
        .add(BigInteger.ONE); // positive, unique with overwhelming probability
  }

  /** The few DER encodings a certificate needs. */
  private static final class Der {
    static final byte[] TRUE = {0x01, 0x01, (byte) 0xff};
    private static final DateTimeFormatter UTC_TIME =
        DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);

    static byte[] tlv(int tag, byte[]... contents) {
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      for (byte[] c : contents) {
        body.writeBytes(c);
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.write(tag);
      int n = body.size();
      if (n < 0x80) {
        out.write(n);
      } else if (n < 0x100) {
        out.write(0x81);
        out.write(n);
      } else {
        out.write(0x82);
        out.write(n >> 8);
        out.write(n);
      }
      out.writeBytes(body.toByteArray());
      return out.toByteArray();
    }

    static byte[] seq(byte[]... contents) {
      return tlv(0x30, contents);
    }

    static byte[] integer(long v) {
      return tlv(0x02, BigInteger.valueOf(v).toByteArray());
    }

    static byte[] octets(byte[] v) {
      return tlv(0x04, v);
    }

    /** A BIT STRING of whole bytes. */
    static byte[] bits(byte[] v) {
      return tlv(0x03, new byte[] {0}, v);
    }

    /** A BIT STRING of one byte whose last {@code unused} bits are not part of it. */
    static byte[] bits(int b, int unused) {
      return tlv(0x03, new byte[] {(byte) unused, (byte) b});
    }

    /** UTCTime, which RFC 5280 requires for dates before 2050. */
    static byte[] time(Instant t) {
      return tlv(0x17, UTC_TIME.format(t).getBytes(StandardCharsets.US_ASCII));
    }

    static byte[] oid(String dotted) {
      String[] arcs = dotted.split("\\.");
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      base128(out, Long.parseLong(arcs[0]) * 40 + Long.parseLong(arcs[1]));
      for (int i = 2; i < arcs.length; i++) {
        base128(out, Long.parseLong(arcs[i]));
      }
      return tlv(0x06, out.toByteArray());
    }

    private static void base128(ByteArrayOutputStream out, long v) {
      int groups = 1;
      while (v >>> (7 * groups) != 0) {
        groups++;
      }
      for (int g = groups - 1; g >= 0; g--) {
        out.write((int) ((v >>> (7 * g)) & 0x7f) | (g > 0 ? 0x80 : 0));
      }
    }
  }
}
