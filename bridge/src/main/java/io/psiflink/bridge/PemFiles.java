package io.psiflink.bridge;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reading and writing PEM files. Uses the JDK's default providers; no global BouncyCastle provider
 * is installed.
 */
final class PemFiles {
  private PemFiles() {}

  /** All certificates in a PEM file, in file order (other PEM objects are skipped). */
  static List<X509Certificate> readCertificates(Path file) {
    List<X509Certificate> certs = new ArrayList<>();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        PEMParser parser = new PEMParser(reader)) {
      JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
      for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
        if (o instanceof X509CertificateHolder holder) {
          certs.add(converter.getCertificate(holder));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read certificates from " + file + ": " + e.getMessage(), e);
    } catch (CertificateException e) {
      throw new IllegalArgumentException(
          "invalid certificate in " + file + ": " + e.getMessage(), e);
    }
    if (certs.isEmpty()) {
      throw new IllegalArgumentException("no PEM certificate (BEGIN CERTIFICATE) found in " + file);
    }
    return List.copyOf(certs);
  }

  /**
   * The private key in a PEM file: PKCS#8 ("BEGIN PRIVATE KEY"), or the traditional EC/RSA formats.
   */
  static PrivateKey readPrivateKey(Path file) {
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        PEMParser parser = new PEMParser(reader)) {
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
        if (o instanceof PrivateKeyInfo info) {
          return converter.getPrivateKey(info);
        }
        if (o instanceof PEMKeyPair pair) {
          return converter.getKeyPair(pair).getPrivate();
        }
        if (o instanceof PEMEncryptedKeyPair || o instanceof PKCS8EncryptedPrivateKeyInfo) {
          throw new IllegalArgumentException(
              "private key in " + file + " is encrypted; an unencrypted PKCS#8 key is required");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read private key from " + file + ": " + e.getMessage(), e);
    }
    throw new IllegalArgumentException("no PEM private key (BEGIN PRIVATE KEY) found in " + file);
  }

  static void writeCertificates(Path file, List<X509Certificate> certs) throws IOException {
    StringBuilder pem = new StringBuilder();
    for (X509Certificate cert : certs) {
      try {
        appendPem(pem, "CERTIFICATE", cert.getEncoded());
      } catch (CertificateEncodingException e) {
        throw new IOException("cannot encode certificate " + cert.getSubjectX500Principal(), e);
      }
    }
    Files.writeString(file, pem, StandardCharsets.US_ASCII);
  }

  /**
   * Writes a PKCS#8 PEM key readable only by the owner (mode 600) where the file system supports
   * it.
   */
  static void writePrivateKey(Path file, PrivateKey key) throws IOException {
    StringBuilder pem = new StringBuilder();
    appendPem(pem, "PRIVATE KEY", key.getEncoded());
    Files.deleteIfExists(file);
    try {
      // Create with restricted permissions up front, so the key is never briefly world-readable.
      Files.createFile(
          file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      Files.createFile(file);
    } catch (FileAlreadyExistsException e) {
      throw new IOException("could not replace " + file, e);
    }
    try (Writer w =
        Files.newBufferedWriter(
            file, StandardCharsets.US_ASCII, StandardOpenOption.TRUNCATE_EXISTING)) {
      w.append(pem);
    }
  }

  private static void appendPem(StringBuilder out, String type, byte[] der) {
    out.append("-----BEGIN ").append(type).append("-----\n");
    out.append(Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)).append('\n');
    out.append("-----END ").append(type).append("-----\n");
  }
}
