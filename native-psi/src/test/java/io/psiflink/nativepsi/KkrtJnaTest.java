package io.psiflink.nativepsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

/**
 * The KKRT protocol through the Java binding, every answer checked against a plaintext HashSet
 * intersection ({@link ElementSets}). Seeds are fixed so a failure names a reproducible case.
 */
@Timeout(60)
class KkrtJnaTest {
  private static final String KKRT = "kkrt";
  private static final RoundDriver DRIVER = new RoundDriver();

  /** A receiver and a sender session with inputs set. */
  private static final class Pair implements AutoCloseable {
    final PsiSession receiver;
    final PsiSession sender;

    Pair(PsiSession receiver, PsiSession sender) {
      this.receiver = receiver;
      this.sender = sender;
    }

    @Override
    public void close() {
      receiver.close();
      sender.close();
    }
  }

  private static Pair sessions(ElementSets sets, long instance, long seed) {
    Random rnd = new Random(seed);
    PsiParams params = sets.params(instance);
    PsiSession r = PsiSession.create(KKRT, PsiRole.RECEIVER, params, ElementSets.seed(rnd));
    try {
      PsiSession s = PsiSession.create(KKRT, PsiRole.SENDER, params, ElementSets.seed(rnd));
      return new Pair(r, s);
    } catch (RuntimeException e) {
      r.close();
      throw e;
    }
  }

  private static Pair pairWithInputs(ElementSets sets, long instance, long seed) {
    Pair p = sessions(sets, instance, seed);
    try {
      p.receiver.setInput(sets.receiver, sets.receiverCount, ElementSets.LEN);
      p.sender.setInput(sets.sender, sets.senderCount, ElementSets.LEN);
      return p;
    } catch (RuntimeException e) {
      p.close();
      throw e;
    }
  }

  private static void assertMatchesOracle(ElementSets sets, PsiRunResult result) {
    assertArrayEquals(
        sets.expectedReceiver(), result.receiverIndices(), "receiver indices, " + sets);
    assertTrue(result.senderIndices().isPresent(), "output=both gives the sender its indices");
    assertArrayEquals(
        sets.expectedSender(), result.senderIndices().get(), "sender indices, " + sets);
    assertEquals(sets.overlap, result.receiverIndices().length, "overlap size, " + sets);
  }

  private static PsiRunResult runAndCheck(ElementSets sets, RoundDriver driver, long seed) {
    try (Pair p = pairWithInputs(sets, 1, seed)) {
      PsiRunResult result = driver.run(p.receiver, p.sender);
      assertMatchesOracle(sets, result);
      assertEquals(sets.overlap, p.receiver.resultSize());
      return result;
    }
  }

  @TestFactory
  Stream<DynamicTest> intersectionMatchesPlaintextOracle() {
    int[][] sizes = {
      {0, 0},
      {0, 64},
      {64, 0},
      {1, 1},
      {100, 100},
      {1000, 1000},
      {1000, 3000},
      {4000, 700},
      {5000, 5000}
    };
    double[] fractions = {0.0, 0.5, 1.0};
    List<DynamicTest> tests = new ArrayList<>();
    long seed = 100;
    for (int[] size : sizes) {
      Set<Integer> overlaps = new LinkedHashSet<>();
      for (double f : fractions) {
        overlaps.add((int) Math.round(Math.min(size[0], size[1]) * f));
      }
      for (int overlap : overlaps) {
        long caseSeed = seed++;
        ElementSets sets = ElementSets.random(caseSeed, size[0], size[1], overlap);
        tests.add(
            DynamicTest.dynamicTest(
                sets + ", seed=" + caseSeed, () -> runAndCheck(sets, DRIVER, caseSeed)));
      }
    }
    return tests.stream();
  }

