package io.psiflink.bridge;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reading and writing PEM files. Uses the JDK's default providers; no global BouncyCastle provider
 * is installed, and BouncyCastle's parser is used only for the private key formats the JDK does not
 * read (its jar is signed: its classes are verified as they load and cannot be in a class-data
 * sharing archive, about 0.25 s of a cold JVM's start).
 */
final class PemFiles {
  private PemFiles() {}

  /** All certificates in a PEM file, in file order (other PEM objects are skipped). */
  static List<X509Certificate> readCertificates(Path file) {
    List<X509Certificate> certs = new ArrayList<>();
    try {
      CertificateFactory factory = null;
      for (Block b : blocks(file)) {
        if (b.label().equals("CERTIFICATE") || b.label().equals("X509 CERTIFICATE")) {
          if (factory == null) {
            factory = CertificateFactory.getInstance("X.509");
          }
          certs.add(
              (X509Certificate) factory.generateCertificate(new ByteArrayInputStream(b.der())));
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
    try {
      // the common case with the JDK alone; BouncyCastle reads the rest
      for (Block b : blocks(file)) {
        if (b.label().endsWith("PRIVATE KEY")) {
          PrivateKey key = b.label().equals("PRIVATE KEY") ? pkcs8(b.der()) : null;
          if (key != null) {
            return key;
          }
          break;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read private key from " + file + ": " + e.getMessage(), e);
    }
    return readPrivateKeyWithBouncyCastle(file);
  }

  /** An unencrypted PKCS#8 key of an algorithm the hello can sign with, or null. */
  private static PrivateKey pkcs8(byte[] der) {
    for (String algorithm : new String[] {"EC", "RSA", "Ed25519"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException | RuntimeException e) {
        // another algorithm's key, or none: BouncyCastle reads (or names) what none of these does
      }
    }
    return null;
  }

  private static PrivateKey readPrivateKeyWithBouncyCastle(Path file) {
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        PEMParser parser = new PEMParser(reader)) {
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
        if (o instanceof PrivateKeyInfo info) {
          return converter.getPrivateKey(info);
        }
        if (o instanceof PEMKeyPair pair) {
          // not getKeyPair: a traditional EC key may leave out its public key
          return converter.getPrivateKey(pair.getPrivateKeyInfo());
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

  /** A PEM object: the X of "-----BEGIN X-----" and its decoded contents. */
  private record Block(String label, byte[] der) {}

  /**
   * The PEM objects of a file, in order. Text between objects is ignored, as are the headers of an
   * object (traditional encrypted keys have them; those go to BouncyCastle, which reads them).
   */
  private static List<Block> blocks(Path file) throws IOException {
    List<Block> blocks = new ArrayList<>();
    String label = null;
    StringBuilder base64 = new StringBuilder();
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
    } catch (CharacterCodingException e) {
      throw new IOException(
          "it is not a PEM file (not ASCII text; DER must be converted to PEM)", e);
    }
    for (String raw : lines) {
      String line = raw.strip();
      if (label == null) {
        if (line.startsWith(BEGIN) && line.endsWith(DASHES) && line.length() > BEGIN.length() + 5) {
          label = line.substring(BEGIN.length(), line.length() - DASHES.length());
          base64.setLength(0);
        }
      } else if (line.equals(END + label + DASHES)) {
        try {
          blocks.add(new Block(label, Base64.getDecoder().decode(base64.toString())));
        } catch (IllegalArgumentException e) {
          throw new IOException("the PEM object " + label + " is not valid base64", e);
        }
        label = null;
      } else if (line.indexOf(':') < 0) {
        base64.append(line);
      }
    }
    if (label != null) {
      throw new IOException("the PEM object " + label + " has no END line");
    }
    return blocks;
  }

  private static final String BEGIN = "-----BEGIN ";
  private static final String END = "-----END ";
  private static final String DASHES = "-----";

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
    out.append(BEGIN).append(type).append(DASHES).append('\n');
    out.append(Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)).append('\n');
    out.append(END).append(type).append(DASHES).append('\n');
  }
}
