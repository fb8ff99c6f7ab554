package io.psiflink.nativepsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link ProtocolInfo} as read from the library: the fields of kkrt, ecdh and rr22, the lookups,
 * and that every protocol the library lists — whatever it is — runs end to end by its description
 * alone, checked against a plaintext intersection.
 */
class ProtocolInfoTest {

  @Test
  void listsTheLibrarysProtocolsInItsOrder() {
    List<ProtocolInfo> all = ProtocolInfo.all();
    assertEquals(List.of("rr22", "kkrt", "ecdh"), all.stream().map(ProtocolInfo::name).toList());
    assertEquals(PsiNative.psi_protocol_count(), all.size() + ProtocolInfo.multiparty().size());
    assertEquals(
        List.of("mpsi"), ProtocolInfo.multiparty().stream().map(ProtocolInfo::name).toList());
    ProtocolInfo m = ProtocolInfo.multiparty().get(0);
    assertEquals(0, m.parties());
    assertEquals(List.of(PsiRole.PARTY, PsiRole.PROVIDER), m.roles());
    assertTrue(ProtocolInfo.find("mpsi").isEmpty(), "not a two-party protocol");
    assertEquals("rr22, kkrt, ecdh", ProtocolInfo.knownNames());
    assertEquals("rr22", ProtocolInfo.defaultProtocol().name());
    assertThrows(UnsupportedOperationException.class, () -> all.add(all.get(0)));
  }

  @Test
  void kkrtAsDocumented() {
    ProtocolInfo k = ProtocolInfo.byName("kkrt");
    assertEquals(2, k.parties());
    assertEquals(List.of(PsiRole.RECEIVER, PsiRole.SENDER), k.roles());
    assertEquals(
        EnumSet.of(PsiParams.Output.RECEIVER, PsiParams.Output.BOTH, PsiParams.Output.LABELS),
        k.outputs());
    assertEquals(PsiParams.Output.RECEIVER, k.defaultOutput());
    assertFalse(k.supportsCardinality());
    assertFalse(k.setupNeedsSenderSet());
    assertTrue(k.setupReusable());
    assertTrue(k.labels());
    assertEquals(16, k.elementLenMin());
    assertEquals(16, k.elementLenMax());
    assertEquals(1L << 28, k.maxSetSize());
    assertEquals(
        List.of(
            "receiver_size",
            "sender_size",
            "instance",
            "output",
            "label",
            "sigma",
            "hashes",
            "slots",
            "separate_tables",
            "bin_factor",
            "stash"),
        k.params());
    assertFalse(k.summary().isEmpty());
  }

  @Test
  void ecdhAsDocumented() {
    ProtocolInfo e = ProtocolInfo.byName("ecdh");
    assertEquals(2, e.parties());
    assertEquals(List.of(PsiRole.RECEIVER, PsiRole.SENDER), e.roles());
    assertEquals(EnumSet.allOf(PsiParams.Output.class), e.outputs());
    assertTrue(e.supportsCardinality());
    assertTrue(e.labels());
    assertTrue(e.setupNeedsSenderSet());
    assertFalse(e.setupReusable());
    assertEquals(1, e.elementLenMin());
    assertEquals(4096, e.elementLenMax());
    assertTrue(e.acceptsElementLength(16));
    assertFalse(e.acceptsElementLength(4097));
    assertEquals(1L << 32, e.maxSetSize());
    assertEquals(
        List.of("receiver_size", "sender_size", "instance", "output", "label", "fpr", "filter"),
        e.params());
  }

  @Test
  void rr22AsDocumented() {
    ProtocolInfo r = ProtocolInfo.byName("rr22");
    assertEquals(2, r.parties());
    assertEquals(List.of(PsiRole.RECEIVER, PsiRole.SENDER), r.roles());
    assertEquals(
        EnumSet.of(PsiParams.Output.RECEIVER, PsiParams.Output.BOTH, PsiParams.Output.LABELS),
        r.outputs());
    assertTrue(r.labels());
    assertFalse(r.supportsCardinality());
    assertFalse(r.setupNeedsSenderSet());
    assertTrue(r.setupReusable());
    assertEquals(16, r.elementLenMin());
    assertEquals(16, r.elementLenMax());
    assertEquals(1L << 28, r.maxSetSize());
    assertEquals(
        List.of(
            "receiver_size",
            "sender_size",
            "instance",
            "output",
            "label",
            "sigma",
            "piece",
            "threads"),
        r.params());
  }