  @Test
  void receiverOnlyOutputLeavesTheSenderWithoutIndices() {
    ElementSets sets = ElementSets.random(5, 700, 900, 300);
    PsiParams params = sets.params(1).toBuilder().output(PsiParams.Output.RECEIVER).build();
    Random rnd = new Random(5);
    try (PsiSession r = PsiSession.create(KKRT, PsiRole.RECEIVER, params, ElementSets.seed(rnd));
        PsiSession s = PsiSession.create(KKRT, PsiRole.SENDER, params, ElementSets.seed(rnd))) {
      r.setInput(sets.receiver, sets.receiverCount, ElementSets.LEN);
      s.setInput(sets.sender, sets.senderCount, ElementSets.LEN);
      PsiRunResult result = DRIVER.run(r, s);
      assertArrayEquals(sets.expectedReceiver(), result.receiverIndices());
      assertTrue(result.senderIndices().isEmpty());
    }
  }

  @Test
  void helperRoleIsArgumentErrorForTwoPartyKkrt() {
    PsiException e =
        assertThrows(
            PsiException.class,
            () ->
                PsiSession.create(KKRT, PsiRole.HELPER, ElementSets.random(6, 4, 4, 2).params(1))
                    .close());
    assertEquals(PsiStatus.ARGUMENT, e.status(), e.getMessage());
  }

  @Test
  void driverRejectsSwappedRolesAndHalfImportedSetups() {
    ElementSets sets = ElementSets.random(7, 50, 50, 10);
    try (Pair p = pairWithInputs(sets, 1, 7)) {
      assertThrows(IllegalArgumentException.class, () -> DRIVER.run(p.sender, p.receiver));
      byte[] setup;
      try (Pair q = sessions(sets, 1, 8)) {
        DRIVER.runSetup(q.receiver, q.sender);
        setup = q.receiver.exportSetup();
      }
      p.receiver.importSetup(setup);
      assertThrows(IllegalArgumentException.class, () -> DRIVER.run(p.receiver, p.sender));
    }
    assertThrows(IllegalArgumentException.class, () -> new RoundDriver(0));
  }

  @Test
  void exportedSetupServesTwoOnlineRunsWithDistinctInstances() {
    int n = 1500;
    byte[] receiverSetup;
    byte[] senderSetup;
    ElementSets first = ElementSets.random(11, n, n, 400);
    try (Pair p = pairWithInputs(first, 1, 11)) {
      PhaseTraffic setup = DRIVER.runSetup(p.receiver, p.sender);
      receiverSetup = p.receiver.exportSetup();
      senderSetup = p.sender.exportSetup();
      assertMatchesOracle(first, DRIVER.runOnline(p.receiver, p.sender, setup));
    }
    assertTrue(receiverSetup.length > 0 && senderSetup.length > 0);
    ElementSets[] later = {ElementSets.random(12, n, n, 0), ElementSets.random(13, n, n, n)};
    for (int i = 0; i < later.length; i++) {
      try (Pair p = sessions(later[i], 2 + i, 20 + i)) {
        p.receiver.importSetup(receiverSetup);
        p.sender.importSetup(senderSetup);
        p.receiver.setInput(later[i].receiver, n, ElementSets.LEN);
        p.sender.setInput(later[i].sender, n, ElementSets.LEN);
        PsiRunResult r = DRIVER.run(p.receiver, p.sender);
        assertEquals(PhaseTraffic.NONE, r.setup(), "imported setup skips the setup rounds");
        assertMatchesOracle(later[i], r);
      }
    }
  }

