package io.psiflink.jobs.session;

import com.google.protobuf.ByteString;
import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.JoinMode;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.Prefilter;
import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.PartyTrust;
import io.psiflink.jobs.bin.BinPlan;
import io.psiflink.jobs.control.v1.SessionHello;
import io.psiflink.jobs.control.v1.SignedSessionHello;
import io.psiflink.jobs.prefilter.PrefilterPlan;
import io.psiflink.jobs.psi.ControlMessages;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session's control handshake between the two parties' jobs, on the bridge stream (session,
 * "control"), before either job reads a row:
 *
 * <ol>
 *   <li>both send a signed HELLO ({@code SignedSessionHello} of control.proto): their role, the
 *       query fingerprint, protocol, σ, requested bin count, a size estimate, key column types,
 *       every column of their table the query names (in table order), an ephemeral X25519 public
 *       key and their certificate chain; the signature (by the party's TLS key) covers the session
 *       id and the HELLO, so the bridge relay can neither read nor alter the key agreement;
 *   <li>both check the peer's certificate (trusted CA, expected party name and, when the session
 *       names it, its SHA-256 fingerprint) and signature, and that both run the same query with
 *       compatible key types;
 *   <li>both derive the token key, bin seed and bin frame key with HKDF from the X25519 secret,
 *       salted with the hash of both HELLOs: no coordinator or relay ever holds them;
 *   <li>both run the protocol's setup rounds once, sealed under the frame key; every bin imports
 *       the result (unless the protocol's setup depends on a bin's set, as ECDH's does: then every
 *       bin runs it).
 * </ol>
 */
public final class SessionHandshake {
  private static final Logger LOG = LoggerFactory.getLogger(SessionHandshake.class);
  private static final String MAGIC = "psi-flink control v1";

  /** Longest HELLO accepted (its certificates make most of it). */
  private static final int MAX_HELLO_BYTES = 1 << 20;

  /**
   * This party's side of the facts both must agree on. {@code peerCertificateSha256}: the SHA-256
   * of the peer's certificate (DER) as the session names it, or null to accept any certificate of
   * {@code expectedPeer} from a trusted CA. {@code multiparty}: the group of an n-party session,
   * null in a two-party one.
   */
  public record LocalFacts(
      Role role,
      String expectedPeer,
      String fingerprint,
      String protocol,
      String protocolParams,
      JoinMode mode,
      int labelBytes,
      int sigma,
      int binsRequested,
      long sizeEstimate,
      int parallelism,
      List<Column> keys,
      List<Column> revealed,
      List<Column> named,
      byte[] peerCertificateSha256,
      PrefilterRequest prefilter,
      Multiparty multiparty) {

    public LocalFacts {
      prefilter = prefilter == null ? PrefilterRequest.NONE : prefilter;
    }

    /** The same facts for the pairwise handshake with another expected peer. */
    public LocalFacts withPeer(String peer, byte[] peerSha256) {
      return new LocalFacts(
          role,
          peer,
          fingerprint,
          protocol,
          protocolParams,
          mode,
          labelBytes,
          sigma,
          binsRequested,
          sizeEstimate,
          parallelism,
          keys,
          revealed,
          named,
          peerSha256,
          prefilter,
          multiparty);
    }

    /** Facts of a session without a prefilter. */
    public LocalFacts(
        Role role,
        String expectedPeer,
        String fingerprint,
        String protocol,
        String protocolParams,
        JoinMode mode,
        int labelBytes,
        int sigma,
        int binsRequested,
        long sizeEstimate,
        int parallelism,
        List<Column> keys,
        List<Column> revealed,
        List<Column> named,
        byte[] peerCertificateSha256) {
      this(
          role,
          expectedPeer,
          fingerprint,
          protocol,
          protocolParams,
          mode,
          labelBytes,
          sigma,
          binsRequested,
          sizeEstimate,
          parallelism,
          keys,
          revealed,
          named,
          peerCertificateSha256,
          PrefilterRequest.NONE,
          null);
    }
  }

  /**
   * The group of an n-party session, which every pairwise HELLO names so that all parties know they
   * are in the same one: every party's name in index order and the provider's.
   */
  public record Multiparty(List<String> parties, String provider) {
    public Multiparty {
      parties = List.copyOf(parties);
      java.util.Objects.requireNonNull(provider, "provider");
    }
  }

