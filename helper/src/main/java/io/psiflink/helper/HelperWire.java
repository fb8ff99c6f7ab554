package io.psiflink.helper;

import com.google.protobuf.ByteString;
import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.HelloCrypto;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.PartyTrust;
import io.psiflink.helper.proto.v1.HelperHello;
import io.psiflink.helper.proto.v1.PartyHello;
import io.psiflink.helper.proto.v1.Signed;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.Set;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The helper protocol's messages and cryptography, shared by {@link HelperClient} (the party) and
 * {@link HelperService} (the helper); helper.proto describes the wire. The handshake's cryptography
 * (signed hellos, certificate chains, X25519, HKDF) is the bridge's {@link HelloCrypto}, shared
 * with the provider of the multiparty join; the messages and labels here are the filter's.
 */
final class HelperWire {
  static final String MAGIC = "psi-flink helper v1";
  static final String CHUNK_AAD = "psi-flink helper v1 chunk";
  static final int TAG_BYTES = 16;

  /**
   * Kind of a sealed frame (its nonce and associated data carry it): party to helper. No honest
   * party sends one; kept so that a frame sealed in this direction never opens as another kind.
   */
  static final byte TO_HELPER = 0;

  /** Kind of a sealed frame: helper to party A, chunk c of m_σ. */
  static final byte TO_PARTY = 1;

  /** Kind of a sealed frame: helper to party, its 16-byte correlation seed (index 0). */
  static final byte SEED = 2;

  private HelperWire() {}

  /** The bridge channel of a party's stream to the helper. */
  static String channel(Role role) {
    return "prefilter-" + role.label();
  }

  /** The role whose channel this is, or null. */
  static Role roleOfChannel(String channel) {
    return switch (channel) {
      case "prefilter-A" -> Role.A;
      case "prefilter-B" -> Role.B;
      default -> null;
    };
  }

  /** The peer broke the protocol; the message says how, naming no secret. */
  static final class WireException extends Exception {
    private static final long serialVersionUID = 1L;

    WireException(String message) {
      super(message);
    }

    WireException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** A verified party HELLO. */
  record PartyHelloView(
      Role role,
      String party,
      String peer,
      int filterBits,
      byte[] dhPublic,
      byte[] helloBytes,
      byte[] helloSha256) {}

  /** A verified helper HELLO. */
  record HelperHelloView(byte[] dhPublic, byte[] helloBytes) {}

  static KeyPair x25519() {
    return HelloCrypto.x25519();
  }

  // ---- party side ----------------------------------------------------------------------------

  /** The encoded PartyHello. */
  static byte[] partyHello(HelperRequest request, PartyCredentials me, byte[] dhPublic) {
    PartyHello.Builder h =
        PartyHello.newBuilder()
            .setSession(request.session())
            .setRole(request.role().label())
            .setParty(me.partyName())
            .setPeer(request.peerParty())
            .setHelper(request.helperParty())
            .setFilterBits(request.filterBits())
            .setDhPublic(ByteString.copyFrom(dhPublic));
    HelloCrypto.addChain(h::addCertificateChain, me.chain());
    return h.build().toByteArray();
  }

  /** Checks the helper's answer to {@code myHello}. */
  static HelperHelloView verifyHelperHello(
      byte[] frame, PartyCredentials me, HelperRequest request, byte[] myHello)
      throws WireException {
    Signed signed = parseSigned(frame, "the helper's HELLO");
    HelperHello h = parse(signed.getHello().toByteArray(), HelperHello::parseFrom, "HELLO");
    X509Certificate leaf = leaf(h.getCertificateChainList(), "the helper's HELLO");
    try {
      me.verifyPeer(leaf, request.helperParty());
    } catch (BridgeException e) {
      throw new WireException("the helper's certificate is not acceptable: " + e.getMessage(), e);
    }
    try {
      HelloCrypto.checkPin(leaf, request.helperCertPin(), "helper '" + request.helperParty() + "'");
    } catch (HelloCrypto.Rejected e) {
      throw new WireException(e.getMessage(), e);
    }
    verifySignature(leaf, "helper hello", request.session(), signed, "the helper's HELLO");
    if (!h.getSession().equals(request.session())
        || !h.getParty().equals(me.partyName())
        || h.getFilterBits() != request.filterBits()
        || !MessageDigest.isEqual(h.getPartyHelloSha256().toByteArray(), sha(myHello))) {
      throw new WireException(
          "the helper's HELLO answers another request (session, party, filter bits or hello"
              + " differ)");
    }
    return new HelperHelloView(dh(h.getDhPublic()), signed.getHello().toByteArray());
  }

