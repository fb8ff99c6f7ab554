package io.psiflink.jobs.psi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.psiflink.api.ColumnType;
import io.psiflink.api.JoinMode;
import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.connectors.row.RowCodec;
import io.psiflink.jobs.bin.BinChunks;
import io.psiflink.jobs.bin.BinPlan;
import io.psiflink.jobs.bin.BinTable;
import io.psiflink.jobs.control.v1.BinHello;
import io.psiflink.jobs.control.v1.Reveal;
import io.psiflink.jobs.session.BinKeys;
import io.psiflink.nativepsi.PsiParams;
import io.psiflink.nativepsi.PsiRole;
import io.psiflink.nativepsi.PsiSession;
import io.psiflink.nativepsi.RoundDriver;
import io.psiflink.query.JoinKind;
import java.io.ByteArrayOutputStream;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every bin frame is authenticated end to end: a relay (a wrapper around one party's real bridge
 * stream on a real relay over TLS) that flips a byte, swaps, replays or drops a frame, cuts the
 * stream or forges DONE is refused with a {@link PeerProtocolException}; an honest bin gives
 * exactly the join the test computes from the plaintext keys. Also: the bin HELLO commits to the
 * nonce (a reveal that does not match is refused), and the instance is fresh per attempt.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SealedBinExchangeTest {
  private static final String SESSION = "sealed-test";
  private static final int BINS = 4;
  private static final long N = 8000;
  private static final RowCodec STRING = new RowCodec(List.of(ColumnType.STRING));
  private static final RowCodec OUT = new RowCodec(List.of(ColumnType.STRING, ColumnType.STRING));

  private TwoParties parties;
  private byte[][] setups;
  private final byte[] frameKey = new byte[32];
  private final AtomicInteger channels = new AtomicInteger();
  private BinTable tableA;
  private BinTable tableB;
  private List<String> expected;

  @BeforeAll
  void start() throws Exception {
    parties = new TwoParties(java.nio.file.Files.createTempDirectory("psi-sealed-"));
    new SecureRandom().nextBytes(frameKey);
    PsiParams p = PsiParams.builder().receiverSize(1).senderSize(1).build();
    try (PsiSession rs = PsiSession.create("kkrt", PsiRole.RECEIVER, p);
        PsiSession ss = PsiSession.create("kkrt", PsiRole.SENDER, p)) {
      new RoundDriver().runSetup(rs, ss);
      setups = new byte[][] {rs.exportSetup(), ss.exportSetup()};
    }
    // A: keys 0..1199, B: keys 800..1999; key k has 1 + k % 3 rows on each side.
    SplittableRandom r = new SplittableRandom(11);
    long[][] tokens = new long[2000][];
    for (int k = 0; k < tokens.length; k++) {
      tokens[k] = new long[] {r.nextLong() & Long.MAX_VALUE, r.nextLong()};
    }
    ByteArrayOutputStream a = new ByteArrayOutputStream();
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    List<String> join = new ArrayList<>();
    for (int k = 0; k < tokens.length; k++) {
      for (int i = 0; i <= k % 3; i++) {
        if (k < 1200) {
          BinChunks.append(a, tokens[k][0], tokens[k][1], row("a" + k + "." + i));
        }
        if (k >= 800) {
          BinChunks.append(b, tokens[k][0], tokens[k][1], row("b" + k + "." + i));
        }
      }
      if (k >= 800 && k < 1200) {
        for (int i = 0; i <= k % 3; i++) {
          for (int j = 0; j <= k % 3; j++) {
            join.add("a" + k + "." + i + "|b" + k + "." + j);
          }
        }
      }
    }
    tableA = new BinTable(List.of(a.toByteArray()));
    tableB = new BinTable(List.of(b.toByteArray()));
    Collections.sort(join);
    expected = join;
  }

  @AfterAll
  void stop() throws Exception {
    parties.close();
  }

  private static byte[] row(String s) {
    return STRING.encode(Row.of(s), new int[] {0});
  }

  private BinContext ctx(Role role) {
    return new BinContext(
        SESSION,
        role,
        BINS,
        40,
        "kkrt",
        "",
        STRING,
        STRING,
        new int[] {0, -1},
        1,
        false,
        JoinMode.BOTH,
        128,
        JoinKind.INNER);
  }

  /** What the relay does to the frames one party receives. */
  enum Attack {
    NONE,
    FLIP,
    SWAP,
    REPLAY,
    DROP,
    CUT,
    FORGE_DONE
  }

  /**
   * Plays the relay for the frames {@code inner} receives: frame {@code at} (counting from 0) is
   * altered as {@code attack} says; every other frame passes unchanged.
   */
  static class Relay implements BridgeStream {
    private final BridgeStream inner;
    private final Attack attack;
    private final int at;
    private int index;
    private byte[] held;
    private boolean cut;
    int received;

    Relay(BridgeStream inner, Attack attack, int at) {
      this.inner = inner;
      this.attack = attack;
      this.at = at;
    }

    @Override
    public byte[] receive() throws BridgeException {
      if (cut) {
        return null;
      }
      if (held != null) {
        byte[] h = held;
        held = null;
        return h;
      }
      int i = index++;
      if (i == at) {
        switch (attack) {
          case FLIP -> {
            byte[] f = inner.receive().clone();
            f[f.length / 2] ^= 0x20;
            return f;
          }
          case SWAP -> {
            byte[] first = inner.receive();
            byte[] second = inner.receive();
            held = first;
            return second;
          }
          case REPLAY -> {
            byte[] f = inner.receive();
            held = f.clone();
            return f;
          }
          case DROP -> {
            inner.receive();
            return inner.receive();
          }
          case CUT -> {
            cut = true;
            return null;
          }
          case FORGE_DONE -> {
            // the bin protocol's DONE as it looked before frames were sealed, and with a made-up
            // tag
            byte[] forged = new byte[17];
            forged[0] = Frames.DONE;
            return forged;
          }
          default -> {}
        }
      }
      byte[] f = inner.receive();
      if (f != null) {
        received++;
      }
      return f;
    }

    @Override
    public String session() {
      return inner.session();
    }

    @Override
    public String channel() {
      return inner.channel();
    }

    @Override
    public int attempt() {
      return inner.attempt();
    }

    @Override
    public String peerParty() {
      return inner.peerParty();
    }

    @Override
    public void send(byte[] data, int off, int len) throws BridgeException {
      inner.send(data, off, len);
    }

    @Override
    public void finish() throws BridgeException {
      inner.finish();
    }

    @Override
    public void abort(String reason) {
      inner.abort(reason);
    }

    @Override
    public long bytesSent() {
      return inner.bytesSent();
    }

    @Override
    public long bytesReceived() {
      return inner.bytesReceived();
    }

    @Override
    public void close() {
      inner.close();
    }
  }

  private record Outcome(
      Object a, Object b, List<String> joined, int framesAReceived, int framesBReceived) {}

  /**
   * Runs one bin between honest A and B; the relay applies {@code attack} to frame {@code at} of
   * those A receives ({@code onB}: of those B receives). Each side's result is its stats or the
   * exception it failed with.
   */
  private Outcome run(Attack attack, int at, boolean onB) throws Exception {
    String channel = "bin-" + channels.incrementAndGet();
    List<String> joined = Collections.synchronizedList(new ArrayList<>());
    Relay[] relays = new Relay[2];
    CompletableFuture<Object> fa =
        CompletableFuture.supplyAsync(
            () -> side(parties.a, channel, Role.A, onB ? Attack.NONE : attack, at, relays, joined));
    CompletableFuture<Object> fb =
        CompletableFuture.supplyAsync(
            () -> side(parties.b, channel, Role.B, onB ? attack : Attack.NONE, at, relays, joined));
    Object a = fa.get(60, TimeUnit.SECONDS);
    Object b = fb.get(60, TimeUnit.SECONDS);
    List<String> sorted = new ArrayList<>(joined);
    Collections.sort(sorted);
    return new Outcome(a, b, sorted, relays[0].received, relays[1].received);
  }

  private Object side(
      BridgeClient client,
      String channel,
      Role role,
      Attack attack,
      int at,
      Relay[] relays,
      List<String> joined) {
    BridgeStream raw = null;
    try {
      raw = client.open(SESSION, channel);
      Relay relay = new Relay(raw, attack, at);
      relays[role.index()] = relay;
      BinExchange x =
          new BinExchange(
              ctx(role), new BinKeys(frameKey, setups[role.index()]), new SecureRandom());
      Object stats =
          x.run(
              relay,
              0,
              role.equals(Role.B) ? tableB : tableA,
              N,
              r -> {
                Object[] cols = new Object[2];
                OUT.decode(r, 0, r.length, cols, 0);
                joined.add(cols[0] + "|" + cols[1]);
              });
      raw.close();
      return stats;
    } catch (Exception e) {
      if (raw != null) { // as BinPsiOperator does: the peer must not wait for a failed bin
        raw.abort("party " + role + " failed: " + e.getMessage());
        raw.close();
      }
      return e;
    }
  }

  @Test
  void anHonestBinGivesTheExactJoin() throws Exception {
    Outcome o = run(Attack.NONE, -1, false);
    assertInstanceOf(BinExchange.BinStats.class, o.a(), String.valueOf(o.a()));
    assertInstanceOf(BinExchange.BinStats.class, o.b(), String.valueOf(o.b()));
    assertEquals(400, ((BinExchange.BinStats) o.a()).intersecting());
    assertEquals(expected, o.joined());
  }

  /**
   * A receives HELLO (0), REVEAL (1), B's PSI frames (2...), PAYLOAD..., PAYLOAD_END. "last" is the
   * last PAYLOAD: its successor is in the same flight, so a drop or swap is not a mere stall.
   */
  @ParameterizedTest(name = "{0} at frame {1}")
  @CsvSource({
    "FLIP, 0",
    "FLIP, 1",
    "FLIP, 2",
    "REPLAY, 2",
    "CUT, 2",
    "FLIP, last",
    "SWAP, last",
    "REPLAY, last",
    "DROP, last",
    "CUT, last"
  })
  void aRelayThatTampersWithFramesToTheOutputPartyIsRefused(Attack attack, String where)
      throws Exception {
    int at =
        where.equals("last")
            ? run(Attack.NONE, -1, false).framesAReceived() - 2
            : Integer.parseInt(where);
    Outcome o = run(attack, at, false);
    PeerProtocolException e =
        assertInstanceOf(PeerProtocolException.class, o.a(), String.valueOf(o.a()));
    String expectedCause = attack == Attack.CUT ? "peer ended the stream" : "failed authentication";
    assertTrue(e.getMessage().contains(expectedCause), e.getMessage());
    assertTrue(o.joined().isEmpty(), "a refused bin emits no rows");
  }

  @Test
  void aForgedDoneIsRefused() throws Exception {
    // B receives HELLO, REVEAL, A's PSI frames, DONE: the relay answers B's payload with its own
    // DONE (A would never get the columns, B would count the bin as done)
    int total = run(Attack.NONE, -1, true).framesBReceived();
    Outcome o = run(Attack.FORGE_DONE, total - 1, true);
    PeerProtocolException e =
        assertInstanceOf(PeerProtocolException.class, o.b(), String.valueOf(o.b()));
    assertTrue(e.getMessage().contains("failed authentication"), e.getMessage());
  }

  @Test
  void aRevealThatDoesNotMatchItsCommitmentIsRefused() throws Exception {
    String channel = "bin-" + channels.incrementAndGet();
    CompletableFuture<Object> fa =
        CompletableFuture.supplyAsync(
            () ->
                side(parties.a, channel, Role.A, Attack.NONE, -1, new Relay[2], new ArrayList<>()));
    try (BridgeStream raw = parties.b.open(SESSION, channel);
        SealedBinStream b = new SealedBinStream(raw, frameKey, 0, Role.B)) {
      byte[] nonce = new byte[32];
      new SecureRandom().nextBytes(nonce);
      // B's HELLO as control.proto documents it: role, bin, bins, σ, n, bound, commitment
      b.send(
          Frames.HELLO,
          BinHello.newBuilder()
              .setRole(ControlMessages.roleId(Role.B))
              .setBin(0)
              .setBins(BINS)
              .setSigma(40)
              .setRows(N)
              .setBound(BinPlan.bound(N, BINS, 40))
              .setCommitment(ByteString.copyFrom(BinExchange.commitment(raw, 0, Role.B, nonce)))
              .build());
      assertEquals(Frames.HELLO, b.receive()[0]);
      byte[] other = nonce.clone();
      other[0] ^= 1; // B changes its mind after seeing A's HELLO
      b.send(Frames.REVEAL, Reveal.newBuilder().setNonce(ByteString.copyFrom(other)).build());
      Object a = fa.get(60, TimeUnit.SECONDS);
      PeerProtocolException e = assertInstanceOf(PeerProtocolException.class, a, String.valueOf(a));
      assertTrue(e.getMessage().contains("does not match the commitment"), e.getMessage());
    }
  }

  /** B (played by the test) sends {@code hello} as its HELLO; A must refuse it, naming why. */
  private void assertHelloRefused(byte[] hello, String problem) throws Exception {
    String channel = "bin-" + channels.incrementAndGet();
    CompletableFuture<Object> fa =
        CompletableFuture.supplyAsync(
            () ->
                side(parties.a, channel, Role.A, Attack.NONE, -1, new Relay[2], new ArrayList<>()));
    try (BridgeStream raw = parties.b.open(SESSION, channel);
        SealedBinStream b = new SealedBinStream(raw, frameKey, 0, Role.B)) {
      b.send(Frames.HELLO, hello);
      Object a = fa.get(60, TimeUnit.SECONDS);
      PeerProtocolException e = assertInstanceOf(PeerProtocolException.class, a, String.valueOf(a));
      assertTrue(e.getMessage().contains(problem), e.getMessage());
    }
  }

  private static BinHello.Builder honestHelloOfB() {
    return BinHello.newBuilder()
        .setRole(ControlMessages.roleId(Role.B))
        .setBin(0)
        .setBins(BINS)
        .setSigma(40)
        .setRows(N)
        .setBound(BinPlan.bound(N, BINS, 40))
        .setCommitment(ByteString.copyFrom(new byte[32]));
  }

  @Test
  void malformedOrWrongHellosAreRefusedInWords() throws Exception {
    assertHelloRefused(new byte[] {0x0a, 9, 1}, "the peer's HELLO is malformed");
    assertHelloRefused(
        honestHelloOfB().setRole(ControlMessages.roleId(Role.A)).build().toByteArray(),
        "the same role as this party");
    assertHelloRefused(
        honestHelloOfB().setRole(ControlMessages.roleId(Role.HELPER)).build().toByteArray(),
        "peer plays helper, expected B");
    assertHelloRefused(honestHelloOfB().clearRole().build().toByteArray(), "names no role");
    assertHelloRefused(honestHelloOfB().setSigma(41).build().toByteArray(), "with sigma 41");
    assertHelloRefused(
        honestHelloOfB().setBound(-1).build().toByteArray(), "bound=18446744073709551615");
    assertHelloRefused(
        honestHelloOfB().setCommitment(ByteString.copyFrom(new byte[31])).build().toByteArray(),
        "a commitment of 31 bytes, expected 32");
    byte[] later = honestHelloOfB().build().toByteArray();
    byte[] withField = java.util.Arrays.copyOf(later, later.length + 2);
    withField[later.length] = 0x78; // field 15, varint
    withField[later.length + 1] = 1;
    assertHelloRefused(withField, "another version of psi-flink");
  }

  @Test
  void theInstanceIsFullLengthAndFreshPerAttemptAndCommitmentsBindTheRole() {
    byte[] na = new byte[32];
    byte[] nb = new byte[32];
    nb[0] = 1;
    byte[] first = BinExchange.instance(stub(0), 3, na, nb);
    byte[] second = BinExchange.instance(stub(1), 3, na, nb);
    assertEquals(32, first.length);
    assertFalse(java.util.Arrays.equals(first, second), "attempts share an instance");
    assertFalse(java.util.Arrays.equals(first, BinExchange.instance(stub(0), 4, na, nb)));
    assertFalse(java.util.Arrays.equals(first, BinExchange.instance(stub(0), 3, nb, na)));
    // A's commitment echoed back as B's would not match B's reveal of the same nonce
    assertFalse(
        java.util.Arrays.equals(
            BinExchange.commitment(stub(0), 3, Role.A, na),
            BinExchange.commitment(stub(0), 3, Role.B, na)));
    assertArrayEquals(
        BinExchange.commitment(stub(0), 3, Role.B, na),
        BinExchange.commitment(stub(0), 3, Role.B, na));
  }

  /** A stream that only knows its session and attempt. */
  private static BridgeStream stub(int attempt) {
    return new Relay(null, Attack.NONE, -1) {
      @Override
      public String session() {
        return SESSION;
      }

      @Override
      public int attempt() {
        return attempt;
      }
    };
  }

  @Test
  void framesSealedForAnotherBinAttemptOrDirectionDoNotOpen() throws Exception {
    // unit level, no relay: what one SealedBinStream sends, the matching one opens, no other
    Loop loop = new Loop(SESSION, 2);
    try (SealedBinStream a = new SealedBinStream(loop, frameKey, 5, Role.A);
        SealedBinStream b = new SealedBinStream(loop, frameKey, 5, Role.B);
        SealedBinStream otherBin = new SealedBinStream(loop, frameKey, 6, Role.B);
        SealedBinStream sameSide = new SealedBinStream(loop, frameKey, 5, Role.A);
        SealedBinStream otherAttempt =
            new SealedBinStream(new Loop(SESSION, 3), frameKey, 5, Role.B)) {
      a.send(Frames.HELLO, "x".getBytes());
      byte[] sealed = loop.frames.get(0);
      assertEquals(2 + 16, sealed.length, "type, body and tag");
      assertFalse(sealed[0] == Frames.HELLO && sealed[1] == 'x', "the frame travels in the clear");
      for (SealedBinStream wrong : List.of(otherBin, sameSide, otherAttempt)) {
        assertThrows(PeerProtocolException.class, () -> readFrom(wrong, sealed));
      }
      byte[] opened = readFrom(b, sealed);
      assertArrayEquals(new byte[] {Frames.HELLO, 'x'}, opened);
    }
  }

  private static byte[] readFrom(SealedBinStream s, byte[] frame) throws Exception {
    Loop l = (Loop) s.raw();
    l.frames.clear();
    l.frames.add(frame);
    return s.receive();
  }

  /** A stream that keeps what is sent and hands out what is queued. */
  private static final class Loop extends Relay {
    final List<byte[]> frames = new ArrayList<>();
    private final String session;
    private final int attempt;

    Loop(String session, int attempt) {
      super(null, Attack.NONE, -1);
      this.session = session;
      this.attempt = attempt;
    }

    @Override
    public String session() {
      return session;
    }

    @Override
    public int attempt() {
      return attempt;
    }

    @Override
    public void send(byte[] data, int off, int len) {
      frames.add(java.util.Arrays.copyOfRange(data, off, off + len));
    }

    @Override
    public byte[] receive() {
      return frames.isEmpty() ? null : frames.remove(0);
    }
  }
}
