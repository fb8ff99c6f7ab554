package io.psiflink.jobs.psi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.psiflink.api.JoinMode;
import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.connectors.row.RowCodec;
import io.psiflink.jobs.bin.BinChunks;
import io.psiflink.jobs.bin.BinTable;
import io.psiflink.jobs.session.BinKeys;
import io.psiflink.nativepsi.PsiParams;
import io.psiflink.nativepsi.PsiRole;
import io.psiflink.nativepsi.PsiSession;
import io.psiflink.nativepsi.RoundDriver;
import io.psiflink.query.JoinKind;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Security invariant: what a bin puts on the wire depends only on public sizes. Two bins with the
 * same n but very different keys (all sharing one prefix, and only a handful of distinct keys, vs
 * uniform keys) send and receive exactly the same number of bytes.
 */
class BinExchangePaddingTest {
  @TempDir Path dir;

  @Test
  void bytesOnTheWireDoNotDependOnTheKeys() throws Exception {
    long[] skewed = run(keys(true), 1);
    long[] uniform = run(keys(false), 2);
    assertEquals(skewed[0], uniform[0], "bytes A sent");
    assertEquals(skewed[1], uniform[1], "bytes B sent");
  }

  /** 2,000 rows: either 10 distinct keys sharing a 120-bit prefix, or 2,000 uniform keys. */
  private static List<byte[]> keys(boolean skewed) {
    SplittableRandom r = new SplittableRandom(skewed ? 1 : 2);
    ByteArrayOutputStream chunk = new ByteArrayOutputStream();
    for (int i = 0; i < 2000; i++) {
      long hi = skewed ? 0x1234_5678_9abc_def0L : r.nextLong() & Long.MAX_VALUE;
      long lo = skewed ? 0x1111_2222_3333_3300L + (i % 10) : r.nextLong();
      BinChunks.append(chunk, hi, lo, new byte[0]);
    }
    return List.of(chunk.toByteArray());
  }

  private long[] run(List<byte[]> aChunks, int seed) throws Exception {
    byte[][] setups = setups();
    SplittableRandom r = new SplittableRandom(99);
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int i = 0; i < 2000; i++) { // B's keys: disjoint from A's in both cases
      BinChunks.append(b, r.nextLong() & Long.MAX_VALUE, r.nextLong(), new byte[0]);
    }
    try (TwoParties parties = new TwoParties(dir.resolve("pki" + seed))) {
      CompletableFuture<Long> fa =
          CompletableFuture.supplyAsync(
              () -> exchange(parties.a, Role.A, setups[0], new BinTable(aChunks)));
      CompletableFuture<Long> fb =
          CompletableFuture.supplyAsync(
              () -> exchange(parties.b, Role.B, setups[1], new BinTable(List.of(b.toByteArray()))));
      return new long[] {fa.get(), fb.get()};
    }
  }

  private static long exchange(BridgeClient client, Role role, byte[] setup, BinTable t) {
    RowCodec empty = new RowCodec(List.of());
    BinContext ctx =
        new BinContext(
            "padding-test",
            role,
            4,
            40,
            "kkrt",
            "",
            empty,
            empty,
            new int[0],
            1,
            false,
            JoinMode.BOTH,
            128,
            JoinKind.INNER);
    try (BridgeStream s = client.open("padding-test", "bin-0")) {
      List<Object> out = new ArrayList<>();
      BinExchange.BinStats st =
          new BinExchange(ctx, new BinKeys(new byte[32], setup), new SecureRandom())
              .run(s, 0, t, 8000, out::add);
      assertEquals(0, st.intersecting());
      return st.bytesSent();
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  private static byte[][] setups() {
    PsiParams p = PsiParams.builder().receiverSize(1).senderSize(1).build();
    try (PsiSession rs = PsiSession.create("kkrt", PsiRole.RECEIVER, p);
        PsiSession ss = PsiSession.create("kkrt", PsiRole.SENDER, p)) {
      new RoundDriver().runSetup(rs, ss);
      return new byte[][] {rs.exportSetup(), ss.exportSetup()};
    }
  }
}