  /**
   * What this party asks of the prefilter: {@code filterBits} and {@code hashes} 0 for automatic,
   * {@code helper} the helper's party name (null with {@link Prefilter#NONE}), {@code overlapPpm}
   * with {@link Prefilter#AUTO} the expected overlap in millionths (0 otherwise). Both parties'
   * must be equal.
   */
  public record PrefilterRequest(
      Prefilter prefilter, int filterBits, int hashes, String helper, int overlapPpm) {
    public static final PrefilterRequest NONE = new PrefilterRequest(Prefilter.NONE, 0, 0, null, 0);

    public PrefilterRequest {
      java.util.Objects.requireNonNull(prefilter, "prefilter");
      helper = prefilter == Prefilter.NONE ? null : helper;
      if (prefilter == Prefilter.NONE) {
        filterBits = 0;
        hashes = 0;
      }
      if (prefilter != Prefilter.AUTO) {
        overlapPpm = 0; // only auto reads it: a differing hint does not fail the handshake
      }
      if (overlapPpm < 0 || overlapPpm > PPM) {
        throw new IllegalArgumentException("the expected overlap lies in [0, 1]");
      }
    }

    /** A request with {@link Prefilter#HELPER} or {@link Prefilter#NONE}. */
    public PrefilterRequest(Prefilter prefilter, int filterBits, int hashes, String helper) {
      this(prefilter, filterBits, hashes, helper, 0);
    }

    static final int PPM = 1_000_000;

    /** A share in [0, 1] in millionths, as the HELLO carries it. */
    public static int ppm(double share) {
      return (int) Math.round(share * PPM);
    }

    String describe() {
      return prefilter == Prefilter.NONE
          ? "no prefilter"
          : "prefilter "
              + prefilter.text()
              + " '"
              + helper
              + "' (L "
              + (filterBits == 0 ? "auto" : filterBits)
              + ", k "
              + (hashes == 0 ? "auto" : hashes)
              + (prefilter == Prefilter.AUTO
                  ? ", expected overlap " + overlapPpm / (double) PPM
                  : "")
              + ")";
    }
  }

  /**
   * A resumed run's part of the handshake ({@link ResumeState}): the tag both parties must send
   * alike, the bin count of the first run, and (party A's, else null) the bins A committed.
   */
  public record Resume(byte[] tag, int bins, java.util.BitSet done) {
    /** A first run. */
    public static final Resume NONE = new Resume(new byte[0], 0, null);

    public boolean resumes() {
      return tag.length > 0;
    }

    byte[] doneBytes() {
      if (done == null) {
        return new byte[0];
      }
      byte[] b = new byte[(bins + 7) / 8];
      byte[] set = done.toByteArray();
      System.arraycopy(set, 0, b, 0, Math.min(set.length, b.length));
      return b;
    }
  }

  record Hello(
      Role role,
      String fingerprint,
      String protocol,
      JoinMode mode,
      int labelBytes,
      int sigma,
      int binsRequested,
      long sizeEstimate,
      int parallelism,
      List<Column> keys,
      List<Column> revealed,
      List<Column> named,
      byte[] dhPublic,
      List<X509Certificate> chain,
      byte[] bytes,
      PrefilterRequest prefilter,
      Multiparty multiparty,
      byte[] resumeTag,
      byte[] resumedBins) {}

  /** The peer's verified HELLO and the pseudorandom key of both HELLOs' X25519 agreement. */
  record Exchange(Hello peer, byte[] prk) {}

  private SessionHandshake() {}

  public static SessionSecrets run(
      BridgeClient client, String session, PartyCredentials me, LocalFacts facts)
      throws BridgeException, PeerProtocolException, HandshakeException {
    return run(client, session, me, facts, Resume.NONE);
  }

  /**
   * The handshake of a first run ({@link Resume#NONE}) or of a resumed one: then both parties must
   * resume the same run, the bin count is the first run's, and the secrets name the bins A
   * committed ({@link SessionSecrets#resumedBins}). The keys are fresh either way: the caller takes
   * the token key and bin seed of its {@link ResumeState}.
   */
  public static SessionSecrets run(
      BridgeClient client, String session, PartyCredentials me, LocalFacts facts, Resume resume)
      throws BridgeException, PeerProtocolException, HandshakeException {
    try (BridgeStream stream = client.open(session, "control")) {
      try {
        SessionSecrets s = run(stream, session, me, facts, resume);
        stream.finish();
        if (stream.receive() != null) {
          throw new PeerProtocolException("peer sent frames after the setup");
        }
        return s;
      } catch (PeerProtocolException | HandshakeException | RuntimeException e) {
        stream.abort("party " + facts.role().label() + " stopped the handshake: " + e.getMessage());
        throw e;
      }
    }
  }