  /**
   * 256-bit instances through the binding: equal 32-byte instances agree with the oracle; two that
   * differ only in their first (highest) byte are refused by the peer as another instance, which a
   * 63-bit instance could not even express.
   */
  @Test
  void fullWidthInstancesRunAndDifferingHighBitsAreRefused() {
    ElementSets sets = ElementSets.random(15, 800, 900, 300);
    byte[] inst = new byte[PsiParams.INSTANCE_BYTES];
    new Random(15).nextBytes(inst);
    byte[] other = inst.clone();
    other[0] ^= (byte) 0x80;
    PsiParams base = sets.params(0);
    PsiParams pa = base.toBuilder().instance(inst).build();
    PsiParams pb = base.toBuilder().instance(other).build();
    Random rnd = new Random(16);
    try (PsiSession r = PsiSession.create(KKRT, PsiRole.RECEIVER, pa, ElementSets.seed(rnd));
        PsiSession s = PsiSession.create(KKRT, PsiRole.SENDER, pa, ElementSets.seed(rnd))) {
      r.setInput(sets.receiver, sets.receiverCount, ElementSets.LEN);
      s.setInput(sets.sender, sets.senderCount, ElementSets.LEN);
      assertMatchesOracle(sets, DRIVER.run(r, s));
    }
    try (PsiSession r = PsiSession.create(KKRT, PsiRole.RECEIVER, pa, ElementSets.seed(rnd));
        PsiSession s = PsiSession.create(KKRT, PsiRole.SENDER, pb, ElementSets.seed(rnd))) {
      r.setInput(sets.receiver, sets.receiverCount, ElementSets.LEN);
      s.setInput(sets.sender, sets.senderCount, ElementSets.LEN);
      PsiException e = assertThrows(PsiException.class, () -> DRIVER.run(r, s));
      assertEquals(PsiStatus.PEER_MESSAGE, e.status(), e.getMessage());
      assertTrue(e.getMessage().contains("instance"), e.getMessage());
    }
    PsiException bad =
        assertThrows(
            PsiException.class,
            () ->
                PsiSession.create(
                        KKRT,
                        PsiRole.RECEIVER,
                        base.toBuilder().with(PsiParams.INSTANCE, "ab".repeat(31) + "zz").build())
                    .close());
    assertEquals(PsiStatus.ARGUMENT, bad.status(), bad.getMessage());
  }

  /**
   * output=both: a modified receiver that claims a position it did not match (with any proof), or
   * alters a genuine claim's proof, is refused by the sender, which then outputs nothing. The
   * claims message is u32 count | count x (u32 position | u64 proof), little-endian, positions
   * ascending.
   */
  @Test
  void senderRefusesUnverifiableIntersectionClaims() {
    ElementSets sets = ElementSets.random(17, 400, 500, 40);
    List<UnaryOperator<byte[]>> tampers =
        List.of(
            m -> { // one extra claim: the first unclaimed position, the proof of the first genuine
              // claim
              ByteBuffer in = ByteBuffer.wrap(m).order(java.nio.ByteOrder.LITTLE_ENDIAN);
              int count = in.getInt();
              List<long[]> claims = new ArrayList<>();
              Set<Integer> used = new java.util.HashSet<>();
              for (int k = 0; k < count; k++) {
                int pos = in.getInt();
                claims.add(new long[] {pos, in.getLong()});
                used.add(pos);
              }
              int extra = 0;
              while (used.contains(extra)) {
                extra++;
              }
              claims.add(new long[] {extra, claims.get(0)[1]});
              claims.sort((x, y) -> Long.compare(x[0], y[0]));
              ByteBuffer out =
                  ByteBuffer.allocate(4 + 12 * claims.size())
                      .order(java.nio.ByteOrder.LITTLE_ENDIAN);
              out.putInt(claims.size());
              for (long[] c : claims) {
                out.putInt((int) c[0]).putLong(c[1]);
              }
              return out.array();
            },
            m -> { // a genuine claim with one proof bit flipped
              byte[] t = m.clone();
              t[4 + 4 + 3] ^= 0x10;
              return t;
            });
    for (int t = 0; t < tampers.size(); t++) {
      try (Pair p = pairWithInputs(sets, 3, 17 + t)) {
        DRIVER.runSetup(p.receiver, p.sender);
        PsiPhase on = PsiPhase.ONLINE;
        p.receiver.feed(on, 0, new byte[0], true);
        p.sender.feed(on, 1, emitAll(p.receiver, on, 0), true);
        p.receiver.feed(on, 2, emitAll(p.sender, on, 1), true);
        byte[] claims = emitAll(p.receiver, on, 2);
        assertEquals(4 + 12 * sets.overlap, claims.length, "honest claims: 12 bytes each");
        assertArrayEquals(sets.expectedReceiver(), p.receiver.resultIndices());
        byte[] forged = tampers.get(t).apply(claims);
        PsiException e =
            assertThrows(
                PsiException.class,
                () -> {
                  p.sender.feed(on, 3, forged, true);
                  emitAll(p.sender, on, 3);
                },
                "tamper " + t);
        assertEquals(PsiStatus.PEER_MESSAGE, e.status(), e.getMessage());
        assertTrue(e.getMessage().contains("proof"), e.getMessage());
        assertThrows(PsiException.class, p.sender::resultIndices, "the sender outputs nothing");
      }
    }
  }