  @Test
  void anUnknownNameNamesTheKnownOnes() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ProtocolInfo.byName("rsa"));
    assertEquals("unknown protocol 'rsa' (known: rr22, kkrt, ecdh)", e.getMessage());
    assertTrue(ProtocolInfo.find("KKRT").isEmpty(), "names are case-sensitive, as in the library");
  }

  @Test
  void theNativeLookupByNameAgrees() {
    for (ProtocolInfo p : ProtocolInfo.all()) {
      PsiNative.Description d = new PsiNative.Description();
      assertEquals(0, PsiNative.psi_protocol_info_by_name(p.name(), d, d.size()));
      d.read();
      assertEquals(p.name(), d.name);
      assertEquals(p.setupNeedsSenderSet(), d.setupNeedsSenderSet != 0);
    }
    PsiNative.Description d = new PsiNative.Description();
    assertEquals(
        PsiStatus.ARGUMENT.code(), PsiNative.psi_protocol_info_by_name("nope", d, d.size()));
    assertEquals(PsiStatus.ARGUMENT.code(), PsiNative.psi_protocol_info(99, d, d.size()));
    assertEquals(PsiStatus.ARGUMENT.code(), PsiNative.psi_protocol_info(0, d, d.size() - 8));
    d.read();
    assertNull(d.name);
  }

  @Test
  void roleNamesComeFromTheLibrary() {
    assertEquals("receiver", PsiRole.RECEIVER.nativeName());
    assertEquals("sender", PsiRole.SENDER.nativeName());
    assertEquals("helper", PsiRole.HELPER.nativeName());
    assertEquals("party", PsiRole.PARTY.nativeName());
    assertEquals("provider", PsiRole.PROVIDER.nativeName());
    assertEquals(PsiRole.SENDER, PsiRole.of(1));
    assertThrows(IllegalArgumentException.class, () -> PsiRole.of(9));
  }

  @Test
  void theValueIsImmutable() {
    ProtocolInfo k = ProtocolInfo.byName("kkrt");
    assertThrows(UnsupportedOperationException.class, () -> k.roles().clear());
    assertThrows(UnsupportedOperationException.class, () -> k.outputs().clear());
    assertThrows(UnsupportedOperationException.class, () -> k.params().clear());
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new ProtocolInfo(
                "x",
                "",
                2,
                List.of(),
                Set.of(PsiParams.Output.BOTH),
                PsiParams.Output.RECEIVER,
                false,
                false,
                16,
                16,
                1,
                List.of()));
  }

  static Stream<Arguments> everyProtocolAndOutput() {
    return ProtocolInfo.all().stream()
        .flatMap(p -> p.outputs().stream().map(o -> Arguments.of(p.name(), o)));
  }

  /**
   * Selectable by its description alone: the roles, the element length and the output mode come
   * from {@link ProtocolInfo}, the setup runs per run or once and imported as it says; the answer
   * is checked against the plaintext intersection.
   */
  @ParameterizedTest(name = "{0} output={1}")
  @MethodSource("everyProtocolAndOutput")
  void everyListedProtocolRunsEndToEnd(String name, PsiParams.Output output) {
    ProtocolInfo p = ProtocolInfo.byName(name);
    assertEquals(2, p.parties(), "this in-process run drives two-party protocols");
    assertTrue(p.acceptsElementLength(ElementSets.LEN));
    ElementSets sets = ElementSets.random(name.hashCode() + output.ordinal(), 300, 260, 117);
    PsiParams.Builder builder =
        PsiParams.builder()
            .receiverSize(sets.receiverCount)
            .senderSize(sets.senderCount)
            .instance(42)
            .output(output);
    // output=labels: each sender element's label is its own first 8 bytes, so the receiver's
    // expected labels are the first 8 bytes of its matching elements
    boolean labelled = output == PsiParams.Output.LABELS;
    int labelLen = 8;
    byte[] labels = new byte[sets.senderCount * labelLen];
    for (int j = 0; j < sets.senderCount; j++) {
      System.arraycopy(sets.sender, j * ElementSets.LEN, labels, j * labelLen, labelLen);
    }
    PsiParams params = (labelled ? builder.label(labelLen) : builder).build();
    PsiRole receiverRole = p.roles().get(0);
    PsiRole senderRole = p.roles().get(1);
    try (PsiSession r = PsiSession.create(name, receiverRole, params);
        PsiSession s = PsiSession.create(name, senderRole, params)) {
      r.setInput(sets.receiver, sets.receiverCount, ElementSets.LEN);
      s.setInput(sets.sender, sets.senderCount, ElementSets.LEN);
      if (labelled) {
        s.setLabels(labels, sets.senderCount, labelLen);
      }
      PsiRunResult result;
      RoundDriver driver = new RoundDriver(4096);
      if (p.setupReusable()) {
        // setup once, exported and imported by a fresh pair, as the job's bins do
        driver.runSetup(r, s);
        byte[] rs = r.exportSetup();
        byte[] ss = s.exportSetup();
        try (PsiSession r2 = PsiSession.create(name, receiverRole, params);
            PsiSession s2 = PsiSession.create(name, senderRole, params)) {
          r2.importSetup(rs);
          s2.importSetup(ss);
          r2.setInput(sets.receiver, sets.receiverCount, ElementSets.LEN);
          s2.setInput(sets.sender, sets.senderCount, ElementSets.LEN);
          if (labelled) {
            s2.setLabels(labels, sets.senderCount, labelLen);
          }
          result = driver.run(r2, s2);
        }
      } else {
        result = driver.run(r, s);
      }
      long[] wantR =
          ElementSets.expected(sets.receiver, sets.receiverCount, sets.sender, sets.senderCount);
      long[] wantS =
          ElementSets.expected(sets.sender, sets.senderCount, sets.receiver, sets.receiverCount);
      assertEquals(117, wantR.length);
      switch (output) {
        case CARDINALITY -> assertEquals(117, result.cardinality().orElseThrow());
        case RECEIVER -> {
          assertArrayEquals(wantR, result.receiverIndices());
          assertTrue(result.senderIndices().isEmpty());
        }
        case BOTH -> {
          assertArrayEquals(wantR, result.receiverIndices());
          assertArrayEquals(wantS, result.senderIndices().orElseThrow());
        }
        case LABELS -> {
          assertArrayEquals(wantR, result.receiverIndices());
          assertTrue(result.senderIndices().isEmpty());
          byte[] want = new byte[wantR.length * labelLen];
          for (int k = 0; k < wantR.length; k++) {
            System.arraycopy(
                sets.receiver, (int) wantR[k] * ElementSets.LEN, want, k * labelLen, labelLen);
          }
          assertArrayEquals(want, result.labels().orElseThrow());
        }
      }
    }
  }
}