  static SessionSecrets run(
      BridgeStream stream, String session, PartyCredentials me, LocalFacts facts)
      throws BridgeException, PeerProtocolException, HandshakeException {
    return run(stream, session, me, facts, Resume.NONE);
  }

  static SessionSecrets run(
      BridgeStream stream, String session, PartyCredentials me, LocalFacts facts, Resume resume)
      throws BridgeException, PeerProtocolException, HandshakeException {
    Exchange x = exchangeHellos(stream, session, me, facts, resume);
    Hello peer = x.peer();
    PrefilterPlan prefilter = agreePrefilter(facts, peer);
    int bins = agree(facts, peer, prefilter);
    java.util.BitSet resumed = agreeResume(facts, resume, peer, bins, session);
    byte[] prk = x.prk();
    byte[] tokenKey = Hkdf.expand(prk, "token key", 32);
    byte[] binSeed = Hkdf.expand(prk, "bin seed", 16);
    // Seals every bin frame (and the setup rounds below) end to end: see SealedBinStream.
    byte[] frameKey = Hkdf.expand(prk, "bin frame key", 32);
    // The prefilter's position key (FF1 key and hash key): only the two parties hold it.
    byte[] filterKey = prefilter == null ? null : Hkdf.expand(prk, "prefilter filter key", 32);
    java.util.Arrays.fill(prk, (byte) 0);

    // A protocol whose setup depends on a bin's set runs it in every bin instead.
    byte[] setup =
        ProtocolInfo.byName(facts.protocol()).setupNeedsSenderSet()
            ? null
            : runSetup(stream, facts, frameKey);
    return new SessionSecrets(
        tokenKey,
        binSeed,
        frameKey,
        setup,
        bins,
        facts.expectedPeer(),
        peer.keys,
        peer.revealed,
        peer.named,
        prefilter,
        filterKey,
        resumed);
  }

  /**
   * A resumed run's check of the peer's HELLO: both resume (equal tags, compared in constant time),
   * with the first run's bin count; returns the bins A committed (from A's HELLO at B), or null in
   * a first run.
   */
  static java.util.BitSet agreeResume(
      LocalFacts me, Resume resume, Hello peer, int bins, String session)
      throws HandshakeException, PeerProtocolException {
    boolean peerResumes = peer.resumeTag.length > 0;
    if (!resume.resumes() && !peerResumes) {
      return null;
    }
    if (!resume.resumes()) {
      throw new HandshakeException(
          "the peer resumes an earlier run of session '"
              + session
              + "', this party starts a new one: resume both or neither");
    }
    if (!peerResumes) {
      throw new HandshakeException(
          "this party resumes an earlier run of session '"
              + session
              + "', the peer starts a new one: resume both or neither");
    }
    if (!MessageDigest.isEqual(resume.tag(), peer.resumeTag)) {
      throw new HandshakeException(
          "the parties resume different runs of session '"
              + session
              + "' (their resume states hold other keys): delete both work directories' states and"
              + " run the join again");
    }
    if (bins != resume.bins()) {
      throw new HandshakeException(
          "the resumed run agreed on " + bins + " bins, the first run on " + resume.bins());
    }
    if (me.role().index() == 0) {
      return resume.done() == null ? new java.util.BitSet() : resume.done();
    }
    byte[] b = peer.resumedBins;
    if (b.length != (bins + 7) / 8) {
      throw new PeerProtocolException(
          "the peer's HELLO names committed bins in "
              + b.length
              + " bytes, for "
              + bins
              + " bins "
              + (bins + 7) / 8);
    }
    java.util.BitSet done = java.util.BitSet.valueOf(b);
    if (done.length() > bins) {
      throw new PeerProtocolException(
          "the peer's HELLO names bin " + (done.length() - 1) + " committed, of " + bins);
    }
    return done;
  }