  @Test
  void truncatedSetupImportIsAnErrorNotACrash() {
    ElementSets sets = ElementSets.random(14, 50, 50, 10);
    byte[] exported;
    try (Pair p = sessions(sets, 1, 14)) {
      DRIVER.runSetup(p.receiver, p.sender);
      exported = p.receiver.exportSetup();
    }
    try (PsiSession fresh = PsiSession.create(KKRT, PsiRole.RECEIVER, sets.params(2))) {
      assertThrows(
          PsiException.class,
          () -> fresh.importSetup(Arrays.copyOf(exported, exported.length / 2)));
    }
  }

  @Test
  void chunkSizeDoesNotChangeTheAnswerOrTheTraffic() {
    ElementSets sets = ElementSets.random(21, 1500, 1200, 600);
    PsiRunResult big = runAndCheck(sets, DRIVER, 21);
    PsiRunResult small = runAndCheck(sets, new RoundDriver(1000), 21);
    PsiRunResult tiny = runAndCheck(sets, new RoundDriver(7), 21);
    assertTrue(big.bytesReceiverToSender() > 0 && big.bytesSenderToReceiver() > 0);
    for (PsiRunResult r : List.of(small, tiny)) {
      assertEquals(big.bytesReceiverToSender(), r.bytesReceiverToSender());
      assertEquals(big.bytesSenderToReceiver(), r.bytesSenderToReceiver());
    }
  }

  @Test
  void byteBufferPathsGiveTheSameAnswer() {
    ElementSets sets = ElementSets.random(31, 900, 1100, 450);
    for (boolean direct : new boolean[] {true, false}) {
      try (Pair p = sessions(sets, 1, 31)) {
        p.receiver.setInput(directCopy(sets.receiver), sets.receiverCount, ElementSets.LEN);
        p.sender.setInput(directCopy(sets.sender), sets.senderCount, ElementSets.LEN);
        ByteBuffer chunk = direct ? ByteBuffer.allocateDirect(3000) : ByteBuffer.allocate(3000);
        for (PsiPhase phase : PsiPhase.values()) {
          driveWithByteBuffers(p, phase, chunk);
        }
        assertArrayEquals(sets.expectedReceiver(), p.receiver.resultIndices());
        assertArrayEquals(sets.expectedSender(), p.sender.resultIndices());
      }
    }
  }

  @Test
  void truncatedOrExtendedPeerMessageIsPeerMessageError() {
    List<UnaryOperator<byte[]>> tampers =
        List.of(
            m -> Arrays.copyOf(m, m.length > 12 ? 12 : m.length - 1),
            m -> Arrays.copyOf(m, m.length + 1),
            m -> Arrays.copyOf(m, m.length / 2));
    for (PsiPhase phase : PsiPhase.values()) {
      for (int t = 0; t < tampers.size(); t++) {
        ElementSets sets = ElementSets.random(40 + t, 300, 300, 100);
        try (Pair p = pairWithInputs(sets, 1, 40 + t)) {
          if (phase == PsiPhase.ONLINE) {
            DRIVER.runSetup(p.receiver, p.sender);
          }
          Tampered bad = driveUntilFirstMessage(p, phase, tampers.get(t));
          PsiException e =
              assertThrows(
                  PsiException.class,
                  () -> {
                    bad.target.feed(phase, bad.round, bad.message, true);
                    emitAll(bad.target, phase, bad.round);
                  },
                  phase + " tamper " + t);
          assertEquals(PsiStatus.PEER_MESSAGE, e.status(), e.getMessage());
          assertTrue(e.getMessage().startsWith("PSI_ERR_PEER_MESSAGE"), e.getMessage());
          // The session is failed now: further round calls are STATE errors.
          PsiException after =
              assertThrows(PsiException.class, () -> emitAll(bad.target, phase, bad.round));
          assertEquals(PsiStatus.STATE, after.status(), after.getMessage());
        }
      }
    }
  }

