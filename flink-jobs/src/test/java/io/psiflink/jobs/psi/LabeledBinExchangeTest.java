package io.psiflink.jobs.psi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.ColumnType;
import io.psiflink.api.JoinMode;
import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.connectors.row.RowCodec;
import io.psiflink.jobs.bin.BinChunks;
import io.psiflink.jobs.bin.BinTable;
import io.psiflink.jobs.payload.BinLabels;
import io.psiflink.jobs.session.BinKeys;
import io.psiflink.nativepsi.ProtocolInfo;
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
import java.util.stream.Stream;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The labeled mode of one bin, between real parties on a real relay over TLS: A gets exactly the
 * join the test computes from the plaintext keys, with B's columns out of the PSI's labels; B
 * learns nothing (no intersecting keys, no rows), and what either party sends and receives is the
 * same whether the tables share no key or all of them. A key of B whose rows do not fit its label
 * fails the bin, naming the option.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LabeledBinExchangeTest {
  private static final String SESSION = "labeled-test";
  private static final int BINS = 4;
  private static final long N = 8000;
  private static final int LABEL = 64;
  private static final RowCodec STRING = new RowCodec(List.of(ColumnType.STRING));
  private static final RowCodec B_ROW = new RowCodec(List.of(ColumnType.STRING, ColumnType.BIGINT));
  private static final RowCodec OUT =
      new RowCodec(List.of(ColumnType.STRING, ColumnType.STRING, ColumnType.BIGINT));

  private TwoParties parties;
  private final byte[] frameKey = new byte[32];
  private final AtomicInteger channels = new AtomicInteger();
  private long[][] tokens;

  @BeforeAll
  void start() throws Exception {
    parties = new TwoParties(java.nio.file.Files.createTempDirectory("psi-labeled-"));
    new SecureRandom().nextBytes(frameKey);
    SplittableRandom r = new SplittableRandom(13);
    tokens = new long[2000][];
    for (int k = 0; k < tokens.length; k++) {
      tokens[k] = new long[] {r.nextLong() & Long.MAX_VALUE, r.nextLong()};
    }
  }

  @AfterAll
  void stop() throws Exception {
    parties.close();
  }

  static Stream<String> labeledProtocols() {
    return ProtocolInfo.all().stream()
        .filter(p -> p.parties() == 2 && p.supports(PsiParams.Output.LABELS))
        .map(ProtocolInfo::name);
  }

  @Test
  void everyTwoPartyProtocolOffersLabels() {
    assertEquals(
        ProtocolInfo.all().stream().filter(p -> p.parties() == 2).map(ProtocolInfo::name).toList(),
        labeledProtocols().toList());
  }

  /** A holds keys [aFrom, aTo), B [bFrom, bTo); key k has 1 + k % 3 rows on each side. */
  private record Tables(BinTable a, BinTable b, List<String> join) {}

  private Tables tables(int aFrom, int aTo, int bFrom, int bTo) {
    ByteArrayOutputStream a = new ByteArrayOutputStream();
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    List<String> join = new ArrayList<>();
    for (int k = 0; k < tokens.length; k++) {
      boolean inA = k >= aFrom && k < aTo;
      boolean inB = k >= bFrom && k < bTo;
      for (int i = 0; i <= k % 3; i++) {
        if (inA) {
          BinChunks.append(
              a,
              tokens[k][0],
              tokens[k][1],
              STRING.encode(Row.of("a" + k + "." + i), new int[] {0}));
        }
        if (inB) {
          BinChunks.append(
              b,
              tokens[k][0],
              tokens[k][1],
              B_ROW.encode(Row.of("b" + k + "." + i, (long) k * 10 + i), new int[] {0, 1}));
        }
      }
      if (inA && inB) {
        for (int i = 0; i <= k % 3; i++) {
          for (int j = 0; j <= k % 3; j++) {
            join.add("a" + k + "." + i + "|b" + k + "." + j + "|" + (k * 10 + j));
          }
        }
      }
    }
    Collections.sort(join);
    return new Tables(
        new BinTable(List.of(a.toByteArray())), new BinTable(List.of(b.toByteArray())), join);
  }

  private static BinContext ctx(Role role, String protocol, int label) {
    boolean a = role.equals(Role.A);
    return new BinContext(
        SESSION,
        role,
        BINS,
        40,
        protocol,
        "",
        a ? STRING : B_ROW,
        a ? B_ROW : new RowCodec(List.of()),
        a ? new int[] {0, -1, -2} : new int[0],
        1,
        false,
        JoinMode.LABELED,
        label,
        JoinKind.INNER);
  }

  private static byte[][] setups(String protocol) {
    if (ProtocolInfo.byName(protocol).setupNeedsSenderSet()) {
      return new byte[][] {new byte[0], new byte[0]};
    }
    PsiParams p = PsiParams.builder().receiverSize(1).senderSize(1).build();
    try (PsiSession rs = PsiSession.create(protocol, PsiRole.RECEIVER, p);
        PsiSession ss = PsiSession.create(protocol, PsiRole.SENDER, p)) {
      new RoundDriver().runSetup(rs, ss);
      return new byte[][] {rs.exportSetup(), ss.exportSetup()};
    }
  }

  /** What one bin gave both sides: their stats or the exception each failed with, A's rows. */
  private record Outcome(Object a, Object b, List<String> joined) {}

  private Outcome run(String protocol, Tables t, int label) throws Exception {
    byte[][] setups = setups(protocol);
    String channel = "bin-" + channels.incrementAndGet();
    List<String> joined = Collections.synchronizedList(new ArrayList<>());
    CompletableFuture<Object> fa =
        CompletableFuture.supplyAsync(
            () -> side(parties.a, channel, Role.A, protocol, label, setups[0], t.a(), joined));
    CompletableFuture<Object> fb =
        CompletableFuture.supplyAsync(
            () -> side(parties.b, channel, Role.B, protocol, label, setups[1], t.b(), joined));
    Object a = fa.get(120, TimeUnit.SECONDS);
    Object b = fb.get(120, TimeUnit.SECONDS);
    List<String> sorted = new ArrayList<>(joined);
    Collections.sort(sorted);
    return new Outcome(a, b, sorted);
  }

  private Object side(
      BridgeClient client,
      String channel,
      Role role,
      String protocol,
      int label,
      byte[] setup,
      BinTable table,
      List<String> joined) {
    BridgeStream raw = null;
    try {
      raw = client.open(SESSION, channel);
      Object stats =
          new BinExchange(
                  ctx(role, protocol, label), new BinKeys(frameKey, setup), new SecureRandom())
              .run(
                  raw,
                  0,
                  table,
                  N,
                  r -> {
                    assertEquals(Role.A, role, "only A emits rows");
                    Object[] cols = new Object[3];
                    OUT.decode(r, 0, r.length, cols, 0);
                    joined.add(cols[0] + "|" + cols[1] + "|" + cols[2]);
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

  @ParameterizedTest
  @MethodSource("labeledProtocols")
  void aGetsTheExactJoinAndBLearnsNothing(String protocol) throws Exception {
    Tables t = tables(0, 1200, 800, 2000);
    Outcome o = run(protocol, t, LABEL);
    BinExchange.BinStats a =
        assertInstanceOf(BinExchange.BinStats.class, o.a(), String.valueOf(o.a()));
    BinExchange.BinStats b =
        assertInstanceOf(BinExchange.BinStats.class, o.b(), String.valueOf(o.b()));
    assertEquals(400, a.intersecting());
    assertEquals(t.join(), o.joined());
    assertEquals(t.join().size(), a.rowsOut());
    assertEquals(0, b.intersecting(), "B learns no intersecting key");
    assertEquals(0, b.rowsOut());
  }

  /** The bytes on the wire depend on the sizes only: no overlap and full overlap look the same. */
  @ParameterizedTest
  @MethodSource("labeledProtocols")
  void bytesDoNotDependOnTheOverlap(String protocol) throws Exception {
    Outcome none = run(protocol, tables(0, 1000, 1000, 2000), LABEL);
    Outcome all = run(protocol, tables(0, 1000, 0, 1000), LABEL);
    BinExchange.BinStats a0 =
        assertInstanceOf(BinExchange.BinStats.class, none.a(), String.valueOf(none.a()));
    BinExchange.BinStats b0 =
        assertInstanceOf(BinExchange.BinStats.class, none.b(), String.valueOf(none.b()));
    BinExchange.BinStats a1 =
        assertInstanceOf(BinExchange.BinStats.class, all.a(), String.valueOf(all.a()));
    BinExchange.BinStats b1 =
        assertInstanceOf(BinExchange.BinStats.class, all.b(), String.valueOf(all.b()));
    assertEquals(0, a0.intersecting());
    assertEquals(1000, a1.intersecting());
    assertEquals(b0.bytesSent(), b1.bytesSent(), "bytes B sent");
    assertEquals(b0.bytesReceived(), b1.bytesReceived(), "bytes B received");
    assertEquals(a0.bytesSent(), a1.bytesSent(), "bytes A sent");
  }

  @Test
  void aKeyWhoseRowsDoNotFitItsLabelFailsTheBinNamingTheOption() throws Exception {
    // 8 bytes hold a row count and one short row, not key k's 1 + k % 3 rows of "b<k>.<i>" + k
    Outcome o = run("rr22", tables(0, 1200, 800, 2000), 8);
    BinLabels.LabelOverflowException e =
        assertInstanceOf(BinLabels.LabelOverflowException.class, o.b(), String.valueOf(o.b()));
    assertTrue(e.getMessage().contains("--label-bytes 8"), e.getMessage());
    assertInstanceOf(Exception.class, o.a());
    // what A hears says nothing about B's rows
    assertFalse(
        ((Exception) o.a()).getMessage().contains("rows"), ((Exception) o.a()).getMessage());
    assertTrue(o.joined().isEmpty());
  }
}
