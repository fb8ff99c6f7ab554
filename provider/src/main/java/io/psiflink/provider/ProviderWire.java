package io.psiflink.provider;

import com.google.protobuf.ByteString;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.HelloCrypto;
import io.psiflink.bridge.HelloCrypto.Rejected;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.nativepsi.PsiParams;
import io.psiflink.provider.proto.v1.BinHello;
import io.psiflink.provider.proto.v1.BinStart;
import io.psiflink.provider.proto.v1.PartyHello;
import io.psiflink.provider.proto.v1.ProviderHello;
import io.psiflink.provider.proto.v1.Signed;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The provider protocol's messages, shared by the parties' side ({@link ProviderClient}, {@link
 * ProviderLink}) and the provider ({@link ProviderService}); provider.proto describes the wire. The
 * handshake's cryptography is the bridge's {@link HelloCrypto}, as for the helper.
 */
final class ProviderWire {
  static final String MAGIC = "psi-flink provider v1";
  static final String PROTOCOL = "mpsi";

  /** The most parties the native protocol takes. */
  static final int MAX_PARTIES = 1024;

  /** The native protocol's bound on set_size (exclusive). */
  static final long NATIVE_SET_SIZE_LIMIT = 1L << 22;

  static final int NONCE_BYTES = 32;
  static final int ELEMENT_BYTES = 16;

  /** Chunk of a protocol message per frame: well below the relay's 4 MiB frame cap. */
  static final int CHUNK_BYTES = 1 << 20;

  /** Frame types, the first plaintext byte of a sealed frame. */
  static final byte PSI = 1;

  static final byte BIN_HELLO = 2;
  static final byte BIN_START = 3;
  static final byte DONE = 4;

  /** PSI frame header: type, phase, round, last. */
  static final int PSI_HEADER = 4;

  static final int MAX_PARAMS_CHARS = 512;
  private static final Set<String> RESERVED_PARAMS =
      Set.of("parties", "index", "instance", "set_size");
  private static final Pattern ID = Pattern.compile("[\\x21-\\x7e]{1,200}");
  private static final Pattern CHANNEL = Pattern.compile("mpsi-(setup|bin-(\\d{1,9}))-P(\\d{1,4})");

  private ProviderWire() {}

  // ---- names and parameters ------------------------------------------------------------------

  /** Checks a bridge id (session, party name): 1 to 200 printable ASCII characters, no spaces. */
  static void checkId(String id, String what) {
    if (!ID.matcher(id).matches()) {
      throw new IllegalArgumentException(
          what + " must be 1 to 200 printable ASCII characters without spaces");
    }
  }

  /** Checks the extra mpsi parameters: "k=v,..." without the keys the client sets. */
  static void checkParams(String params) {
    if (params.length() > MAX_PARAMS_CHARS) {
      throw new IllegalArgumentException(
          "protocolParams has " + params.length() + " characters, at most " + MAX_PARAMS_CHARS);
    }
    PsiParams p = PsiParams.parse(params);
    for (String key : p.asMap().keySet()) {
      if (RESERVED_PARAMS.contains(key)) {
        throw new IllegalArgumentException(
            "protocolParams must not set "
                + key
                + " (parties, index, instance and set_size come from the session and the bin)");
      }
    }
  }

  /** The parameters of a native mpsi session: the session's facts, then the extra ones. */
  static PsiParams sessionParams(
      int parties, int index, long setSize, byte[] instance, String extra) {
    PsiParams.Builder b = PsiParams.builder().with("parties", Integer.toString(parties));
    if (index >= 0) {
      b.with("index", Integer.toString(index));
    }
    b.with("set_size", Long.toString(setSize));
    if (instance != null) {
      b.instance(instance);
    }
    PsiParams.parse(extra).asMap().forEach(b::with);
    return b.build();
  }

  /** The setup stream's channel of party {@code index}. */
  static String setupChannel(int index) {
    return "mpsi-setup-P" + (index + 1);
  }

  /** The bin stream's channel of party {@code index}. */
  static String binChannel(int bin, int index) {
    return "mpsi-bin-" + bin + "-P" + (index + 1);
  }

  /** A parsed channel name: {@code bin} -1 for the setup stream. */
  record Channel(int bin, int index) {}

