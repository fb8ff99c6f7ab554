package io.psiflink.jobs.psi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.JoinMode;
import io.psiflink.api.Role;
import io.psiflink.bridge.BridgePeerException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.connectors.row.RowCodec;
import io.psiflink.jobs.bin.BinChunks;
import io.psiflink.jobs.bin.BinOverflowException;
import io.psiflink.jobs.bin.BinPlan;
import io.psiflink.jobs.bin.BinTable;
import io.psiflink.jobs.session.BinKeys;
import io.psiflink.query.JoinKind;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bin above its public bound stops the job before anything of the bin is sent; the peer learns
 * only that a bin overflowed. Forced with σ = 1 and far more keys in one bin than n/m.
 */
class BinOverflowTest {
  @TempDir Path dir;

  @Test
  void overflowingBinFailsClearlyAndTellsThePeerNoSize() throws Exception {
    int bins = 64;
    long n = 4000;
    int distinct = 1000; // n/m is 62.5: no σ makes this bin fit
    long bound = BinPlan.bound(n, bins, 1);
    assertTrue(distinct > bound, "bound " + bound);
    SplittableRandom r = new SplittableRandom(5);
    ByteArrayOutputStream chunk = new ByteArrayOutputStream();
    for (int i = 0; i < distinct; i++) {
      BinChunks.append(chunk, r.nextLong() & Long.MAX_VALUE, r.nextLong(), new byte[0]);
    }
    BinTable table = new BinTable(List.of(chunk.toByteArray()));

    RowCodec empty = new RowCodec(List.of());
    try (TwoParties parties = new TwoParties(dir)) {
      CompletableFuture<BridgeStream> peer =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return parties.b.open("overflow", "bin-3");
                } catch (Exception e) {
                  throw new RuntimeException(e);
                }
              });
      try (BridgeStream a = parties.a.open("overflow", "bin-3");
          BridgeStream b = peer.get(10, TimeUnit.SECONDS)) {
        BinContext ctx =
            new BinContext(
                "overflow",
                Role.A,
                bins,
                1,
                "kkrt",
                "",
                empty,
                empty,
                new int[0],
                3,
                false,
                JoinMode.BOTH,
                128,
                JoinKind.INNER);
        BinOverflowException e =
            assertThrows(
                BinOverflowException.class,
                () ->
                    new BinExchange(ctx, new BinKeys(new byte[32], new byte[0]), new SecureRandom())
                        .run(a, 3, table, n, row -> {}));
        assertTrue(
            e.getMessage().contains("bin 3 holds 1,000 distinct keys, above the public bound"),
            e.getMessage());
        assertTrue(e.getMessage().contains("raise σ"), e.getMessage());
        assertTrue(a.bytesSent() == 0, "nothing of the bin was sent");
        BridgePeerException seen = assertThrows(BridgePeerException.class, b::receive);
        assertTrue(
            seen.getMessage().contains("bin 3 of party A is over the public bound"),
            seen.getMessage());
        assertFalse(
            seen.getMessage().contains("1,000") || seen.getMessage().contains("1000"),
            "the peer must not learn the bin's size: " + seen.getMessage());
      }
    }
  }
}
