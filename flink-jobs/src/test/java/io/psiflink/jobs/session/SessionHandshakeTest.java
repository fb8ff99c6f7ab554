package io.psiflink.jobs.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.JoinMode;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.Prefilter;
import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeClientConfig;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeRelay;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.RelayConfig;
import io.psiflink.bridge.ThrowawayPki;
import io.psiflink.jobs.control.v1.SessionHello;
import io.psiflink.jobs.control.v1.SignedSessionHello;
import io.psiflink.jobs.prefilter.PrefilterPlan;
import io.psiflink.jobs.psi.Frames;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The handshake between two parties' jobs over a real relay (TLS on loopback): with the session's
 * certificate fingerprints pinned, a peer certificate the CA issued but the session does not name
 * is refused.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SessionHandshakeTest {
  private ThrowawayPki pki;
  private BridgeRelay relay;

  @BeforeAll
  void start() throws Exception {
    pki =
        ThrowawayPki.create(
            Files.createTempDirectory("psi-handshake-"), "party-a", "party-b", "party-c", "bridge");
    relay =
        BridgeRelay.start(
            RelayConfig.defaults(pki.credentials("bridge"), Set.of("party-a", "party-b")));
  }

  @AfterAll
  void stop() throws Exception {
    relay.close();
  }

  private static byte[] sha256(PartyCredentials c) throws Exception {
    return MessageDigest.getInstance("SHA-256").digest(c.certificate().getEncoded());
  }

  private static SessionHandshake.LocalFacts facts(Role role, String peer, byte[] pin) {
    return facts(role, peer, pin, JoinMode.BOTH, PartyOptions.DEFAULT_LABEL_BYTES);
  }

  private static SessionHandshake.LocalFacts facts(
      Role role, String peer, byte[] pin, JoinMode mode, int labelBytes) {
    List<Column> keys = List.of(new Column("k", ColumnType.STRING, true));
    return new SessionHandshake.LocalFacts(
        role,
        peer,
        "query-fingerprint",
        "kkrt",
        "",
        mode,
        labelBytes,
        40,
        4,
        1000,
        1,
        keys,
        List.of(),
        keys,
        pin);
  }

  private CompletableFuture<SessionSecrets> party(
      String session, String name, Role role, String peer, byte[] pin) {
    return party(session, name, facts(role, peer, pin));
  }

  private CompletableFuture<SessionSecrets> party(
      String session, String name, SessionHandshake.LocalFacts facts) {
    return party(session, name, facts, SessionHandshake.Resume.NONE);
  }

  private CompletableFuture<SessionSecrets> party(
      String session,
      String name,
      SessionHandshake.LocalFacts facts,
      SessionHandshake.Resume resume) {
    PartyCredentials me = pki.credentials(name);
    return CompletableFuture.supplyAsync(
        () -> {
          try (BridgeClient client =
              BridgeClient.connect(BridgeClientConfig.defaults("127.0.0.1", relay.port(), me))) {
            return SessionHandshake.run(client, session, me, facts, resume);
          } catch (Exception e) {
            throw new IllegalStateException(e.getMessage(), e);
          }
        });
  }

  @Test
  void pinnedCertificatesAgreeOnTheSameKeys() throws Exception {
    String session = UUID.randomUUID().toString();
    var a = party(session, "party-a", Role.A, "party-b", sha256(pki.credentials("party-b")));
    var b = party(session, "party-b", Role.B, "party-a", sha256(pki.credentials("party-a")));
    SessionSecrets sa = a.get(60, TimeUnit.SECONDS);
    SessionSecrets sb = b.get(60, TimeUnit.SECONDS);
    assertArrayEquals(sa.tokenKey(), sb.tokenKey());
    assertArrayEquals(sa.binSeed(), sb.binSeed());
    assertArrayEquals(sa.frameKey(), sb.frameKey());
  }

  /**
   * A resumed run: both parties send the tag of the same first run; B learns the bins A committed
   * from A's signed HELLO; the frame key is fresh (the token key and bin seed come from the state,
   * which the caller swaps in).
   */
  @Test
  void aResumedRunAgreesOnTheCommittedBinsWithFreshFrameKeys() throws Exception {
    String session = UUID.randomUUID().toString();
    ResumeState state = state(session, 1);
    java.util.BitSet done = new java.util.BitSet();
    done.set(0);
    done.set(2);
    var first =
        List.of(
            party(session, "party-a", facts(Role.A, "party-b", null)),
            party(session, "party-b", facts(Role.B, "party-a", null)));
    byte[] firstFrameKey = first.get(0).get(60, TimeUnit.SECONDS).frameKey();
    first.get(1).get(60, TimeUnit.SECONDS);
    var a =
        party(
            session,
            "party-a",
            facts(Role.A, "party-b", null),
            new SessionHandshake.Resume(state.tag(), 4, done));
    var b =
        party(
            session,
            "party-b",
            facts(Role.B, "party-a", null),
            new SessionHandshake.Resume(state.tag(), 4, null));
    SessionSecrets sa = a.get(60, TimeUnit.SECONDS);
    SessionSecrets sb = b.get(60, TimeUnit.SECONDS);
    assertEquals(done, sa.resumedBins());
    assertEquals(done, sb.resumedBins());
    assertArrayEquals(sa.frameKey(), sb.frameKey());
    assertFalse(Arrays.equals(firstFrameKey, sa.frameKey()), "a resumed run reuses a frame key");
    SessionSecrets resumed = sb.resumedWith(state);
    assertArrayEquals(state.tokenKey(), resumed.tokenKey());
    assertArrayEquals(state.binSeed(), resumed.binSeed());
    assertArrayEquals(sb.frameKey(), resumed.frameKey());
  }

  @Test
  void aRunResumedByOnePartyOnlyOrWithAnotherStateIsRefused() throws Exception {
    String session = UUID.randomUUID().toString();
    var a =
        party(
            session,
            "party-a",
            facts(Role.A, "party-b", null),
            new SessionHandshake.Resume(state(session, 1).tag(), 4, new java.util.BitSet()));
    var b = party(session, "party-b", facts(Role.B, "party-a", null));
    ExecutionException ea =
        assertThrows(ExecutionException.class, () -> a.get(60, TimeUnit.SECONDS));
    assertTrue(
        ea.getCause().getMessage().contains("the peer starts a new one: resume both or neither"),
        ea.getCause().getMessage());
    ExecutionException eb =
        assertThrows(ExecutionException.class, () -> b.get(60, TimeUnit.SECONDS));
    assertTrue(
        eb.getCause().getMessage().contains("the peer resumes an earlier run"),
        eb.getCause().getMessage());

    String other = UUID.randomUUID().toString();
    var a2 =
        party(
            other,
            "party-a",
            facts(Role.A, "party-b", null),
            new SessionHandshake.Resume(state(other, 1).tag(), 4, new java.util.BitSet()));
    var b2 =
        party(
            other,
            "party-b",
            facts(Role.B, "party-a", null),
            new SessionHandshake.Resume(state(other, 2).tag(), 4, null));
    ExecutionException e2 =
        assertThrows(ExecutionException.class, () -> b2.get(60, TimeUnit.SECONDS));
    assertTrue(
        e2.getCause().getMessage().contains("the parties resume different runs"),
        e2.getCause().getMessage());
    assertThrows(ExecutionException.class, () -> a2.get(60, TimeUnit.SECONDS));
  }

  /**
   * Party A's committed bins as B reads them from A's HELLO: exactly ceil(m / 8) bytes, bits < m.
   */
  @Test
  void committedBinsFromThePeerAreCheckedAgainstTheBinCount() throws Exception {
    ResumeState state = state("s", 1);
    SessionHandshake.Resume mine = new SessionHandshake.Resume(state.tag(), 12, null);
    SessionHandshake.LocalFacts b = facts(Role.B, "party-a", null);
    assertEquals(
        java.util.BitSet.valueOf(new byte[] {0x05, 0x08}),
        SessionHandshake.agreeResume(
            b, mine, hello(state.tag(), new byte[] {0x05, 0x08}), 12, "s"));
    for (byte[] wrong : new byte[][] {{0x05}, {0x05, 0x08, 0}, {0x05, 0x10}}) {
      io.psiflink.jobs.psi.PeerProtocolException e =
          assertThrows(
              io.psiflink.jobs.psi.PeerProtocolException.class,
              () -> SessionHandshake.agreeResume(b, mine, hello(state.tag(), wrong), 12, "s"));
      assertTrue(e.getMessage().contains("committed"), e.getMessage());
    }
    SessionHandshake.HandshakeException other =
        assertThrows(
            SessionHandshake.HandshakeException.class,
            () -> SessionHandshake.agreeResume(b, mine, hello(state.tag(), new byte[2]), 13, "s"));
    assertTrue(other.getMessage().contains("13 bins"), other.getMessage());
  }

  private static SessionHandshake.Hello hello(byte[] tag, byte[] committed) {
    List<Column> keys = List.of(new Column("k", ColumnType.STRING, true));
    return new SessionHandshake.Hello(
        Role.A,
        "query-fingerprint",
        "kkrt",
        JoinMode.BOTH,
        PartyOptions.DEFAULT_LABEL_BYTES,
        40,
        4,
        1000,
        1,
        keys,
        List.of(),
        keys,
        new byte[0],
        List.of(),
        new byte[0],
        SessionHandshake.PrefilterRequest.NONE,
        null,
        tag,
        committed);
  }

  /** A first run's state with keys drawn from {@code seed}. */
  private static ResumeState state(String session, int seed) {
    java.util.Random r = new java.util.Random(seed);
    byte[] token = new byte[32];
    byte[] bin = new byte[16];
    r.nextBytes(token);
    r.nextBytes(bin);
    return new ResumeState(
        session, "A", "party-b", "query-fingerprint", 4, token, bin, null, "files:x");
  }

  @Test
  void aPeerCertificateTheSessionDoesNotNameIsRefused() throws Exception {
    String session = UUID.randomUUID().toString();
    // party-b's certificate is valid (same CA, right name) but A's session names another one
    var a = party(session, "party-a", Role.A, "party-b", sha256(pki.credentials("party-c")));
    var b = party(session, "party-b", Role.B, "party-a", null);
    ExecutionException ea =
        assertThrows(ExecutionException.class, () -> a.get(60, TimeUnit.SECONDS));
    assertTrue(
        ea.getCause().getMessage().contains("is not the one the session names"),
        ea.getCause().getMessage());
    // B learns no keys either: A aborts the control stream
    assertThrows(ExecutionException.class, () -> b.get(60, TimeUnit.SECONDS));
  }

  /** party-b's job, played by the test, sends {@code body} as its HELLO; A refuses it in words. */
  private void assertHelloRefused(byte[] body, String problem) throws Exception {
    assertHelloRefused(UUID.randomUUID().toString(), body, problem);
  }

  private void assertHelloRefused(String session, byte[] body, String problem) throws Exception {
    var a = party(session, "party-a", Role.A, "party-b", null);
    try (BridgeClient client =
            BridgeClient.connect(
                BridgeClientConfig.defaults(
                    "127.0.0.1", relay.port(), pki.credentials("party-b")));
        BridgeStream raw = client.open(session, "control")) {
      raw.send(Frames.of(Frames.HELLO, body));
      ExecutionException ea =
          assertThrows(ExecutionException.class, () -> a.get(60, TimeUnit.SECONDS));
      assertTrue(ea.getCause().getMessage().contains(problem), ea.getCause().getMessage());
      // A aborts the control stream: B is told, it does not wait for the idle timeout
      assertThrows(
          BridgeException.class,
          () -> {
            while (raw.receive() != null) {
              // A's HELLO
            }
          });
    }
  }

  @Test
  void malformedHellosAreRefusedInWords() throws Exception {
    assertHelloRefused(new byte[] {0x0a, 9, 1}, "the peer's HELLO is malformed");
    // a signed HELLO whose hello holds a field this version does not know
    assertHelloRefused(
        SignedSessionHello.newBuilder()
            .setHello(ByteString.copyFrom(new byte[] {(byte) 0xf8, 0x01, 1}))
            .setSignature(ByteString.copyFrom(new byte[64]))
            .build()
            .toByteArray(),
        "does not know: the peer runs another version");
    assertHelloRefused(
        SignedSessionHello.newBuilder()
            .setHello(SessionHello.newBuilder().setFingerprint("f").build().toByteString())
            .setSignature(ByteString.copyFrom(new byte[64]))
            .build()
            .toByteArray(),
        "carries no certificate");
    assertHelloRefused(
        SignedSessionHello.newBuilder()
            .setHello(SessionHello.getDefaultInstance().toByteString())
            .build()
            .toByteArray(),
        "a signature of 0 bytes");
  }

  /** A peer whose HELLO is signed but names the wrong role is refused after the signature. */
  @Test
  void bothPartiesPlayingTheSameRoleIsRefused() throws Exception {
    String session = UUID.randomUUID().toString();
    var a = party(session, "party-a", Role.A, "party-b", null);
    var b = party(session, "party-b", Role.A, "party-a", null);
    ExecutionException ea =
        assertThrows(ExecutionException.class, () -> a.get(60, TimeUnit.SECONDS));
    assertTrue(
        ea.getCause().getMessage().contains("both jobs play party A"), ea.getCause().getMessage());
    assertThrows(ExecutionException.class, () -> b.get(60, TimeUnit.SECONDS));
  }

  /** Both jobs must run the same mode: a labeled B never meets a peer expecting B's keys. */
  @Test
  void differentModesOrLabelSizesAreRefused() throws Exception {
    for (int[] labels : new int[][] {{64, -1}, {64, 128}}) {
      String session = UUID.randomUUID().toString();
      var a =
          party(session, "party-a", facts(Role.A, "party-b", null, JoinMode.LABELED, labels[0]));
      var b =
          party(
              session,
              "party-b",
              labels[1] < 0
                  ? facts(Role.B, "party-a", null)
                  : facts(Role.B, "party-a", null, JoinMode.LABELED, labels[1]));
      ExecutionException ea =
          assertThrows(ExecutionException.class, () -> a.get(60, TimeUnit.SECONDS));
      String expected =
          labels[1] < 0
              ? "modes differ: labeled (64-byte labels) here, both at the peer"
              : "modes differ: labeled (64-byte labels) here, labeled (128-byte labels) at the peer";
      assertTrue(ea.getCause().getMessage().contains(expected), ea.getCause().getMessage());
      assertThrows(ExecutionException.class, () -> b.get(60, TimeUnit.SECONDS));
    }
  }

  private static SessionHandshake.LocalFacts withPrefilter(
      SessionHandshake.LocalFacts f, SessionHandshake.PrefilterRequest p) {
    return withPrefilter(f, p, f.sizeEstimate());
  }

  private static SessionHandshake.LocalFacts withPrefilter(
      SessionHandshake.LocalFacts f, SessionHandshake.PrefilterRequest p, long sizeEstimate) {
    return new SessionHandshake.LocalFacts(
        f.role(),
        f.expectedPeer(),
        f.fingerprint(),
        f.protocol(),
        f.protocolParams(),
        f.mode(),
        f.labelBytes(),
        f.sigma(),
        f.binsRequested(),
        sizeEstimate,
        f.parallelism(),
        f.keys(),
        f.revealed(),
        f.named(),
        f.peerCertificateSha256(),
        p,
        null);
  }

  private static SessionHandshake.PrefilterRequest helper(int bits, int hashes, String name) {
    return new SessionHandshake.PrefilterRequest(Prefilter.HELPER, bits, hashes, name);
  }

  /**
   * With the same prefilter request both derive the same filter key (32 bytes, distinct from the
   * token key) and the same plan: for 1000 rows the automatic L is the least, 16, with k = 2;
   * without a prefilter there is no such key.
   */
  @Test
  void samePrefilterRequestsAgreeOnThePlanAndItsKeys() throws Exception {
    String session = UUID.randomUUID().toString();
    var a =
        party(
            session,
            "party-a",
            withPrefilter(facts(Role.A, "party-b", null), helper(0, 0, "helper")));
    var b =
        party(
            session,
            "party-b",
            withPrefilter(facts(Role.B, "party-a", null), helper(0, 0, "helper")));
    SessionSecrets sa = a.get(60, TimeUnit.SECONDS);
    SessionSecrets sb = b.get(60, TimeUnit.SECONDS);
    assertEquals(new PrefilterPlan(16, 2, Role.A), sa.prefilter());
    assertEquals(sa.prefilter(), sb.prefilter());
    assertArrayEquals(sa.filterKey(), sb.filterKey());
    assertEquals(32, sa.filterKey().length);
    assertFalse(Arrays.equals(sa.filterKey(), sa.tokenKey()));
    // the job's secret file carries them to the task managers
    JobSecrets js = JobSecrets.decode(JobSecrets.of(sa).encode());
    assertArrayEquals(sa.filterKey(), js.filterKey());

    String plain = UUID.randomUUID().toString();
    var pa = party(plain, "party-a", Role.A, "party-b", null);
    var pb = party(plain, "party-b", Role.B, "party-a", null);
    SessionSecrets none = pa.get(60, TimeUnit.SECONDS);
    pb.get(60, TimeUnit.SECONDS);
    assertNull(none.prefilter());
    assertNull(none.filterKey());
  }

  private static SessionHandshake.PrefilterRequest auto(double overlap) {
    return new SessionHandshake.PrefilterRequest(
        Prefilter.AUTO, 0, 0, "helper", SessionHandshake.PrefilterRequest.ppm(overlap));
  }

  /** Both parties' secrets with prefilter auto, A holding nA rows and B nB. */
  private SessionSecrets[] auto(double overlapA, double overlapB, long nA, long nB)
      throws Exception {
    String session = UUID.randomUUID().toString();
    var a =
        party(
            session, "party-a", withPrefilter(facts(Role.A, "party-b", null), auto(overlapA), nA));
    var b =
        party(
            session, "party-b", withPrefilter(facts(Role.B, "party-a", null), auto(overlapB), nB));
    return new SessionSecrets[] {a.get(60, TimeUnit.SECONDS), b.get(60, TimeUnit.SECONDS)};
  }

  /**
   * With prefilter auto both decide alike, from the size estimates and the expected overlap: 10^8 ×
   * 10^7 filters even if every key of the smaller table is common, 10^7 × 10^7 only when few are,
   * 1000 × 1000 never; a different expected overlap fails the handshake.
   */
  @Test
  void autoDecidesAlikeAtBothFromPublicFacts() throws Exception {
    SessionSecrets[] unequal = auto(1.0, 1.0, 100_000_000, 10_000_000);
    assertEquals(new PrefilterPlan(28, 2, Role.B), unequal[0].prefilter());
    assertEquals(unequal[0].prefilter(), unequal[1].prefilter());
    assertArrayEquals(unequal[0].filterKey(), unequal[1].filterKey());

    SessionSecrets[] few = auto(0.01, 0.01, 10_000_000, 10_000_000);
    assertEquals(
        PrefilterPlan.choose(0, 0, 10_000_000, 10_000_000), few[0].prefilter(), "1 % common");
    assertEquals(few[0].prefilter(), few[1].prefilter());

    for (SessionSecrets[] none :
        List.of(auto(1.0, 1.0, 10_000_000, 10_000_000), auto(0, 0, 1000, 1000))) {
      assertNull(none[0].prefilter());
      assertNull(none[1].prefilter());
      assertNull(none[0].filterKey(), "no filter, no filter key");
    }

    ExecutionException e =
        assertThrows(ExecutionException.class, () -> auto(0.5, 0.01, 1000, 1000));
    assertTrue(
        e.getCause().getMessage().contains("expected overlap 0.5) here")
            && e.getCause().getMessage().contains("expected overlap 0.01) at the peer"),
        e.getCause().getMessage());
  }

  /** Both jobs must ask for the same prefilter, filter size, hashes and helper. */
  @Test
  void differentPrefilterRequestsAreRefused() throws Exception {
    SessionHandshake.PrefilterRequest[][] cases = {
      {helper(0, 0, "helper"), SessionHandshake.PrefilterRequest.NONE},
      {helper(20, 0, "helper"), helper(0, 0, "helper")},
      {helper(20, 3, "helper"), helper(20, 2, "helper")},
      {helper(20, 3, "helper"), helper(20, 3, "other-helper")},
    };
    String[] expected = {
      "prefilters differ: prefilter helper 'helper' (L auto, k auto) here, no prefilter at the peer",
      "prefilters differ: prefilter helper 'helper' (L 20, k auto) here, prefilter helper 'helper'"
          + " (L auto, k auto) at the peer",
      "(L 20, k 3) here, prefilter helper 'helper' (L 20, k 2) at the peer",
      "prefilter helper 'helper' (L 20, k 3) here, prefilter helper 'other-helper' (L 20, k 3)",
    };
    for (int i = 0; i < cases.length; i++) {
      String session = UUID.randomUUID().toString();
      var a = party(session, "party-a", withPrefilter(facts(Role.A, "party-b", null), cases[i][0]));
      var b = party(session, "party-b", withPrefilter(facts(Role.B, "party-a", null), cases[i][1]));
      ExecutionException ea =
          assertThrows(ExecutionException.class, () -> a.get(60, TimeUnit.SECONDS));
      assertTrue(ea.getCause().getMessage().contains(expected[i]), ea.getCause().getMessage());
      assertThrows(ExecutionException.class, () -> b.get(60, TimeUnit.SECONDS));
    }
  }

  /** A peer's prefilter fields out of range are refused before anything else is believed. */
  @Test
  void outOfRangeFilterOptionsAreRefused() throws Exception {
    PartyCredentials b = pki.credentials("party-b");
    for (SessionHello.Builder bad :
        List.of(
            SessionHello.newBuilder().setPrefilter("helper").setFilterBits(40).setHelper("h"),
            SessionHello.newBuilder().setPrefilter("helper").setFilterHashes(99).setHelper("h"),
            SessionHello.newBuilder().setPrefilter("helper"),
            SessionHello.newBuilder().setPrefilter("sometimes"),
            SessionHello.newBuilder().setPrefilter("auto"),
            SessionHello.newBuilder()
                .setPrefilter("auto")
                .setHelper("h")
                .setExpectedOverlapPpm(1_000_001),
            SessionHello.newBuilder()
                .setPrefilter("helper")
                .setHelper("h")
                .setExpectedOverlapPpm(5),
            SessionHello.newBuilder().setFilterBits(20))) {
      String session = UUID.randomUUID().toString();
      bad.setRole(io.psiflink.jobs.psi.ControlMessages.roleId(Role.B))
          .setFingerprint("query-fingerprint")
          .setProtocol("kkrt")
          .setSigma(40)
          .setMode("both")
          .setLabelBytes(PartyOptions.DEFAULT_LABEL_BYTES)
          .setParallelism(1)
          .addCertificateChain(ByteString.copyFrom(b.certificate().getEncoded()));
      byte[] hello = bad.build().toByteArray();
      byte[] body =
          SignedSessionHello.newBuilder()
              .setHello(ByteString.copyFrom(hello))
              .setSignature(ByteString.copyFrom(SessionHandshake.sign(b, session, hello)))
              .build()
              .toByteArray();
      assertHelloRefused(session, body, "the peer's HELLO");
    }
  }
}