  @Test
  void randomGarbageOfTheRightLengthNeverCrashes() {
    ElementSets sets = ElementSets.random(50, 300, 300, 100);
    Random rnd = new Random(50);
    for (PsiPhase phase : PsiPhase.values()) {
      try (Pair p = pairWithInputs(sets, 1, 50)) {
        if (phase == PsiPhase.ONLINE) {
          DRIVER.runSetup(p.receiver, p.sender);
        }
        try {
          Tampered bad =
              driveUntilFirstMessage(
                  p,
                  phase,
                  m -> {
                    rnd.nextBytes(m);
                    return m;
                  });
          bad.target.feed(phase, bad.round, bad.message, true);
          emitAll(bad.target, phase, bad.round);
        } catch (PsiException expected) {
          // Rejecting garbage is fine; crashing or hanging is not.
        }
      }
    }
  }

  @Test
  void unknownProtocolIsArgumentError() {
    PsiException e =
        assertThrows(
            PsiException.class,
            () -> PsiSession.create("no-such-protocol", PsiRole.RECEIVER, PsiParams.empty()));
    assertEquals(PsiStatus.ARGUMENT, e.status());
    assertFalse(e.nativeMessage().isEmpty(), "the native side explains the error");
    assertTrue(e.getMessage().startsWith("PSI_ERR_ARGUMENT: "), e.getMessage());
  }

  @Test
  void badParametersAreArgumentErrors() {
    String base = "receiver_size=10,sender_size=10,instance=1";
    for (String params :
        List.of(
            base + ",no_such_key=1",
            "receiver_size=abc,sender_size=10",
            base + ",output=nobody",
            "receiver_size=-5,sender_size=10")) {
      PsiException e =
          assertThrows(
              PsiException.class,
              () -> PsiSession.create(KKRT, PsiRole.SENDER, PsiParams.parse(params)).close(),
              params);
      assertEquals(PsiStatus.ARGUMENT, e.status(), params + ": " + e.getMessage());
    }
    PsiException shortSeed =
        assertThrows(
            PsiException.class,
            () -> PsiSession.create(KKRT, PsiRole.RECEIVER, PsiParams.parse(base), new byte[31]));
    assertEquals(PsiStatus.ARGUMENT, shortSeed.status(), shortSeed.getMessage());
  }

  @Test
  void unknownRoleIsArgumentError() {
    byte[] err = new byte[256];
    int rc =
        PsiNative.psi_session_create(
            KKRT,
            7,
            "receiver_size=1,sender_size=1",
            new byte[32],
            32,
            new com.sun.jna.ptr.PointerByReference(),
            err,
            err.length);
    assertEquals(PsiStatus.ARGUMENT, PsiStatus.fromCode(rc));
  }

