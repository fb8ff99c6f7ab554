package io.psiflink.bridge;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.crypto.KeyAgreement;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The pieces of an end-to-end handshake between two parties over the relay that third-party
 * services (the helper, the provider) and their clients share: a HELLO signed with the sender's TLS
 * key over a labelled transcript, the certificate chain it carries, an ephemeral X25519 agreement,
 * and HKDF-SHA256 keyed by both HELLOs. The relay forwards the HELLOs; it can neither forge one nor
 * learn a key derived from them. Each protocol keeps its own messages and labels; this class holds
 * only the cryptography and the size limits on what a peer may send.
 */
public final class HelloCrypto {
  /** The largest encoded HELLO a peer may send. */
  public static final int MAX_HELLO_BYTES = 1 << 20;

  public static final int MAX_SIGNATURE_BYTES = 4096;
  public static final int MAX_CERTIFICATES = 8;
  public static final int MAX_CERTIFICATE_BYTES = 64 * 1024;

  /** The largest X25519 public key (X.509 SubjectPublicKeyInfo) a peer may send. */
  public static final int MAX_DH_BYTES = 64;

  private HelloCrypto() {}

  /** A peer's HELLO broke a rule; the message says which, and quotes no peer bytes unchecked. */
  public static final class Rejected extends Exception {
    private static final long serialVersionUID = 1L;

    public Rejected(String message) {
      super(message);
    }

    public Rejected(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** A fresh ephemeral X25519 key pair. */
  public static KeyPair x25519() {
    try {
      return KeyPairGenerator.getInstance("X25519").generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("X25519 unavailable in this JVM", e);
    }
  }

  /**
   * The signature with {@code me}'s TLS key over {@code magic 0x00 label 0x00 u16 len session
   * (UTF-8) hello}.
   */
  public static byte[] sign(
      PartyCredentials me, String magic, String label, String session, byte[] hello) {
    try {
      Signature s = Signature.getInstance(signatureAlgorithm(me.certificate().getPublicKey()));
      s.initSign(me.privateKey());
      s.update(signedBytes(magic, label, session, hello));
      return s.sign();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot sign with the key of '" + me.partyName() + "'", e);
    }
  }

  /** Checks a signature of {@link #sign} with the key of {@code leaf}; {@code what} names it. */
  public static void verify(
      X509Certificate leaf,
      String magic,
      String label,
      String session,
      byte[] hello,
      byte[] signature,
      String what)
      throws Rejected {
    boolean ok;
    try {
      Signature v = Signature.getInstance(signatureAlgorithm(leaf.getPublicKey()));
      v.initVerify(leaf.getPublicKey());
      v.update(signedBytes(magic, label, session, hello));
      ok = v.verify(signature);
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      ok = false;
    }
    if (!ok) {
      throw new Rejected(
          "the signature of " + what + " does not verify with its certificate's key");
    }
  }

  /** Parses a protobuf message of a peer's bytes. */
  @FunctionalInterface
  public interface Parser<T> {
    T parse(byte[] bytes) throws InvalidProtocolBufferException;
  }

  /**
   * A peer's message of the protocol {@code wire} (e.g. {@code psiflink.helper.v1}); {@code what}
   * names it in the error.
   */
  public static <T> T parse(byte[] bytes, Parser<T> parser, String what, String wire)
      throws Rejected {
    try {
      return parser.parse(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new Rejected("the " + what + " is not a " + wire + " message");
    }
  }

  /**
   * A signed HELLO frame of the protocol {@code wire}: at most a HELLO, its signature and framing
   * before it is parsed, then a HELLO and a signature within their limits.
   */
  public static <S> S parseSigned(
      byte[] frame,
      Parser<S> parser,
      Function<S, ByteString> hello,
      Function<S, ByteString> signature,
      String what,
      String wire)
      throws Rejected {
    if (frame.length > MAX_HELLO_BYTES + MAX_SIGNATURE_BYTES + 64) {
      throw new Rejected(what + " has " + frame.length + " bytes, at most " + MAX_HELLO_BYTES);
    }
    S s = parse(frame, parser, "signed HELLO", wire);
    ByteString h = hello.apply(s);
    ByteString sig = signature.apply(s);
    if (h.size() > MAX_HELLO_BYTES || sig.isEmpty() || sig.size() > MAX_SIGNATURE_BYTES) {
      throw new Rejected(
          what
              + " has a hello of "
              + h.size()
              + " bytes and a signature of "
              + sig.size()
              + " bytes (at most "
              + MAX_HELLO_BYTES
              + " and 1 to "
              + MAX_SIGNATURE_BYTES
              + ")");
    }
    return s;
  }

  /** The leaf of a certificate chain a HELLO carries (DER, leaf first), within the limits. */
  public static X509Certificate leaf(List<ByteString> chain, String what) throws Rejected {
    if (chain.isEmpty() || chain.size() > MAX_CERTIFICATES) {
      throw new Rejected(
          what + " carries " + chain.size() + " certificates, 1 to " + MAX_CERTIFICATES);
    }
    ByteString der = chain.get(0);
    if (der.size() > MAX_CERTIFICATE_BYTES) {
      throw new Rejected(
          what
              + " carries a certificate of "
              + der.size()
              + " bytes, at most "
              + MAX_CERTIFICATE_BYTES);
    }
    try {
      return (X509Certificate)
          CertificateFactory.getInstance("X.509")
              .generateCertificate(new ByteArrayInputStream(der.toByteArray()));
    } catch (GeneralSecurityException | RuntimeException e) {
      throw new Rejected(what + " carries an unreadable certificate");
    }
  }

  /** Adds each certificate of {@code chain}, DER-encoded, to a HELLO being built. */
  public static void addChain(Consumer<ByteString> add, List<X509Certificate> chain) {
    try {
      for (X509Certificate c : chain) {
        add.accept(ByteString.copyFrom(c.getEncoded()));
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot encode a certificate", e);
    }
  }

  /** Checks that {@code leaf} has the pinned SHA-256, if one is given; {@code who} names it. */
  public static void checkPin(X509Certificate leaf, byte[] pin, String who) throws Rejected {
    if (pin == null) {
      return;
    }
    byte[] actual;
    try {
      actual = PartyTrust.sha256(leaf);
    } catch (BridgeException e) {
      throw new Rejected(e.getMessage(), e);
    }
    if (!MessageDigest.isEqual(actual, pin)) {
      throw new Rejected(
          "the certificate of "
              + who
              + " (SHA-256 "
              + HexFormat.of().formatHex(actual)
              + ") is not the pinned one ("
              + HexFormat.of().formatHex(pin)
              + ")");
    }
  }

  /** The X25519 public key a HELLO carries, within the size limit. */
  public static byte[] dhPublic(ByteString key) throws Rejected {
    if (key.isEmpty() || key.size() > MAX_DH_BYTES) {
      throw new Rejected("the HELLO's X25519 key has " + key.size() + " bytes");
    }
    return key.toByteArray();
  }

  /**
   * The 32-byte key of a handshake: HKDF-SHA256 with salt = SHA-256(magic 0x00 u16 len session
   * (UTF-8) u32 len first u32 len second), ikm = X25519(mine, theirs), info, one block.
   *
   * @param first the HELLO of the side that spoke first (the caller's, at the caller and callee)
   * @param second the answering HELLO
   */
  public static byte[] transcriptKey(
      PrivateKey mine,
      byte[] theirPublic,
      String magic,
      String session,
      byte[] first,
      byte[] second,
      String info)
      throws Rejected {
    byte[] secret;
    try {
      KeyAgreement ka = KeyAgreement.getInstance("X25519");
      ka.init(mine);
      PublicKey theirs =
          KeyFactory.getInstance("X25519").generatePublic(new X509EncodedKeySpec(theirPublic));
      ka.doPhase(theirs, true);
      secret = ka.generateSecret();
    } catch (GeneralSecurityException | RuntimeException e) {
      throw new Rejected("the peer's X25519 key is not usable", e);
    }
    byte[] s = session.getBytes(StandardCharsets.UTF_8);
    MessageDigest salt = sha256();
    salt.update(magic.getBytes(StandardCharsets.US_ASCII));
    salt.update((byte) 0);
    salt.update(ByteBuffer.allocate(2).putShort((short) s.length).array());
    salt.update(s);
    salt.update(ByteBuffer.allocate(4).putInt(first.length).array());
    salt.update(first);
    salt.update(ByteBuffer.allocate(4).putInt(second.length).array());
    salt.update(second);
    try {
      byte[] prk = hmacSha256(salt.digest(), secret);
      byte[] okm = hmacSha256(prk, info.getBytes(StandardCharsets.US_ASCII), new byte[] {1});
      Arrays.fill(prk, (byte) 0);
      return okm; // HKDF-Expand with one block: 32 bytes
    } finally {
      Arrays.fill(secret, (byte) 0);
    }
  }

  /** HMAC-SHA256 under {@code key} over the concatenation of {@code parts}. */
  public static byte[] hmacSha256(byte[] key, byte[]... parts) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      for (byte[] p : parts) {
        mac.update(p);
      }
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable in this JVM", e);
    }
  }

  /** A fresh SHA-256 digest. */
  public static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 unavailable in this JVM", e);
    }
  }

