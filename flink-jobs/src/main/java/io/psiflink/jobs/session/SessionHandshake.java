package io.psiflink.jobs.session;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.PartyTrust;
import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.jobs.bin.BinPlan;
import io.psiflink.jobs.psi.Frames;
import io.psiflink.jobs.psi.PeerProtocolException;
import io.psiflink.jobs.psi.ProtocolRoles;
import io.psiflink.jobs.psi.SealedBinStream;
import io.psiflink.jobs.psi.StreamRounds;
import io.psiflink.nativepsi.ProtocolInfo;
import io.psiflink.nativepsi.PsiParams;
import io.psiflink.nativepsi.PsiPhase;
import io.psiflink.nativepsi.PsiSession;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.KeyAgreement;

/**
 * The session's control handshake between the two parties' jobs, on the bridge stream
 * (session, "control"), before either job reads a row:
 * <ol>
 *   <li>both send a signed HELLO: the query fingerprint, protocol, σ, requested bin count, a size
 *       estimate, key column types, every column of their table the query names (in table order), an
 *       ephemeral X25519 public key and their certificate chain; the signature (by the party's TLS key) covers the session id and the HELLO,
 *       so the bridge relay can neither read nor alter the key agreement;</li>
 *   <li>both check the peer's certificate (trusted CA, expected party name and, when the session
 *       names it, its SHA-256 fingerprint) and signature, and that both run the same query with
 *       compatible key types;</li>
 *   <li>both derive the token key, bin seed and bin frame key with HKDF from the X25519 secret,
 *       salted with the hash of both HELLOs: no coordinator or relay ever holds them;</li>
 *   <li>both run the protocol's setup rounds once, sealed under the frame key; every bin imports the result (unless the
 *       protocol's setup depends on a bin's set, as ECDH's does: then every bin runs it).</li>
 * </ol>
 */
public final class SessionHandshake {
  private static final String MAGIC = "psi-flink control v1";

  /**
   * This party's side of the facts both must agree on. {@code peerCertificateSha256}: the SHA-256
   * of the peer's certificate (DER) as the session names it, or null to accept any certificate of
   * {@code expectedPeer} from a trusted CA.
   */
  public record LocalFacts(boolean partyB, String expectedPeer, String fingerprint, String protocol,
      String protocolParams, int sigma, int binsRequested, long sizeEstimate, int parallelism,
      List<Column> keys, List<Column> revealed, List<Column> named,
      byte[] peerCertificateSha256) {}

  private record Hello(boolean partyB, String fingerprint, String protocol, int sigma,
      int binsRequested, long sizeEstimate, int parallelism, List<Column> keys,
      List<Column> revealed, List<Column> named, byte[] dhPublic, List<X509Certificate> chain, byte[] bytes) {}

  private SessionHandshake() {}

  public static SessionSecrets run(BridgeClient client, String session, PartyCredentials me,
      LocalFacts facts) throws BridgeException, PeerProtocolException, HandshakeException {
    try (BridgeStream stream = client.open(session, "control")) {
      try {
        SessionSecrets s = run(stream, session, me, facts);
        stream.finish();
        if (stream.receive() != null) {
          throw new PeerProtocolException("peer sent frames after the setup");
        }
        return s;
      } catch (PeerProtocolException | HandshakeException | RuntimeException e) {
        stream.abort("party " + (facts.partyB() ? "B" : "A") + " stopped the handshake: "
            + e.getMessage());
        throw e;
      }
    }
  }