  @Test
  void roundsOutOfOrderAreStateErrors() {
    ElementSets sets = ElementSets.random(60, 100, 100, 50);
    // Online before the setup is complete.
    try (Pair p = pairWithInputs(sets, 1, 60)) {
      PsiSession owner = p.receiver.isMine(PsiPhase.ONLINE, 0) ? p.receiver : p.sender;
      assertStatus(PsiStatus.STATE, () -> owner.feed(PsiPhase.ONLINE, 0, new byte[0], true));
    }
    // Emitting round 0 before feeding it.
    try (Pair p = pairWithInputs(sets, 1, 61)) {
      PsiSession owner = p.receiver.isMine(PsiPhase.SETUP, 0) ? p.receiver : p.sender;
      assertStatus(PsiStatus.STATE, () -> owner.emit(PsiPhase.SETUP, 0, new byte[64]));
    }
    // Feeding "last" twice.
    try (Pair p = pairWithInputs(sets, 1, 62)) {
      PsiSession owner = p.receiver.isMine(PsiPhase.SETUP, 0) ? p.receiver : p.sender;
      owner.feed(PsiPhase.SETUP, 0, new byte[0], true);
      assertStatus(PsiStatus.STATE, () -> owner.feed(PsiPhase.SETUP, 0, new byte[0], true));
    }
    // Results before the online rounds ran.
    try (Pair p = pairWithInputs(sets, 1, 63)) {
      DRIVER.runSetup(p.receiver, p.sender);
      assertStatus(PsiStatus.STATE, p.receiver::resultIndices);
    }
    // Online rounds without an input.
    try (Pair p = sessions(sets, 1, 64)) {
      DRIVER.runSetup(p.receiver, p.sender);
      PsiSession owner = p.receiver.isMine(PsiPhase.ONLINE, 0) ? p.receiver : p.sender;
      assertStatus(
          PsiStatus.STATE,
          () -> {
            owner.feed(PsiPhase.ONLINE, 0, new byte[0], true);
            emitAll(owner, PsiPhase.ONLINE, 0);
          });
    }
  }

  @Test
  void roundTwoBeforeRoundZeroIsStateError() {
    ElementSets sets = ElementSets.random(65, 100, 100, 50);
    try (Pair p = pairWithInputs(sets, 1, 65)) {
      assumeTrue(p.receiver.roundCount(PsiPhase.SETUP) >= 3, "needs three setup rounds");
      PsiSession owner = p.receiver.isMine(PsiPhase.SETUP, 2) ? p.receiver : p.sender;
      assertStatus(PsiStatus.STATE, () -> owner.feed(PsiPhase.SETUP, 2, new byte[0], true));
    }
  }

  @Test
  void duplicateElementIsInputError() {
    // The header does not say which call detects a duplicate (set_input, or the online rounds once
    // the setup is there), so the whole run is inside the assertion.
    ElementSets sets = ElementSets.random(70, 100, 100, 50);
    for (PsiRole withDuplicate : List.of(PsiRole.RECEIVER, PsiRole.SENDER)) {
      try (Pair p = sessions(sets, 1, 70)) {
        byte[] r = sets.receiver.clone();
        byte[] s = sets.sender.clone();
        byte[] dup = withDuplicate == PsiRole.RECEIVER ? r : s;
        System.arraycopy(dup, 3 * ElementSets.LEN, dup, 77 * ElementSets.LEN, ElementSets.LEN);
        assertStatus(
            PsiStatus.INPUT,
            () -> {
              p.receiver.setInput(r, 100, ElementSets.LEN);
              p.sender.setInput(s, 100, ElementSets.LEN);
              DRIVER.run(p.receiver, p.sender);
            });
      }
    }
  }

  @Test
  void miscountedInputIsInputError() {
    ElementSets sets = ElementSets.random(71, 100, 100, 50);
    try (Pair p = sessions(sets, 1, 71)) {
      byte[] fewer = Arrays.copyOf(sets.sender, 99 * ElementSets.LEN);
      assertStatus(PsiStatus.INPUT, () -> p.sender.setInput(fewer, 99, ElementSets.LEN));
    }
  }

  @Test
  void javaSideRejectsAMismatchedInputArray() {
    ElementSets sets = ElementSets.random(72, 10, 10, 5);
    try (Pair p = sessions(sets, 1, 72)) {
      assertThrows(
          IllegalArgumentException.class,
          () -> p.receiver.setInput(sets.receiver, 11, ElementSets.LEN));
    }
  }