  // ---- helper side ---------------------------------------------------------------------------

  /**
   * Checks a party's HELLO on a stream of {@code session} and {@code channelRole}, whose peer the
   * relay authenticated as {@code relayPeer}.
   */
  static PartyHelloView verifyPartyHello(
      byte[] frame,
      String session,
      Role channelRole,
      String relayPeer,
      PartyCredentials helper,
      Set<String> allowedParties,
      Map<String, PartyTrust> partyTrust,
      int maxFilterBits)
      throws WireException {
    Signed signed = parseSigned(frame, "the HELLO");
    byte[] helloBytes = signed.getHello().toByteArray();
    PartyHello h = parse(helloBytes, PartyHello::parseFrom, "HELLO");
    // the certificate and the signature first: nothing else of an unsigned HELLO is believed
    X509Certificate leaf = leaf(h.getCertificateChainList(), "the HELLO");
    if (!allowedParties.contains(h.getParty())) {
      throw new WireException(
          "party " + quoted(h.getParty()) + " is not among the parties this helper serves");
    }
    if (!h.getParty().equals(relayPeer)) {
      throw new WireException(
          "the HELLO names party "
              + quoted(h.getParty())
              + " but the relay authenticated '"
              + relayPeer
              + "'");
    }
    try {
      helper.verifyPeer(leaf, h.getParty());
      PartyTrust own = partyTrust.get(h.getParty());
      if (own != null) {
        own.check(leaf); // that party's own CA: another organisation's CA cannot issue its name
      }
    } catch (BridgeException e) {
      throw new WireException("the party's certificate is not acceptable: " + e.getMessage(), e);
    }
    verifySignature(leaf, "party hello", session, signed, "the HELLO");
    if (!h.getSession().equals(session)) {
      throw new WireException("the HELLO is for another session than the stream's");
    }
    Role role;
    try {
      role = Role.twoParty(h.getRole());
    } catch (IllegalArgumentException e) {
      throw new WireException("the HELLO's role " + e.getMessage());
    }
    if (!role.equals(channelRole)) {
      throw new WireException(
          "the HELLO says party " + role.label() + " on the channel of " + channelRole.label());
    }
    if (!h.getHelper().equals(helper.partyName())) {
      throw new WireException(
          "the HELLO is for helper "
              + quoted(h.getHelper())
              + ", this is '"
              + helper.partyName()
              + "'");
    }
    if (h.getPeer().isEmpty() || h.getPeer().equals(h.getParty())) {
      throw new WireException("the HELLO names no other party as the peer");
    }
    int bits = h.getFilterBits();
    if (bits < HelperClient.MIN_FILTER_BITS || bits > maxFilterBits) {
      throw new WireException(
          "filter bits "
              + Integer.toUnsignedString(bits)
              + " outside "
              + HelperClient.MIN_FILTER_BITS
              + ".."
              + maxFilterBits
              + " (this helper's maximum)");
    }
    return new PartyHelloView(
        role, h.getParty(), h.getPeer(), bits, dh(h.getDhPublic()), helloBytes, sha(helloBytes));
  }

  /** The encoded HelperHello answering {@code party}. */
  static byte[] helperHello(
      String session, PartyHelloView party, PartyCredentials helper, byte[] dhPublic) {
    HelperHello.Builder h =
        HelperHello.newBuilder()
            .setSession(session)
            .setParty(party.party())
            .setFilterBits(party.filterBits())
            .setDhPublic(ByteString.copyFrom(dhPublic))
            .setPartyHelloSha256(ByteString.copyFrom(party.helloSha256()));
    HelloCrypto.addChain(h::addCertificateChain, helper.chain());
    return h.build().toByteArray();
  }

  // ---- both sides ----------------------------------------------------------------------------

  /** Signed{hello, signature over the labelled transcript}, encoded. */
  static byte[] sign(PartyCredentials me, String label, String session, byte[] hello) {
    return Signed.newBuilder()
        .setHello(ByteString.copyFrom(hello))
        .setSignature(ByteString.copyFrom(HelloCrypto.sign(me, MAGIC, label, session, hello)))
        .build()
        .toByteArray();
  }

  /** The stream's 32-byte frame key (see helper.proto). */
  static byte[] frameKey(
      PrivateKey mine, byte[] theirPublic, String session, byte[] partyHello, byte[] helperHello)
      throws WireException {
    try {
      return HelloCrypto.transcriptKey(
          mine,
          theirPublic,
          MAGIC,
          session,
          partyHello,
          helperHello,
          "psi-flink helper frame key v1");
    } catch (HelloCrypto.Rejected e) {
      throw new WireException(e.getMessage(), e);
    }
  }

