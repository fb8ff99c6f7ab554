package io.psiflink.nativepsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

/**
 * Labelled PSI ({@code output=labels}) of every protocol that offers it, through the Java binding
 * and {@link RoundDriver}, against a plaintext oracle: a HashMap from the sender's elements to
 * their labels, looked up for each receiver element in index order.
 */
@Timeout(120)
class LabelsJnaTest {
  private static final RoundDriver DRIVER = new RoundDriver(1 << 16);

  private static String[] labelledProtocols() {
    return ProtocolInfo.all().stream()
        .filter(ProtocolInfo::labels)
        .map(ProtocolInfo::name)
        .toArray(String[]::new);
  }

  /** The oracle: the labels of the receiver's elements the sender holds, in receiver order. */
  private static byte[] expectedLabels(ElementSets sets, byte[] labels, int labelLen) {
    Map<ByteBuffer, Integer> senderIndex = new HashMap<>();
    for (int j = 0; j < sets.senderCount; j++) {
      senderIndex.put(ByteBuffer.wrap(sets.sender, j * ElementSets.LEN, ElementSets.LEN), j);
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (int i = 0; i < sets.receiverCount; i++) {
      Integer j = senderIndex.get(ByteBuffer.wrap(sets.receiver, i * ElementSets.LEN, 16));
      if (j != null) {
        out.write(labels, j * labelLen, labelLen);
      }
    }
    return out.toByteArray();
  }

  private static PsiRunResult run(
      String protocol, ElementSets sets, byte[] labels, int labelLen, long seed) {
    Random rnd = new Random(seed);
    PsiParams params =
        PsiParams.builder()
            .receiverSize(sets.receiverCount)
            .senderSize(sets.senderCount)
            .instance(seed)
            .output(PsiParams.Output.LABELS)
            .label(labelLen)
            .build();
    try (PsiSession r =
            PsiSession.create(protocol, PsiRole.RECEIVER, params, ElementSets.seed(rnd));
        PsiSession s = PsiSession.create(protocol, PsiRole.SENDER, params, ElementSets.seed(rnd))) {
      r.setInput(sets.receiver, sets.receiverCount, ElementSets.LEN);
      s.setInput(sets.sender, sets.senderCount, ElementSets.LEN);
      s.setLabels(labels, sets.senderCount, labelLen);
      PsiRunResult result = DRIVER.run(r, s);
      // the sender learns nothing, not even the size
      PsiException e = assertThrows(PsiException.class, s::resultSize);
      assertEquals(PsiStatus.STATE, e.status());
      assertEquals(PsiStatus.STATE, assertThrows(PsiException.class, s::resultLabels).status());
      return result;
    }
  }

  @TestFactory
  Stream<DynamicTest> everyLabelledProtocolMatchesThePlaintextOracle() {
    record Case(int receivers, int senders, int overlap, int labelLen) {}
    Case[] cases = {
      new Case(0, 0, 0, 17),
      new Case(1, 1, 1, 1),
      new Case(200, 300, 0, 17),
      new Case(300, 200, 100, 64),
      new Case(500, 500, 500, 40),
      new Case(64, 64, 32, 4096),
      new Case(1 << 14, 1 << 14, 1 << 13, 40)
    };
    return Stream.of(labelledProtocols())
        .flatMap(
            protocol ->
                Stream.of(cases)
                    .map(
                        c ->
                            DynamicTest.dynamicTest(
                                protocol + " " + c,
                                () -> {
                                  long seed = c.receivers() * 31L + c.senders() + c.labelLen();
                                  ElementSets sets =
                                      ElementSets.random(
                                          seed, c.receivers(), c.senders(), c.overlap());
                                  byte[] labels = new byte[c.senders() * c.labelLen()];
                                  new Random(seed + 1).nextBytes(labels);
                                  PsiRunResult r = run(protocol, sets, labels, c.labelLen(), seed);
                                  assertArrayEquals(sets.expectedReceiver(), r.receiverIndices());
                                  assertTrue(r.senderIndices().isEmpty());
                                  assertArrayEquals(
                                      expectedLabels(sets, labels, c.labelLen()),
                                      r.labels().orElseThrow());
                                })));
  }

  @TestFactory
  Stream<DynamicTest> trafficDoesNotDependOnTheOverlap() {
    return Stream.of(labelledProtocols())
        .map(
            protocol ->
                DynamicTest.dynamicTest(
                    protocol,
                    () -> {
                      byte[] labels = new byte[2000 * 24];
                      ElementSets none = ElementSets.random(5, 2000, 2000, 0);
                      ElementSets all = ElementSets.random(6, 2000, 2000, 2000);
                      PsiRunResult a = run(protocol, none, labels, 24, 7);
                      PsiRunResult b = run(protocol, all, labels, 24, 8);
                      assertEquals(0, a.receiverIndices().length);
                      assertEquals(2000, b.receiverIndices().length);
                      assertEquals(a.bytesReceiverToSender(), b.bytesReceiverToSender());
                      assertEquals(a.bytesSenderToReceiver(), b.bytesSenderToReceiver());
                    }));
  }

  @TestFactory
  Stream<DynamicTest> labelsOfTheWrongShapeAreRefused() {
    return Stream.of(labelledProtocols())
        .map(
            protocol ->
                DynamicTest.dynamicTest(
                    protocol,
                    () -> {
                      ElementSets sets = ElementSets.random(9, 10, 10, 5);
                      PsiParams params =
                          PsiParams.builder()
                              .receiverSize(10)
                              .senderSize(10)
                              .output(PsiParams.Output.LABELS)
                              .label(8)
                              .build();
                      try (PsiSession s = PsiSession.create(protocol, PsiRole.SENDER, params)) {
                        s.setInput(sets.sender, 10, ElementSets.LEN);
                        PsiException e =
                            assertThrows(
                                PsiException.class, () -> s.setLabels(new byte[90], 10, 9));
                        assertEquals(PsiStatus.INPUT, e.status());
                      }
                      try (PsiSession r = PsiSession.create(protocol, PsiRole.RECEIVER, params)) {
                        r.setInput(sets.receiver, 10, ElementSets.LEN);
                        PsiException e =
                            assertThrows(
                                PsiException.class, () -> r.setLabels(new byte[80], 10, 8));
                        assertEquals(PsiStatus.STATE, e.status());
                      }
                    }));
  }
}
