package io.psiflink.nativepsi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The multiparty protocol ({@link ProtocolInfo#multiparty()}: n parties and a provider) through the
 * Java binding, {@link PsiSession#feedFrom} and {@link PsiSession#setGroupSecret} included, every
 * party's answer checked against a plaintext n-way intersection.
 */
@Timeout(60)
class MultipartyJnaTest {
  private static final int LEN = 16;

  @Test
  void fourPartiesAndTheProviderFindTheCommonElements() {
    ProtocolInfo info = ProtocolInfo.multiparty().get(0);
    int n = 4;
    int size = 40;
    Random rnd = new Random(15);
    List<byte[]> common = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      common.add(random(rnd));
    }
    byte[][] sets = new byte[n][];
    long[][] expected = new long[n][];
    for (int p = 0; p < n; p++) {
      List<byte[]> elems = new ArrayList<>(common); // then private ones, up to size - p
      for (int i = elems.size(); i < size - p; i++) {
        elems.add(random(rnd));
      }
      java.util.Collections.shuffle(elems, rnd);
      ByteBuffer b = ByteBuffer.allocate(elems.size() * LEN);
      List<Long> mine = new ArrayList<>();
      for (int i = 0; i < elems.size(); i++) {
        b.put(elems.get(i));
        for (byte[] c : common) {
          if (java.util.Arrays.equals(c, elems.get(i))) {
            mine.add((long) i);
          }
        }
      }
      sets[p] = b.array();
      expected[p] = mine.stream().mapToLong(Long::longValue).toArray();
    }

    PsiParams common4 =
        PsiParams.builder()
            .with("parties", Integer.toString(n))
            .with("set_size", Integer.toString(size))
            .with("fpr", "1e-6")
            .instance(7)
            .build();
    byte[] secret = new byte[32];
    rnd.nextBytes(secret);
    PsiSession provider = PsiSession.create(info.name(), PsiRole.PROVIDER, common4);
    PsiSession[] party = new PsiSession[n];
    try {
      for (int p = 0; p < n; p++) {
        party[p] =
            PsiSession.create(
                info.name(),
                PsiRole.PARTY,
                common4.toBuilder().with("index", Integer.toString(p)).build());
        party[p].setInput(sets[p], sets[p].length / LEN, LEN);
        party[p].setGroupSecret(secret);
      }
      for (PsiPhase phase : PsiPhase.values()) {
        int rounds = provider.roundCount(phase);
        for (int r = 0; r < rounds; r++) {
          if (provider.isMine(phase, r)) {
            byte[] msg = drain(provider, phase, r);
            for (PsiSession s : party) {
              s.feed(phase, r + 1, msg, true);
            }
          } else {
            for (int p = 0; p < n; p++) {
              if (r == 0) {
                party[p].feed(phase, 0, new byte[0], true);
              }
              byte[] msg = drain(party[p], phase, r);
              if (r + 1 < rounds) {
                provider.feedFrom(phase, r + 1, p, msg, 0, msg.length, true);
              }
            }
          }
        }
      }
      for (int p = 0; p < n; p++) {
        assertArrayEquals(expected[p], party[p].resultIndices(), "party " + p);
      }
      PsiException e = assertThrows(PsiException.class, provider::resultSize);
      assertEquals(PsiStatus.STATE, e.status());
    } finally {
      provider.close();
      for (PsiSession s : party) {
        if (s != null) {
          s.close();
        }
      }
    }
  }

  @Test
  void theProviderRefusesTheGroupSecretAndAPartyRefusesFeedFrom() {
    ProtocolInfo info = ProtocolInfo.multiparty().get(0);
    PsiParams params = PsiParams.builder().with("parties", "3").with("set_size", "4").build();
    try (PsiSession provider = PsiSession.create(info.name(), PsiRole.PROVIDER, params)) {
      PsiException e =
          assertThrows(PsiException.class, () -> provider.setGroupSecret(new byte[32]));
      assertEquals(PsiStatus.STATE, e.status());
    }
    try (PsiSession party =
        PsiSession.create(
            info.name(), PsiRole.PARTY, params.toBuilder().with("index", "0").build())) {
      PsiException e =
          assertThrows(
              PsiException.class,
              () -> party.feedFrom(PsiPhase.SETUP, 0, 0, new byte[0], 0, 0, true));
      assertEquals(PsiStatus.ARGUMENT, e.status());
    }
  }

  private static byte[] drain(PsiSession s, PsiPhase phase, int round) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[1 << 16];
    for (; ; ) {
      EmitResult e = s.emit(phase, round, buf);
      out.write(buf, 0, e.written());
      if (e.done()) {
        return out.toByteArray();
      }
    }
  }

  private static byte[] random(Random rnd) {
    byte[] b = new byte[LEN];
    rnd.nextBytes(b);
    return b;
  }
}