  static SessionSecrets run(BridgeStream stream, String session, PartyCredentials me,
      LocalFacts facts) throws BridgeException, PeerProtocolException, HandshakeException {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("X25519");
      KeyPair dh = g.generateKeyPair();
      byte[] hello = encodeHello(facts, dh.getPublic().getEncoded(), me.chain());
      byte[] signature = sign(me, session, hello);
      stream.send(Frames.of(Frames.HELLO, withSignature(hello, signature)));

      byte[] body = Frames.body(stream.receive(), Frames.HELLO, "waiting for the peer's HELLO");
      Hello peer = verify(body, session, me, facts);
      int bins = agree(facts, peer);

      byte[] helloA = facts.partyB() ? peer.bytes : hello;
      byte[] helloB = facts.partyB() ? hello : peer.bytes;
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(MAGIC.getBytes(StandardCharsets.US_ASCII));
      sha.update(session.getBytes(StandardCharsets.UTF_8));
      sha.update(helloA);
      sha.update(helloB);
      KeyAgreement ka = KeyAgreement.getInstance("X25519");
      ka.init(dh.getPrivate());
      ka.doPhase(KeyFactory.getInstance("X25519")
          .generatePublic(new X509EncodedKeySpec(peer.dhPublic)), true);
      byte[] prk = Hkdf.extract(sha.digest(), ka.generateSecret());
      byte[] tokenKey = Hkdf.expand(prk, "token key", 32);
      byte[] binSeed = Hkdf.expand(prk, "bin seed", 16);
      // Seals every bin frame (and the setup rounds below) end to end: see SealedBinStream.
      byte[] frameKey = Hkdf.expand(prk, "bin frame key", 32);
      java.util.Arrays.fill(prk, (byte) 0);

      // A protocol whose setup depends on a bin's set runs it in every bin instead.
      byte[] setup = ProtocolInfo.byName(facts.protocol()).setupNeedsSenderSet() ? null
          : runSetup(stream, facts, frameKey);
      return new SessionSecrets(tokenKey, binSeed, frameKey, setup, bins, facts.expectedPeer(),
          peer.keys, peer.revealed, peer.named);
    } catch (GeneralSecurityException e) {
      throw new HandshakeException("key agreement failed: " + e.getMessage(), e);
    }
  }

  private static byte[] runSetup(BridgeStream stream, LocalFacts facts, byte[] frameKey)
      throws BridgeException, PeerProtocolException {
    PsiParams params = PsiParams.parse(facts.protocolParams()).toBuilder()
        .receiverSize(1).senderSize(1).build();
    try (PsiSession s = PsiSession.create(facts.protocol(), ProtocolRoles.of(
        facts.partyB() ? Role.B : Role.A, ProtocolInfo.byName(facts.protocol())), params);
        SealedBinStream sealed = new SealedBinStream(stream, frameKey, SealedBinStream.CONTROL,
            facts.partyB())) {
      // the setup rounds come after the signed HELLOs: sealed, so the relay cannot alter them
      StreamRounds.run(s, PsiPhase.SETUP, sealed);
      return s.exportSetup();
    }
  }

  /** Checks both HELLOs describe the same join and returns the bin count m. */
  private static int agree(LocalFacts me, Hello peer) throws HandshakeException {
    if (peer.partyB == me.partyB()) {
      throw new HandshakeException("both jobs play party " + (me.partyB() ? "B" : "A"));
    }
    if (!peer.fingerprint.equals(me.fingerprint())) {
      throw new HandshakeException("the parties run different queries (fingerprints "
          + me.fingerprint() + " here, " + peer.fingerprint + " at the peer)");
    }
    if (!peer.protocol.equals(me.protocol()) || peer.sigma != me.sigma()) {
      throw new HandshakeException("protocol/σ differ: " + me.protocol() + "/" + me.sigma()
          + " here, " + peer.protocol + "/" + peer.sigma + " at the peer");
    }
    if (peer.keys.size() != me.keys().size()) {
      throw new HandshakeException("the peer joins on " + peer.keys.size()
          + " key columns, this party on " + me.keys().size());
    }
    for (int i = 0; i < peer.keys.size(); i++) {
      Column mine = me.keys().get(i);
      Column theirs = peer.keys.get(i);
      if (mine.type().keyClass() != theirs.type().keyClass()) {
        Column a = me.partyB() ? theirs : mine;
        Column b = me.partyB() ? mine : theirs;
        throw new HandshakeException("ON: a." + a.name() + " (" + a.type().sqlName() + ") = b."
            + b.name() + " (" + b.type().sqlName() + "): these types do not compare");
      }
    }
    if (me.binsRequested() > 0 && peer.binsRequested > 0
        && me.binsRequested() != peer.binsRequested) {
      throw new HandshakeException("bin counts differ: " + me.binsRequested() + " here, "
          + peer.binsRequested + " at the peer");
    }
    if (me.binsRequested() > 0 || peer.binsRequested > 0) {
      return Math.max(me.binsRequested(), peer.binsRequested);
    }
    return BinPlan.autoBins(Math.max(me.sizeEstimate(), peer.sizeEstimate),
        Math.max(me.parallelism(), peer.parallelism));
  }

  private static byte[] encodeHello(LocalFacts f, byte[] dhPublic, List<X509Certificate> chain)
      throws GeneralSecurityException {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeUTF(MAGIC);
      out.writeBoolean(f.partyB());
      out.writeUTF(f.fingerprint());
      out.writeUTF(f.protocol());
      out.writeInt(f.sigma());
      out.writeInt(f.binsRequested());
      out.writeLong(f.sizeEstimate());
      out.writeInt(f.parallelism());
      writeColumns(out, f.keys());
      writeColumns(out, f.revealed());
      writeColumns(out, f.named());
      writeBytes(out, dhPublic);
      out.writeInt(chain.size());
      for (X509Certificate c : chain) {
        writeBytes(out, c.getEncoded());
      }
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Hello verify(byte[] body, String session, PartyCredentials me, LocalFacts facts)
      throws PeerProtocolException, HandshakeException, BridgeException {
    String expectedPeer = facts.expectedPeer();
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(body));
      byte[] hello = readBytes(in, 1 << 20);
      byte[] signature = readBytes(in, 4096);
      if (in.available() != 0) {
        throw new PeerProtocolException("stray bytes after the peer's HELLO");
      }
      DataInputStream h = new DataInputStream(new ByteArrayInputStream(hello));
      if (!MAGIC.equals(h.readUTF())) {
        throw new PeerProtocolException("the peer's HELLO is not a " + MAGIC + " HELLO");
      }
      boolean partyB = h.readBoolean();
      String fingerprint = h.readUTF();
      String protocol = h.readUTF();
      int sigma = h.readInt();
      int bins = h.readInt();
      long estimate = h.readLong();
      int parallelism = h.readInt();
      List<Column> keys = readColumns(h, 64);
      List<Column> revealed = readColumns(h, 4096);
      List<Column> named = readColumns(h, 4096);
      byte[] dhPublic = readBytes(h, 256);
      CertificateFactory cf = CertificateFactory.getInstance("X.509");
      List<X509Certificate> chain = new ArrayList<>();
      for (int i = count(h, 8); i > 0; i--) {
        chain.add((X509Certificate) cf.generateCertificate(
            new ByteArrayInputStream(readBytes(h, 64 * 1024))));
      }
      if (chain.isEmpty()) {
        throw new PeerProtocolException("the peer's HELLO carries no certificate");
      }
      me.verifyPeer(chain.get(0), expectedPeer);
      if (facts.peerCertificateSha256() != null) {
        // Pinning: another certificate the CA issued to the same name is not this session's peer.
        byte[] actual = PartyTrust.sha256(chain.get(0));
        if (!MessageDigest.isEqual(actual, facts.peerCertificateSha256())) {
          throw new HandshakeException("the certificate of '" + expectedPeer + "' (SHA-256 "
              + HexFormat.of().formatHex(actual) + ") is not the one the session names ("
              + HexFormat.of().formatHex(facts.peerCertificateSha256()) + ")");
        }
      }
      Signature v = Signature.getInstance(signatureAlgorithm(chain.get(0).getPublicKey()));
      v.initVerify(chain.get(0).getPublicKey());
      v.update(signedBytes(session, hello));
      if (!v.verify(signature)) {
        throw new HandshakeException("the peer's HELLO signature does not verify with the "
            + "certificate of '" + expectedPeer + "'");
      }
      if (sigma < 1 || sigma > 128 || bins < 0 || bins > BinPlan.MAX_BINS || estimate < 0
          || parallelism < 1) {
        throw new PeerProtocolException("the peer's HELLO has out-of-range values");
      }
      return new Hello(partyB, fingerprint, protocol, sigma, bins, estimate, parallelism,
          keys, revealed, named, dhPublic, chain, hello);
    } catch (IOException | IllegalArgumentException e) {
      throw new PeerProtocolException("the peer's HELLO is malformed: " + e.getMessage());
    } catch (GeneralSecurityException e) {
      throw new HandshakeException("the peer's HELLO does not verify: " + e.getMessage(), e);
    }
  }

  private static byte[] sign(PartyCredentials me, String session, byte[] hello)
      throws GeneralSecurityException {
    Signature s = Signature.getInstance(signatureAlgorithm(me.certificate().getPublicKey()));
    s.initSign(me.privateKey());
    s.update(signedBytes(session, hello));
    return s.sign();
  }

  private static byte[] signedBytes(String session, byte[] hello) {
    byte[] sess = (MAGIC + "\0" + session + "\0").getBytes(StandardCharsets.UTF_8);
    byte[] all = new byte[sess.length + hello.length];
    System.arraycopy(sess, 0, all, 0, sess.length);
    System.arraycopy(hello, 0, all, sess.length, hello.length);
    return all;
  }

  private static String signatureAlgorithm(PublicKey key) {
    return switch (key.getAlgorithm()) {
      case "EC" -> "SHA256withECDSA";
      case "RSA" -> "SHA256withRSA";
      case "Ed25519", "EdDSA" -> "Ed25519";
      default -> throw new IllegalArgumentException("unsupported key type " + key.getAlgorithm());
    };
  }

  private static byte[] withSignature(byte[] hello, byte[] signature) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      writeBytes(out, hello);
      writeBytes(out, signature);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return bytes.toByteArray();
  }

  private static void writeColumns(DataOutputStream out, List<Column> columns) throws IOException {
    out.writeInt(columns.size());
    for (Column c : columns) {
      out.writeUTF(c.name());
      out.writeUTF(c.type().name());
    }
  }

  private static List<Column> readColumns(DataInputStream in, int max) throws IOException {
    List<Column> columns = new ArrayList<>();
    for (int i = count(in, max); i > 0; i--) {
      columns.add(new Column(in.readUTF(), ColumnType.valueOf(in.readUTF()), true));
    }
    return columns;
  }

  private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
    out.writeInt(b.length);
    out.write(b);
  }

  private static byte[] readBytes(DataInputStream in, int max) throws IOException {
    int n = count(in, max);
    byte[] b = new byte[n];
    in.readFully(b);
    return b;
  }

  private static int count(DataInputStream in, int max) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > max) {
      throw new IOException("length " + n + " out of range");
    }
    return n;
  }

  /** The two jobs cannot run this session together; the message says why. */
  public static final class HandshakeException extends Exception {
    private static final long serialVersionUID = 1L;

    public HandshakeException(String message) {
      super(message);
    }

    public HandshakeException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