  /** The channel's bin and party index, or null if it is not a provider channel. */
  static Channel parseChannel(String channel) {
    Matcher m = CHANNEL.matcher(channel);
    if (!m.matches()) {
      return null;
    }
    int bin = m.group(2) == null ? -1 : Integer.parseInt(m.group(2));
    int index = Integer.parseInt(m.group(3)) - 1;
    // one spelling per stream (no leading zeros, P1 first)
    String canonical = bin < 0 ? setupChannel(index) : binChannel(bin, index);
    return index >= 0 && canonical.equals(channel) ? new Channel(bin, index) : null;
  }

  /** How messages name party {@code index}: {@code P2 ('org-b')}. */
  static String describe(int index, String name) {
    return "P" + (index + 1) + " ('" + name + "')";
  }

  // ---- party side of the setup ---------------------------------------------------------------

  /** The encoded PartyHello. */
  static byte[] partyHello(ProviderRequest r, PartyCredentials me, byte[] dhPublic) {
    PartyHello.Builder h =
        PartyHello.newBuilder()
            .setSession(r.session())
            .addAllParties(r.parties())
            .setIndex(r.index())
            .setProvider(r.provider())
            .setParams(r.protocolParams())
            .setDhPublic(ByteString.copyFrom(dhPublic));
    HelloCrypto.addChain(h::addCertificateChain, me.chain());
    return h.build().toByteArray();
  }

  /** Signed{hello, signature over the labelled transcript}, encoded. */
  static byte[] sign(PartyCredentials me, String label, String session, byte[] hello) {
    return Signed.newBuilder()
        .setHello(ByteString.copyFrom(hello))
        .setSignature(ByteString.copyFrom(HelloCrypto.sign(me, MAGIC, label, session, hello)))
        .build()
        .toByteArray();
  }

  /** A verified provider HELLO: its X25519 key and its bytes. */
  record ProviderHelloView(byte[] dhPublic, byte[] helloBytes) {}

  /** Checks the provider's answer to {@code myHello}. */
  static ProviderHelloView verifyProviderHello(
      byte[] frame, PartyCredentials me, ProviderRequest r, byte[] myHello) throws Rejected {
    Signed signed = parseSigned(frame, "the provider's HELLO");
    byte[] bytes = signed.getHello().toByteArray();
    ProviderHello h = parse(bytes, ProviderHello::parseFrom, "provider's HELLO");
    X509Certificate leaf = HelloCrypto.leaf(h.getCertificateChainList(), "the provider's HELLO");
    try {
      me.verifyPeer(leaf, r.provider());
    } catch (BridgeException e) {
      throw new Rejected("the provider's certificate is not acceptable: " + e.getMessage(), e);
    }
    HelloCrypto.checkPin(leaf, r.providerCertSha256(), "provider '" + r.provider() + "'");
    HelloCrypto.verify(
        leaf,
        MAGIC,
        "provider hello",
        r.session(),
        bytes,
        signed.getSignature().toByteArray(),
        "the provider's HELLO");
    if (!h.getSession().equals(r.session())
        || !h.getParty().equals(r.party())
        || h.getIndex() != r.index()
        || h.getParties() != r.parties().size()
        || !MessageDigest.isEqual(h.getPartyHelloSha256().toByteArray(), sha(myHello))) {
      throw new Rejected(
          "the provider's HELLO answers another request (session, party, index, party count or"
              + " hello differ)");
    }
    return new ProviderHelloView(HelloCrypto.dhPublic(h.getDhPublic()), bytes);
  }

  // ---- provider side of the setup ------------------------------------------------------------

  /** A verified party HELLO. */
  record PartyHelloView(
      String party,
      List<String> parties,
      int index,
      String params,
      byte[] dhPublic,
      byte[] helloBytes) {
    String describe() {
      return ProviderWire.describe(index, party);
    }
  }

