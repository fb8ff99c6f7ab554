package io.psiflink.nativepsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

/**
 * The ecdh protocol (ristretto255 DDH PSI, server set as GCS or Bloom filter) through the Java
 * binding and {@link RoundDriver}, every answer checked against {@link ElementSets}' plaintext
 * oracle; cardinality through {@link PsiRunResult#cardinality()}.
 */
@Timeout(60)
class EcdhJnaTest {
  private static final String ECDH = "ecdh";
  private static final RoundDriver DRIVER = new RoundDriver(4096);

  private static PsiRunResult run(ElementSets sets, PsiParams params, long seed) {
    Random rnd = new Random(seed);
    try (PsiSession r = PsiSession.create(ECDH, PsiRole.RECEIVER, params, ElementSets.seed(rnd));
        PsiSession s = PsiSession.create(ECDH, PsiRole.SENDER, params, ElementSets.seed(rnd))) {
      r.setInput(sets.receiver, sets.receiverCount, ElementSets.LEN);
      s.setInput(sets.sender, sets.senderCount, ElementSets.LEN);
      return DRIVER.run(r, s);
    }
  }

  @TestFactory
  Stream<DynamicTest> everyOutputAndFilterMatchesTheOracle() {
    int[][] cases = {{0, 0, 0}, {1, 1, 1}, {100, 300, 0}, {300, 100, 50}, {500, 2000, 500}};
    List<DynamicTest> tests = new ArrayList<>();
    long seed = 700;
    for (int[] c : cases) {
      for (String filter : new String[] {"gcs", "bloom"}) {
        long caseSeed = seed++;
        ElementSets sets = ElementSets.random(caseSeed, c[0], c[1], c[2]);
        tests.add(
            DynamicTest.dynamicTest(
                sets + ", filter=" + filter,
                () -> {
                  PsiParams both = sets.params(1).toBuilder().with("filter", filter).build();
                  PsiRunResult r = run(sets, both, caseSeed);
                  assertArrayEquals(sets.expectedReceiver(), r.receiverIndices());
                  assertArrayEquals(sets.expectedSender(), r.senderIndices().orElseThrow());
                  assertFalse(r.cardinality().isPresent());

                  PsiParams recv = both.toBuilder().output(PsiParams.Output.RECEIVER).build();
                  r = run(sets, recv, caseSeed);
                  assertArrayEquals(sets.expectedReceiver(), r.receiverIndices());
                  assertFalse(r.senderIndices().isPresent());

                  PsiParams card = both.toBuilder().output(PsiParams.Output.CARDINALITY).build();
                  r = run(sets, card, caseSeed);
                  assertEquals(sets.overlap, r.cardinality().orElseThrow());
                  assertEquals(0, r.receiverIndices().length);
                  assertFalse(r.senderIndices().isPresent());
                }));
      }
    }
    return tests.stream();
  }

  @Test
  void cardinalityHasNoIndicesToGive() {
    ElementSets sets = ElementSets.random(3, 200, 300, 77);
    PsiParams params = sets.params(1).toBuilder().output(PsiParams.Output.CARDINALITY).build();
    Random rnd = new Random(3);
    try (PsiSession r = PsiSession.create(ECDH, PsiRole.RECEIVER, params, ElementSets.seed(rnd));
        PsiSession s = PsiSession.create(ECDH, PsiRole.SENDER, params, ElementSets.seed(rnd))) {
      r.setInput(sets.receiver, sets.receiverCount, ElementSets.LEN);
      s.setInput(sets.sender, sets.senderCount, ElementSets.LEN);
      DRIVER.run(r, s);
      assertEquals(77, r.resultSize());
      PsiException e = assertThrows(PsiException.class, r::resultIndices);
      assertEquals(PsiStatus.STATE, e.status());
    }
  }

  @Test
  void aStaticServerSetupServesLaterClients() {
    ElementSets first = ElementSets.random(11, 150, 1000, 60);
    PsiParams params = first.params(1);
    Random rnd = new Random(11);
    byte[] serverSetup;
    byte[] clientSetup;
    try (PsiSession r = PsiSession.create(ECDH, PsiRole.RECEIVER, params, ElementSets.seed(rnd));
        PsiSession s = PsiSession.create(ECDH, PsiRole.SENDER, params, ElementSets.seed(rnd))) {
      s.setInput(first.sender, first.senderCount, ElementSets.LEN);
      r.setInput(first.receiver, first.receiverCount, ElementSets.LEN);
      DRIVER.runSetup(r, s);
      serverSetup = s.exportSetup();
      clientSetup = r.exportSetup();
    }
    for (long instance = 2; instance < 5; instance++) {
      PsiParams p = first.params(instance);
      try (PsiSession r = PsiSession.create(ECDH, PsiRole.RECEIVER, p, ElementSets.seed(rnd));
          PsiSession s = PsiSession.create(ECDH, PsiRole.SENDER, p, ElementSets.seed(rnd))) {
        r.importSetup(clientSetup);
        s.importSetup(serverSetup);
        s.setInput(first.sender, first.senderCount, ElementSets.LEN);
        r.setInput(first.receiver, first.receiverCount, ElementSets.LEN);
        PsiRunResult res = DRIVER.run(r, s);
        assertArrayEquals(first.expectedReceiver(), res.receiverIndices());
        assertArrayEquals(first.expectedSender(), res.senderIndices().orElseThrow());
        assertTrue(res.setup().bytesSenderToReceiver() == 0, "setup skipped");
      }
    }
  }
}