  /**
   * AES-256-GCM sealing of frames under one stream's frame key; {@code kind} ({@link #TO_HELPER},
   * {@link #TO_PARTY}, {@link #SEED}) and the index are in the nonce and the associated data, so a
   * frame opens only as the kind and index it was sealed for. Not thread-safe.
   */
  static final class ChunkCipher {
    private final SecretKeySpec key;
    private final Cipher cipher;

    ChunkCipher(byte[] frameKey) {
      this.key = new SecretKeySpec(frameKey, "AES");
      try {
        this.cipher = Cipher.getInstance("AES/GCM/NoPadding");
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("AES-GCM unavailable in this JVM", e);
      }
    }

    byte[] seal(byte kind, int index, byte[] plain) {
      try {
        cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, nonce(kind, index)));
        cipher.updateAAD(aad(kind, index));
        return cipher.doFinal(plain);
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("AES-GCM sealing failed", e);
      }
    }

    /** Opens frame {@code index} of kind {@code kind}; null if it does not authenticate. */
    byte[] open(byte kind, int index, byte[] sealed) {
      if (sealed.length < TAG_BYTES) {
        return null;
      }
      try {
        cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(128, nonce(kind, index)));
        cipher.updateAAD(aad(kind, index));
        return cipher.doFinal(sealed);
      } catch (javax.crypto.AEADBadTagException e) {
        return null;
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("AES-GCM opening failed", e);
      }
    }

    private static byte[] nonce(byte kind, int index) {
      return ByteBuffer.allocate(12).put(kind).put(new byte[3]).putLong(index).array();
    }

    private static byte[] aad(byte kind, int index) {
      byte[] label = CHUNK_AAD.getBytes(StandardCharsets.US_ASCII);
      return ByteBuffer.allocate(label.length + 6)
          .put(label)
          .put((byte) 0)
          .put(kind)
          .putInt(index)
          .array();
    }
  }

  /** {@code words} as little-endian bytes. */
  static byte[] toBytes(long[] words, int count) {
    ByteBuffer b = ByteBuffer.allocate(count * 8).order(ByteOrder.LITTLE_ENDIAN);
    b.asLongBuffer().put(words, 0, count);
    return b.array();
  }

  /** Little-endian {@code bytes} into {@code words[0, bytes.length / 8)}. */
  static void toWords(byte[] bytes, long[] words) {
    ByteBuffer.wrap(bytes)
        .order(ByteOrder.LITTLE_ENDIAN)
        .asLongBuffer()
        .get(words, 0, bytes.length / 8);
  }

  static byte[] sha(byte[] bytes) {
    return HelloCrypto.sha256().digest(bytes);
  }

  // ---- internals -----------------------------------------------------------------------------

  private static <T> T parse(byte[] bytes, HelloCrypto.Parser<T> parser, String what)
      throws WireException {
    try {
      return HelloCrypto.parse(bytes, parser, what, "psiflink.helper.v1");
    } catch (HelloCrypto.Rejected e) {
      throw new WireException(e.getMessage(), e);
    }
  }

  private static Signed parseSigned(byte[] frame, String what) throws WireException {
    try {
      return HelloCrypto.parseSigned(
          frame,
          Signed::parseFrom,
          Signed::getHello,
          Signed::getSignature,
          what,
          "psiflink.helper.v1");
    } catch (HelloCrypto.Rejected e) {
      throw new WireException(e.getMessage(), e);
    }
  }

  private static X509Certificate leaf(java.util.List<ByteString> chain, String what)
      throws WireException {
    try {
      return HelloCrypto.leaf(chain, what);
    } catch (HelloCrypto.Rejected e) {
      throw new WireException(e.getMessage(), e);
    }
  }

  private static void verifySignature(
      X509Certificate leaf, String label, String session, Signed signed, String what)
      throws WireException {
    try {
      HelloCrypto.verify(
          leaf,
          MAGIC,
          label,
          session,
          signed.getHello().toByteArray(),
          signed.getSignature().toByteArray(),
          what);
    } catch (HelloCrypto.Rejected e) {
      throw new WireException(e.getMessage(), e);
    }
  }

  private static byte[] dh(ByteString key) throws WireException {
    try {
      return HelloCrypto.dhPublic(key);
    } catch (HelloCrypto.Rejected e) {
      throw new WireException(e.getMessage(), e);
    }
  }

  /** A peer's text for a message: at most 40 characters, control characters escaped. */
  static String quoted(String s) {
    return HelloCrypto.quoted(s);
  }
}