  static Exchange exchangeHellos(
      BridgeStream stream, String session, PartyCredentials me, LocalFacts facts)
      throws BridgeException, PeerProtocolException, HandshakeException {
    return exchangeHellos(stream, session, me, facts, Resume.NONE);
  }

  /**
   * Sends this party's signed HELLO, verifies the peer's ({@link #verify}) and derives the
   * pseudorandom key of their X25519 agreement, salted with the hash of both HELLOs in party order:
   * the part every handshake shares, two-party or pairwise in an n-party session.
   */
  static Exchange exchangeHellos(
      BridgeStream stream, String session, PartyCredentials me, LocalFacts facts, Resume resume)
      throws BridgeException, PeerProtocolException, HandshakeException {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("X25519");
      KeyPair dh = g.generateKeyPair();
      byte[] hello = encodeHello(facts, resume, dh.getPublic().getEncoded(), me.chain());
      byte[] signature = sign(me, session, hello);
      stream.send(
          Frames.of(
              Frames.HELLO,
              SignedSessionHello.newBuilder()
                  .setHello(ByteString.copyFrom(hello))
                  .setSignature(ByteString.copyFrom(signature))
                  .build()));

      byte[] body = Frames.body(stream.receive(), Frames.HELLO, "waiting for the peer's HELLO");
      Hello peer = verify(body, session, me, facts);
      boolean first = facts.role().index() < peer.role.index();
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(MAGIC.getBytes(StandardCharsets.US_ASCII));
      sha.update(session.getBytes(StandardCharsets.UTF_8));
      sha.update(first ? hello : peer.bytes);
      sha.update(first ? peer.bytes : hello);
      KeyAgreement ka = KeyAgreement.getInstance("X25519");
      ka.init(dh.getPrivate());
      ka.doPhase(
          KeyFactory.getInstance("X25519").generatePublic(new X509EncodedKeySpec(peer.dhPublic)),
          true);
      return new Exchange(peer, Hkdf.extract(sha.digest(), ka.generateSecret()));
    } catch (GeneralSecurityException e) {
      throw new HandshakeException("key agreement failed: " + e.getMessage(), e);
    }
  }

  private static byte[] runSetup(BridgeStream stream, LocalFacts facts, byte[] frameKey)
      throws BridgeException, PeerProtocolException {
    PsiParams params =
        PsiParams.parse(facts.protocolParams()).toBuilder().receiverSize(1).senderSize(1).build();
    try (PsiSession s =
            PsiSession.create(
                facts.protocol(),
                ProtocolRoles.of(facts.role(), ProtocolInfo.byName(facts.protocol())),
                params);
        SealedBinStream sealed =
            new SealedBinStream(stream, frameKey, SealedBinStream.CONTROL, facts.role())) {
      // the setup rounds come after the signed HELLOs: sealed, so the relay cannot alter them
      StreamRounds.run(s, PsiPhase.SETUP, sealed);
      return s.exportSetup();
    }
  }

  /**
   * Checks both HELLOs describe the same join and returns the bin count m: requested, or chosen
   * from the larger size estimate (with a pre-filter, from the bound on the candidates: the bins
   * hold only those).
   */
  static int agree(LocalFacts me, Hello peer, PrefilterPlan prefilter) throws HandshakeException {
    Role expected = expectedPeerRole(me);
    if (!peer.role.equals(expected)) {
      throw new HandshakeException(
          peer.role.equals(me.role())
              ? "both jobs play party " + me.role().label()
              : "the peer plays " + peer.role.label() + ", expected " + expected.label());
    }
    if (!java.util.Objects.equals(peer.multiparty, me.multiparty())) {
      throw new HandshakeException(
          "the parties name different groups: "
              + describe(me.multiparty())
              + " here, "
              + describe(peer.multiparty)
              + " at the peer");
    }
    if (!peer.fingerprint.equals(me.fingerprint())) {
      throw new HandshakeException(
          "the parties run different queries (fingerprints "
              + me.fingerprint()
              + " here, "
              + peer.fingerprint
              + " at the peer)");
    }
    if (!peer.protocol.equals(me.protocol()) || peer.sigma != me.sigma()) {
      throw new HandshakeException(
          "protocol/σ differ: "
              + me.protocol()
              + "/"
              + me.sigma()
              + " here, "
              + peer.protocol
              + "/"
              + peer.sigma
              + " at the peer");
    }
    if (peer.mode != me.mode()
        || (me.mode() == JoinMode.LABELED && peer.labelBytes != me.labelBytes())) {
      throw new HandshakeException(
          "modes differ: "
              + describe(me.mode(), me.labelBytes())
              + " here, "
              + describe(peer.mode, peer.labelBytes)
              + " at the peer");
    }
    if (peer.keys.size() != me.keys().size()) {
      throw new HandshakeException(
          "the peer joins on "
              + peer.keys.size()
              + " key columns, this party on "
              + me.keys().size());
    }
    for (int i = 0; i < peer.keys.size(); i++) {
      Column mine = me.keys().get(i);
      Column theirs = peer.keys.get(i);
      if (mine.type().keyClass() != theirs.type().keyClass()) {
        boolean meFirst = me.role().index() < peer.role.index();
        Column a = meFirst ? mine : theirs;
        Column b = meFirst ? theirs : mine;
        String qa =
            me.multiparty() == null ? "a." : "party " + (meFirst ? me.role() : peer.role) + " ";
        String qb =
            me.multiparty() == null ? "b." : "party " + (meFirst ? peer.role : me.role()) + " ";
        throw new HandshakeException(
            "ON: "
                + qa
                + a.name()
                + " ("
                + a.type().sqlName()
                + ") = "
                + qb
                + b.name()
                + " ("
                + b.type().sqlName()
                + "): these types do not compare");
      }
    }
    if (me.binsRequested() > 0
        && peer.binsRequested > 0
        && me.binsRequested() != peer.binsRequested) {
      throw new HandshakeException(
          "bin counts differ: "
              + me.binsRequested()
              + " here, "
              + peer.binsRequested
              + " at the peer");
    }
    if (me.binsRequested() > 0 || peer.binsRequested > 0) {
      return Math.max(me.binsRequested(), peer.binsRequested);
    }
    long n = Math.max(me.sizeEstimate(), peer.sizeEstimate);
    if (prefilter != null) {
      n = prefilter.candidateBound(me.sizeEstimate(), peer.sizeEstimate);
    }
    return BinPlan.autoBins(n, Math.max(me.parallelism(), peer.parallelism));
  }

  /**
   * Checks both parties ask for the same prefilter and returns its plan (null without one): L and k
   * from the requests or, when 0, from both size estimates by the same rule at both. With {@link
   * Prefilter#AUTO} the plan only if the cost model expects it to save time at the requests'
   * expected overlap ({@link PrefilterPlan#pays}), so both parties decide alike from public facts.
   */
  private static PrefilterPlan agreePrefilter(LocalFacts me, Hello peer) throws HandshakeException {
    PrefilterRequest mine = me.prefilter();
    if (!mine.equals(peer.prefilter)) {
      throw new HandshakeException(
          "prefilters differ: "
              + mine.describe()
              + " here, "
              + peer.prefilter.describe()
              + " at the peer");
    }
    if (mine.prefilter() == Prefilter.NONE) {
      return null;
    }
    boolean a = me.role().equals(Role.A);
    long nA = a ? me.sizeEstimate() : peer.sizeEstimate;
    long nB = a ? peer.sizeEstimate : me.sizeEstimate();
    PrefilterPlan plan = PrefilterPlan.choose(mine.filterBits(), mine.hashes(), nA, nB);
    if (mine.prefilter() != Prefilter.AUTO) {
      return plan;
    }
    double overlap = mine.overlapPpm() / (double) PrefilterRequest.PPM;
    boolean pays = plan.pays(nA, nB, overlap);
    LOG.info(
        "party {}: prefilter auto: {} ({}; sizes {} and {}, expected overlap {})",
        me.role().label(),
        pays ? "with the helper" : "without the helper",
        plan.describeChoice(nA, nB, overlap),
        nA,
        nB,
        overlap);
    return pays ? plan : null;
  }

  /** The role the peer of {@code me} plays: the other of A and B, or its index in the group. */
  private static Role expectedPeerRole(LocalFacts me) throws HandshakeException {
    if (me.multiparty() == null) {
      return me.role().peer();
    }
    List<String> parties = me.multiparty().parties();
    int i = parties.indexOf(me.expectedPeer());
    if (i < 0) {
      throw new HandshakeException("'" + me.expectedPeer() + "' is not a party of the session");
    }
    return Role.party(i, parties.size());
  }

  private static String describe(Multiparty m) {
    return m == null
        ? "a two-party join"
        : "parties " + m.parties() + " with provider '" + m.provider() + "'";
  }

  private static byte[] encodeHello(
      LocalFacts f, Resume resume, byte[] dhPublic, List<X509Certificate> chain)
      throws GeneralSecurityException {
    SessionHello.Builder h =
        SessionHello.newBuilder()
            .setRole(ControlMessages.roleId(f.role()))
            .setFingerprint(f.fingerprint())
            .setProtocol(f.protocol())
            .setSigma(f.sigma())
            .setMode(f.mode().text())
            .setLabelBytes(f.labelBytes())
            .setBinsRequested(f.binsRequested())
            .setSizeEstimate(f.sizeEstimate())
            .setParallelism(f.parallelism())
            .addAllKeys(toWire(f.keys()))
            .addAllRevealed(toWire(f.revealed()))
            .addAllNamed(toWire(f.named()))
            .setDhPublic(ByteString.copyFrom(dhPublic))
            .setPrefilter(f.prefilter().prefilter().text())
            .setFilterBits(f.prefilter().filterBits())
            .setFilterHashes(f.prefilter().hashes())
            .setHelper(f.prefilter().helper() == null ? "" : f.prefilter().helper())
            .setExpectedOverlapPpm(f.prefilter().overlapPpm())
            .setResumeTag(ByteString.copyFrom(resume.tag()))
            .setResumedBins(ByteString.copyFrom(resume.doneBytes()));
    if (f.multiparty() != null) {
      h.addAllParties(f.multiparty().parties()).setProvider(f.multiparty().provider());
    }
    for (X509Certificate c : chain) {
      h.addCertificateChain(ByteString.copyFrom(c.getEncoded()));
    }
    return h.build().toByteArray();
  }

  private static Hello verify(byte[] body, String session, PartyCredentials me, LocalFacts facts)
      throws PeerProtocolException, HandshakeException, BridgeException {
    String expectedPeer = facts.expectedPeer();
    try {
      SignedSessionHello signed =
          ControlMessages.parse(SignedSessionHello.parser(), body, "the peer's HELLO");
      byte[] hello = signed.getHello().toByteArray();
      byte[] signature = signed.getSignature().toByteArray();
      if (hello.length > MAX_HELLO_BYTES || signature.length == 0 || signature.length > 4096) {
        throw new PeerProtocolException(
            "the peer's HELLO has "
                + hello.length
                + " bytes and a "
                + "signature of "
                + signature.length
                + " bytes (at most "
                + MAX_HELLO_BYTES
                + " and 1 to 4096)");
      }
      SessionHello h = ControlMessages.parse(SessionHello.parser(), hello, "the peer's HELLO");
      // The certificate and the signature first: nothing else of an unsigned HELLO is believed.
      if (h.getCertificateChainCount() == 0) {
        throw new PeerProtocolException("the peer's HELLO carries no certificate");
      }
      if (h.getCertificateChainCount() > 8) {
        throw new PeerProtocolException(
            "the peer's HELLO carries "
                + h.getCertificateChainCount()
                + " certificates, at most 8");
      }
      CertificateFactory cf = CertificateFactory.getInstance("X.509");
      List<X509Certificate> chain = new ArrayList<>();
      for (ByteString der : h.getCertificateChainList()) {
        if (der.size() > 64 * 1024) {
          throw new PeerProtocolException(
              "a certificate of the peer's HELLO has " + der.size() + " bytes, at most 65536");
        }
        chain.add(
            (X509Certificate) cf.generateCertificate(new ByteArrayInputStream(der.toByteArray())));
      }
      me.verifyPeer(chain.get(0), expectedPeer);
      if (facts.peerCertificateSha256() != null) {
        // Pinning: another certificate the CA issued to the same name is not this session's peer.
        byte[] actual = PartyTrust.sha256(chain.get(0));
        if (!MessageDigest.isEqual(actual, facts.peerCertificateSha256())) {
          throw new HandshakeException(
              "the certificate of '"
                  + expectedPeer
                  + "' (SHA-256 "
                  + HexFormat.of().formatHex(actual)
                  + ") is not the one the session names ("
                  + HexFormat.of().formatHex(facts.peerCertificateSha256())
                  + ")");
        }
      }
      Signature v = Signature.getInstance(signatureAlgorithm(chain.get(0).getPublicKey()));
      v.initVerify(chain.get(0).getPublicKey());
      v.update(signedBytes(session, hello));
      if (!v.verify(signature)) {
        throw new HandshakeException(
            "the peer's HELLO signature does not verify with the "
                + "certificate of '"
                + expectedPeer
                + "'");
      }
      if (!h.hasRole()) {
        throw new PeerProtocolException("the peer's HELLO names no role");
      }
      Role role = ControlMessages.role(h.getRole(), "the peer's HELLO");
      int sigma = h.getSigma();
      int bins = h.getBinsRequested();
      long estimate = h.getSizeEstimate();
      int parallelism = h.getParallelism();
      if (sigma < 1
          || sigma > 128
          || bins < 0
          || bins > BinPlan.MAX_BINS
          || estimate < 0
          || parallelism < 1) {
        throw new PeerProtocolException("the peer's HELLO has out-of-range values");
      }
      JoinMode mode;
      try {
        mode = JoinMode.parse(h.getMode());
      } catch (IllegalArgumentException e) {
        throw new PeerProtocolException("the peer's HELLO names mode " + quoted(h.getMode()));
      }
      int labelBytes = h.getLabelBytes();
      if (labelBytes < PartyOptions.LABEL_BYTES_MIN || labelBytes > PartyOptions.LABEL_BYTES_MAX) {
        throw new PeerProtocolException(
            "the peer's HELLO has a label size of "
                + Integer.toUnsignedString(labelBytes)
                + " bytes (at least "
                + PartyOptions.LABEL_BYTES_MIN
                + ", at most "
                + PartyOptions.LABEL_BYTES_MAX
                + ")");
      }
      if (h.getDhPublic().size() > 256
          || h.getKeysCount() > 64
          || h.getRevealedCount() > 4096
          || h.getNamedCount() > 4096) {
        throw new PeerProtocolException(
            "the peer's HELLO has a key share of "
                + h.getDhPublic().size()
                + " bytes and "
                + h.getKeysCount()
                + "/"
                + h.getRevealedCount()
                + "/"
                + h.getNamedCount()
                + " key/revealed/named columns "
                + "(at most 256 bytes and 64/4096/4096)");
      }
      PrefilterRequest prefilter = prefilterOf(h);
      Multiparty multiparty = multipartyOf(h);
      if (h.getResumeTag().size() > 64 || h.getResumedBins().size() > BinPlan.MAX_BINS / 8 + 1) {
        throw new PeerProtocolException(
            "the peer's HELLO has a resume tag of "
                + h.getResumeTag().size()
                + " bytes and "
                + h.getResumedBins().size()
                + " bytes of committed bins (at most 64 and "
                + (BinPlan.MAX_BINS / 8 + 1)
                + ")");
      }
      return new Hello(
          role,
          h.getFingerprint(),
          h.getProtocol(),
          mode,
          labelBytes,
          sigma,
          bins,
          estimate,
          parallelism,
          fromWire(h.getKeysList()),
          fromWire(h.getRevealedList()),
          fromWire(h.getNamedList()),
          h.getDhPublic().toByteArray(),
          chain,
          hello,
          prefilter,
          multiparty,
          h.getResumeTag().toByteArray(),
          h.getResumedBins().toByteArray());
    } catch (GeneralSecurityException e) {
      throw new HandshakeException("the peer's HELLO does not verify: " + e.getMessage(), e);
    }
  }

  /** The peer's prefilter request, every field checked (its text goes into messages). */
  private static PrefilterRequest prefilterOf(SessionHello h) throws PeerProtocolException {
    Prefilter p;
    try {
      p = h.getPrefilter().isEmpty() ? Prefilter.NONE : Prefilter.parse(h.getPrefilter());
    } catch (IllegalArgumentException e) {
      throw new PeerProtocolException(
          "the peer's HELLO names prefilter " + quoted(h.getPrefilter()));
    }
    int bits = h.getFilterBits();
    int hashes = h.getFilterHashes();
    if ((bits != 0 && (bits < PartyOptions.FILTER_BITS_MIN || bits > PartyOptions.FILTER_BITS_MAX))
        || hashes < 0
        || hashes > PartyOptions.FILTER_HASHES_MAX) {
      throw new PeerProtocolException(
          "the peer's HELLO asks for a filter of "
              + Integer.toUnsignedString(bits)
              + " bits and "
              + Integer.toUnsignedString(hashes)
              + " hashes (0 or "
              + PartyOptions.FILTER_BITS_MIN
              + " to "
              + PartyOptions.FILTER_BITS_MAX
              + " bits, 0 to "
              + PartyOptions.FILTER_HASHES_MAX
              + " hashes)");
    }
    String helper = h.getHelper();
    if (p.namesHelper() && (helper.isEmpty() || helper.length() > 256)) {
      throw new PeerProtocolException(
          "the peer's HELLO names a helper of " + helper.length() + " characters (1 to 256)");
    }
    if (p == Prefilter.NONE && (bits != 0 || hashes != 0 || !helper.isEmpty())) {
      throw new PeerProtocolException("the peer's HELLO has filter options without a prefilter");
    }
    int overlap = h.getExpectedOverlapPpm();
    if (overlap < 0 || overlap > PrefilterRequest.PPM || (p != Prefilter.AUTO && overlap != 0)) {
      throw new PeerProtocolException(
          "the peer's HELLO expects an overlap of "
              + Integer.toUnsignedString(overlap)
              + " millionths (0 to 1,000,000, and only with prefilter auto)");
    }
    return new PrefilterRequest(p, bits, hashes, p == Prefilter.NONE ? null : helper, overlap);
  }

  /** The peer's group of an n-party session (null for a two-party HELLO), sizes checked. */
  private static Multiparty multipartyOf(SessionHello h) throws PeerProtocolException {
    if (h.getPartiesCount() == 0 && h.getProvider().isEmpty()) {
      return null;
    }
    if (h.getPartiesCount() < 2
        || h.getPartiesCount() > MAX_PARTIES
        || h.getProvider().isEmpty()
        || h.getProvider().length() > 256
        || h.getPartiesList().stream().anyMatch(p -> p.isEmpty() || p.length() > 256)) {
      throw new PeerProtocolException(
          "the peer's HELLO names "
              + h.getPartiesCount()
              + " parties and a provider of "
              + h.getProvider().length()
              + " characters (2 to "
              + MAX_PARTIES
              + " parties, names of 1 to 256 characters)");
    }
    return new Multiparty(h.getPartiesList(), h.getProvider());
  }

  /** The most parties an n-party HELLO may name. */
  public static final int MAX_PARTIES = 64;

  /** The signature of {@code hello} for {@code session} (package-private for tests). */
  static byte[] sign(PartyCredentials me, String session, byte[] hello)
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

  private static List<io.psiflink.jobs.control.v1.Column> toWire(List<Column> columns) {
    return columns.stream()
        .map(
            c ->
                io.psiflink.jobs.control.v1.Column.newBuilder()
                    .setName(c.name())
                    .setType(c.type().name())
                    .build())
        .toList();
  }

  /** The peer's columns; a type this version does not know is refused in words. */
  private static List<Column> fromWire(List<io.psiflink.jobs.control.v1.Column> columns)
      throws PeerProtocolException {
    List<Column> out = new ArrayList<>();
    for (io.psiflink.jobs.control.v1.Column c : columns) {
      ColumnType type;
      try {
        type = ColumnType.valueOf(c.getType());
      } catch (IllegalArgumentException e) {
        throw new PeerProtocolException(
            "the peer's HELLO gives column '"
                + c.getName()
                + "' the unknown type '"
                + c.getType()
                + "'");
      }
      if (c.getName().isEmpty() || c.getName().length() > 1024) {
        throw new PeerProtocolException(
            "the peer's HELLO names a column of " + c.getName().length() + " characters");
      }
      out.add(new Column(c.getName(), type, true));
    }
    return out;
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

  private static String describe(JoinMode mode, int labelBytes) {
    return mode == JoinMode.LABELED ? "labeled (" + labelBytes + "-byte labels)" : mode.text();
  }

  /** A peer's text for a message: at most 40 characters, control characters escaped. */
  private static String quoted(String s) {
    StringBuilder b = new StringBuilder("'");
    s.codePoints()
        .limit(40)
        .forEach(
            c ->
                b.append(
                    Character.isISOControl(c)
                        ? "\\u" + Integer.toHexString(c)
                        : Character.toString(c)));
    return b.append(s.length() > 40 ? "...'" : "'").toString();
  }
}