  @Test
  void fourPairsOnFourThreads() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> runs = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        ElementSets sets = ElementSets.random(80 + i, 3000 + 500 * i, 3000, 700 * i);
        long seed = 80 + i;
        runs.add(
            pool.submit(
                () -> {
                  start.await();
                  return runAndCheck(sets, new RoundDriver(64 * 1024), seed);
                }));
      }
      start.countDown();
      for (Future<?> f : runs) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void closeIsIdempotentAndLaterCallsAreIllegalState() {
    PsiSession s =
        PsiSession.create(KKRT, PsiRole.RECEIVER, ElementSets.random(90, 4, 4, 2).params(1));
    s.close();
    s.close();
    assertTrue(s.isClosed());
    assertThrows(IllegalStateException.class, () -> s.roundCount(PsiPhase.SETUP));
    assertThrows(IllegalStateException.class, () -> s.emit(PsiPhase.SETUP, 0, new byte[8]));
  }

  // --- manual driving helpers -------------------------------------------------------------------

  /** The first non-empty message of a phase, tampered, and who should consume it in which round. */
  private static final class Tampered {
    final PsiSession target;
    final int round;
    final byte[] message;

    Tampered(PsiSession target, int round, byte[] message) {
      this.target = target;
      this.round = round;
      this.message = message;
    }
  }

  /** Drives a phase honestly until a round emits a non-empty message; returns it tampered. */
  private static Tampered driveUntilFirstMessage(
      Pair p, PsiPhase phase, UnaryOperator<byte[]> tamper) {
    int rounds = p.receiver.roundCount(phase);
    PsiSession owner = p.receiver.isMine(phase, 0) ? p.receiver : p.sender;
    owner.feed(phase, 0, new byte[0], true);
    for (int r = 0; r + 1 < rounds; r++) {
      PsiSession peer = owner == p.receiver ? p.sender : p.receiver;
      byte[] message = emitAll(owner, phase, r);
      if (message.length > 0) {
        return new Tampered(peer, r + 1, tamper.apply(message));
      }
      peer.feed(phase, r + 1, message, true);
      owner = peer;
    }
    throw new AssertionError(phase + " has no non-empty message");
  }

  private static byte[] emitAll(PsiSession s, PsiPhase phase, int round) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] chunk = new byte[4096];
    EmitResult e;
    do {
      e = s.emit(phase, round, chunk);
      out.write(chunk, 0, e.written());
    } while (!e.done());
    return out.toByteArray();
  }

  /** Like RoundDriver, but through the ByteBuffer overloads. */
  private static void driveWithByteBuffers(Pair p, PsiPhase phase, ByteBuffer chunk) {
    int rounds = p.receiver.roundCount(phase);
    if (rounds == 0) {
      return;
    }
    PsiSession owner = p.receiver.isMine(phase, 0) ? p.receiver : p.sender;
    owner.feed(phase, 0, ByteBuffer.allocate(0), true);
    for (int r = 0; r < rounds; r++) {
      PsiSession peer = owner == p.receiver ? p.sender : p.receiver;
      EmitResult e;
      do {
        chunk.clear();
        e = owner.emit(phase, r, chunk);
        assertEquals(e.written(), chunk.position());
        chunk.flip();
        if (r + 1 < rounds) {
          peer.feed(phase, r + 1, chunk, e.done());
          assertFalse(chunk.hasRemaining());
        }
      } while (!e.done());
      owner = peer;
    }
  }

  private static ByteBuffer directCopy(byte[] data) {
    ByteBuffer b = ByteBuffer.allocateDirect(data.length);
    b.put(data).flip();
    return b;
  }

  private static void assertStatus(PsiStatus expected, Runnable call) {
    try {
      call.run();
    } catch (PsiException e) {
      assertEquals(expected, e.status(), e.getMessage());
      return;
    }
    fail("expected " + expected.nativeName() + ", the call succeeded");
  }
}