  /**
   * Checks a party's HELLO on the setup stream of {@code session} and channel index {@code
   * channelIndex}, whose peer the relay authenticated as {@code relayPeer}.
   */
  static PartyHelloView verifyPartyHello(
      byte[] frame,
      String session,
      int channelIndex,
      String relayPeer,
      PartyCredentials provider,
      Set<String> allowedParties,
      int maxParties)
      throws Rejected {
    Signed signed = parseSigned(frame, "the HELLO");
    byte[] bytes = signed.getHello().toByteArray();
    PartyHello h = parse(bytes, PartyHello::parseFrom, "HELLO");
    // the certificate and the signature first: nothing else of an unsigned HELLO is believed
    X509Certificate leaf = HelloCrypto.leaf(h.getCertificateChainList(), "the HELLO");
    int n = h.getPartiesCount();
    if (h.getIndex() != channelIndex || channelIndex >= n) {
      throw new Rejected(
          "the HELLO gives index "
              + Integer.toUnsignedString(h.getIndex())
              + " of "
              + n
              + " parties on the channel of P"
              + (channelIndex + 1));
    }
    String name = h.getParties(channelIndex);
    if (!name.equals(relayPeer)) {
      throw new Rejected(
          "the HELLO names "
              + HelloCrypto.quoted(name)
              + " at its index "
              + channelIndex
              + " but the relay authenticated '"
              + relayPeer
              + "'");
    }
    if (!allowedParties.contains(name)) {
      throw new Rejected("party '" + name + "' is not among the parties this provider serves");
    }
    try {
      provider.verifyPeer(leaf, name);
    } catch (BridgeException e) {
      throw new Rejected("the party's certificate is not acceptable: " + e.getMessage(), e);
    }
    HelloCrypto.verify(
        leaf,
        MAGIC,
        "party hello",
        session,
        bytes,
        signed.getSignature().toByteArray(),
        "the HELLO");
    if (!h.getSession().equals(session)) {
      throw new Rejected("the HELLO is for another session than the stream's");
    }
    if (!h.getProvider().equals(provider.partyName())) {
      throw new Rejected(
          "the HELLO is for provider "
              + HelloCrypto.quoted(h.getProvider())
              + ", this is '"
              + provider.partyName()
              + "'");
    }
    if (n < 2 || n > maxParties) {
      throw new Rejected(
          "the HELLO names " + n + " parties, this provider serves 2 to " + maxParties);
    }
    List<String> parties = List.copyOf(h.getPartiesList());
    for (String p : parties) {
      if (!allowedParties.contains(p)) {
        throw new Rejected(
            "the HELLO names party "
                + HelloCrypto.quoted(p)
                + ", which is not among the parties this provider serves");
      }
    }
    if (new HashSet<>(parties).size() != n) {
      throw new Rejected("the HELLO names a party twice");
    }
    String params = h.getParams();
    try {
      checkParams(params);
    } catch (IllegalArgumentException e) {
      throw new Rejected(
          "the HELLO's parameters "
              + HelloCrypto.quoted(params, 100)
              + " are refused: "
              + HelloCrypto.quoted(e.getMessage(), 200));
    }
    return new PartyHelloView(
        name, parties, channelIndex, params, HelloCrypto.dhPublic(h.getDhPublic()), bytes);
  }

  /** The encoded ProviderHello answering {@code party}. */
  static byte[] providerHello(
      String session, PartyHelloView party, PartyCredentials provider, byte[] dhPublic) {
    ProviderHello.Builder h =
        ProviderHello.newBuilder()
            .setSession(session)
            .setParty(party.party())
            .setIndex(party.index())
            .setParties(party.parties().size())
            .setDhPublic(ByteString.copyFrom(dhPublic))
            .setPartyHelloSha256(ByteString.copyFrom(sha(party.helloBytes())));
    HelloCrypto.addChain(h::addCertificateChain, provider.chain());
    return h.build().toByteArray();
  }

  /** The party's link key K (provider.proto). */
  static byte[] linkKey(
      PrivateKey mine, byte[] theirPublic, String session, byte[] partyHello, byte[] providerHello)
      throws Rejected {
    return HelloCrypto.transcriptKey(
        mine,
        theirPublic,
        MAGIC,
        session,
        partyHello,
        providerHello,
        "psi-flink provider link key v1");
  }

  // ---- bins ----------------------------------------------------------------------------------

  /** The plaintext of a BIN_HELLO frame. */
  static byte[] binHello(int bin, int attempt, long demand) {
    return typed(
        BIN_HELLO,
        BinHello.newBuilder()
            .setBin(bin)
            .setAttempt(attempt)
            .setSetSizeDemand(demand)
            .build()
            .toByteArray());
  }