  /** A peer's text for a message: at most 40 characters, control characters escaped. */
  public static String quoted(String s) {
    return quoted(s, 40);
  }

  /** A peer's text for a message: at most {@code max} characters, control characters escaped. */
  public static String quoted(String s, int max) {
    StringBuilder b = new StringBuilder("'");
    s.codePoints()
        .limit(max)
        .forEach(
            c ->
                b.append(
                    Character.isISOControl(c)
                        ? "\\u" + Integer.toHexString(c)
                        : Character.toString(c)));
    return b.append(s.codePointCount(0, s.length()) > max ? "...'" : "'").toString();
  }

  /** The signature algorithm of a certificate's key: ECDSA, RSA (both SHA-256) or Ed25519. */
  static String signatureAlgorithm(Key key) throws GeneralSecurityException {
    return switch (key.getAlgorithm()) {
      case "EC" -> "SHA256withECDSA";
      case "RSA" -> "SHA256withRSA";
      case "Ed25519", "EdDSA" -> "Ed25519";
      default ->
          throw new GeneralSecurityException("unsupported key algorithm " + key.getAlgorithm());
    };
  }

  private static byte[] signedBytes(String magic, String label, String session, byte[] hello) {
    byte[] m = magic.getBytes(StandardCharsets.US_ASCII);
    byte[] l = label.getBytes(StandardCharsets.US_ASCII);
    byte[] s = session.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(m.length + 1 + l.length + 1 + 2 + s.length + hello.length)
        .put(m)
        .put((byte) 0)
        .put(l)
        .put((byte) 0)
        .putShort((short) s.length)
        .put(s)
        .put(hello)
        .array();
  }
}
