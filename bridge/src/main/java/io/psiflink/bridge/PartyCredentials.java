package io.psiflink.bridge;

import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Date;
import java.util.List;
import java.util.Objects;

/**
 * A party's TLS identity (certificate chain and private key) and the CA certificates it trusts.
 *
 * <p>Immutable. It serializes as its three file paths and is loaded again from them on
 * deserialization, so it can be shipped inside a Flink job graph without the key material, as long
 * as the files exist at the same paths where it is deserialized.
 */
public final class PartyCredentials implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * The type of an in-memory {@link java.security.KeyStore} that holds a private key for a TLS
   * context (netty's and the coordinator's). The JDK's default, PKCS12, encrypts a key as it is
   * stored with 10,000 rounds of PBKDF2 and decrypts it with as many: about 0.6 s of a cold JVM's
   * start, for a store that is never written anywhere and whose password is empty. JKS's key
   * protection costs nothing measurable.
   */
  public static final String IN_MEMORY_KEY_STORE = "JKS";

  private final transient Path certChainPem;
  private final transient Path privateKeyPem;
  private final transient Path trustedCaPem;
  private final transient List<X509Certificate> chain;
  private final transient PrivateKey privateKey;
  private final transient List<X509Certificate> trustedCas;
  private final transient String partyName;

  private PartyCredentials(
      Path certChainPem,
      Path privateKeyPem,
      Path trustedCaPem,
      List<X509Certificate> chain,
      PrivateKey privateKey,
      List<X509Certificate> trustedCas,
      String partyName) {
    this.certChainPem = certChainPem;
    this.privateKeyPem = privateKeyPem;
    this.trustedCaPem = trustedCaPem;
    this.chain = chain;
    this.privateKey = privateKey;
    this.trustedCas = trustedCas;
    this.partyName = partyName;
  }

  /**
   * Loads PEM files: the certificate chain (leaf first), an unencrypted PKCS#8 private key (EC or
   * RSA) matching the leaf, and the CA certificate(s) to trust.
   *
   * @throws IllegalArgumentException if a file's content is unusable (the message says which file
   *     and why)
   * @throws java.io.UncheckedIOException if a file cannot be read
   */
  public static PartyCredentials load(Path certChainPem, Path privateKeyPem, Path trustedCaPem) {
    Objects.requireNonNull(certChainPem, "certChainPem");
    Objects.requireNonNull(privateKeyPem, "privateKeyPem");
    Objects.requireNonNull(trustedCaPem, "trustedCaPem");
    List<X509Certificate> chain = PemFiles.readCertificates(certChainPem);
    PrivateKey key = PemFiles.readPrivateKey(privateKeyPem);
    List<X509Certificate> cas = PemFiles.readCertificates(trustedCaPem);
    X509Certificate leaf = chain.get(0);
    String name = Certificates.commonName(leaf);
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException(
          "the first certificate in "
              + certChainPem
              + " has no common name (CN); the CN is the party name");
    }
    if (!Certificates.keysMatch(key, leaf.getPublicKey())) {
      throw new IllegalArgumentException(
          "private key "
              + privateKeyPem
              + " does not belong to the certificate of '"
              + name
              + "' in "
              + certChainPem);
    }
    return new PartyCredentials(certChainPem, privateKeyPem, trustedCaPem, chain, key, cas, name);
  }

  /** The CN of the leaf certificate. */
  public String partyName() {
    return partyName;
  }

  public X509Certificate certificate() {
    return chain.get(0);
  }

  public List<X509Certificate> chain() {
    return chain;
  }

  public PrivateKey privateKey() {
    return privateKey;
  }

  public List<X509Certificate> trustedCas() {
    return trustedCas;
  }

  public Path certChainPem() {
    return certChainPem;
  }

  public Path privateKeyPem() {
    return privateKeyPem;
  }

  public Path trustedCaPem() {
    return trustedCaPem;
  }

  /**
   * As {@link #verifyPeer(X509Certificate, String)}, and the certificate must also be the peer's
   * own: it chains to the peer's CA(s) or matches its pin ({@code peerTrust}), so that a CA of
   * another organisation that this party also trusts cannot issue the peer's name.
   */
  public void verifyPeer(X509Certificate cert, String expectedPartyName, PartyTrust peerTrust)
      throws BridgeException {
    verifyPeer(cert, expectedPartyName);
    Objects.requireNonNull(peerTrust, "peerTrust").check(cert);
  }

  /**
   * Checks that {@code cert} chains to a trusted CA, is valid now and has CN {@code
   * expectedPartyName}.
   */
  public void verifyPeer(X509Certificate cert, String expectedPartyName) throws BridgeException {
    Objects.requireNonNull(cert, "cert");
    Objects.requireNonNull(expectedPartyName, "expectedPartyName");
    Certificates.verifyChain(cert, trustedCas, new Date());
    String cn = Certificates.commonName(cert);
    if (!expectedPartyName.equals(cn)) {
      throw new BridgeException(
          "certificate belongs to party "
              + (cn == null ? "(no CN)" : "'" + cn + "'")
              + ", expected party '"
              + expectedPartyName
              + "'");
    }
  }

  @Override
  public String toString() {
    return "PartyCredentials[" + partyName + ", " + certChainPem + "]";
  }

  private Object writeReplace() {
    return new SerializedForm(
        certChainPem.toString(), privateKeyPem.toString(), trustedCaPem.toString());
  }

  private void readObject(ObjectInputStream in) throws InvalidObjectException {
    throw new InvalidObjectException("PartyCredentials is serialized as its file paths");
  }

  /** What actually goes over the wire: the paths only, never key material. */
  private static final class SerializedForm implements Serializable {
    private static final long serialVersionUID = 1L;
    private final String certChainPem;
    private final String privateKeyPem;
    private final String trustedCaPem;

    SerializedForm(String certChainPem, String privateKeyPem, String trustedCaPem) {
      this.certChainPem = certChainPem;
      this.privateKeyPem = privateKeyPem;
      this.trustedCaPem = trustedCaPem;
    }

    private Object readResolve() {
      return load(Path.of(certChainPem), Path.of(privateKeyPem), Path.of(trustedCaPem));
    }
  }
}