  /** The BinHello of a BIN_HELLO frame's plaintext. */
  static BinHello parseBinHello(byte[] plain) throws Rejected {
    return parse(body(plain, BIN_HELLO, "BIN_HELLO"), BinHello::parseFrom, "BIN_HELLO");
  }

  /** The plaintext of a BIN_START frame. */
  static byte[] binStart(long setSize, List<byte[]> partyNonces) {
    BinStart.Builder b = BinStart.newBuilder().setSetSize(setSize);
    partyNonces.forEach(x -> b.addPartyNonces(ByteString.copyFrom(x)));
    return typed(BIN_START, b.build().toByteArray());
  }

  /** The BinStart of a BIN_START frame's plaintext. */
  static BinStart parseBinStart(byte[] plain) throws Rejected {
    return parse(body(plain, BIN_START, "BIN_START"), BinStart::parseFrom, "BIN_START");
  }

  /** The instance of a run (provider.proto): the same at every role, fresh per run. */
  static byte[] instance(
      String session,
      int bin,
      int attempt,
      long setSize,
      byte[] providerNonce,
      List<byte[]> partyNonces) {
    MessageDigest d = HelloCrypto.sha256();
    d.update("psi-flink mpsi instance v1".getBytes(StandardCharsets.US_ASCII));
    d.update((byte) 0);
    d.update(context(session, bin, attempt));
    d.update(ByteBuffer.allocate(8).putLong(setSize).array());
    d.update(providerNonce);
    partyNonces.forEach(d::update);
    return d.digest();
  }

  /** {@code u16 len session (UTF-8) i32 bin i32 attempt}: bound into keys and the instance. */
  static byte[] context(String session, int bin, int attempt) {
    byte[] s = session.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(2 + s.length + 8)
        .putShort((short) s.length)
        .put(s)
        .putInt(bin)
        .putInt(attempt)
        .array();
  }

  /** A DONE frame's plaintext. */
  static byte[] done() {
    return new byte[] {DONE};
  }

  /** Checks that {@code plain} is a DONE frame; {@code who} names the sender. */
  static void expectDone(byte[] plain, String who) throws Rejected {
    if (plain == null) {
      throw new Rejected(who + " ended the stream before its DONE");
    }
    if (plain.length != 1 || plain[0] != DONE) {
      throw new Rejected(who + " sent " + describeFrame(plain) + " where its DONE was due");
    }
  }

  /** A frame's type for a message: its name, never its content. */
  static String describeFrame(byte[] plain) {
    if (plain.length == 0) {
      return "an empty frame";
    }
    return switch (plain[0]) {
      case PSI -> "a PSI frame of " + plain.length + " bytes";
      case BIN_HELLO -> "a BIN_HELLO";
      case BIN_START -> "a BIN_START";
      case DONE -> "a DONE of " + plain.length + " bytes";
      default -> "a frame of unknown type " + (plain[0] & 0xff);
    };
  }

  static byte[] sha(byte[] bytes) {
    return HelloCrypto.sha256().digest(bytes);
  }

  // ---- internals -----------------------------------------------------------------------------

  private static <T> T parse(byte[] bytes, HelloCrypto.Parser<T> parser, String what)
      throws Rejected {
    return HelloCrypto.parse(bytes, parser, what, "psiflink.provider.v1");
  }

  private static Signed parseSigned(byte[] frame, String what) throws Rejected {
    return HelloCrypto.parseSigned(
        frame,
        Signed::parseFrom,
        Signed::getHello,
        Signed::getSignature,
        what,
        "psiflink.provider.v1");
  }

  private static byte[] typed(byte type, byte[] body) {
    byte[] out = new byte[1 + body.length];
    out[0] = type;
    System.arraycopy(body, 0, out, 1, body.length);
    return out;
  }

  private static byte[] body(byte[] plain, byte type, String what) throws Rejected {
    if (plain.length == 0 || plain[0] != type) {
      throw new Rejected("expected a " + what + ", got " + describeFrame(plain));
    }
    return java.util.Arrays.copyOfRange(plain, 1, plain.length);
  }
}
