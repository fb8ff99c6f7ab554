package io.psiflink.jobs.bin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every record reaches exactly one batch, with its bin as the tag and the rest of the record as the
 * bytes, and every batch holds the bins of one subtask only; the records of skipped bins (committed
 * by an earlier run) reach none, but count.
 */
class BinBatcherTest {
  @ParameterizedTest
  @ValueSource(strings = {"", "3,4,11"})
  void everyRecordLandsInABatchOfItsBinsSubtask(String skipped) {
    BinRouting routing = new BinRouting(16, 128, 3);
    BitSet skip = new BitSet();
    for (String bin : skipped.isEmpty() ? new String[0] : skipped.split(",")) {
      skip.set(Integer.parseInt(bin));
    }
    SplittableRandom r = new SplittableRandom(9);
    Map<String, Integer> expected = new HashMap<>();
    List<byte[]> batches = new ArrayList<>();
    BinBatcher.Batches b = new BinBatcher.Batches(routing, skip);
    for (int i = 0; i < 50_000; i++) {
      int bin = r.nextInt(16);
      byte[] row = new byte[r.nextInt(120)];
      r.nextBytes(row);
      byte[] rec = TokenRecord.of(bin, r.nextLong() >>> 1, r.nextLong(), row, 0, row.length);
      if (!skip.get(bin)) {
        expected.merge(
            bin + ":" + Arrays.toString(Arrays.copyOfRange(rec, 4, rec.length)), 1, Integer::sum);
      }
      b.add(rec, batches::add);
    }
    b.flush(batches::add);
    assertEquals(50_000, b.rows(), "every record counts, a skipped one too");

    Map<String, Integer> got = new HashMap<>();
    RowBatch.Rows rows = new RowBatch.Rows();
    for (byte[] batch : batches) {
      rows.read(batch);
      int subtask = routing.subtask(RowBatch.firstTag(batch));
      for (int i = 0; i < rows.count; i++) {
        int bin = (int) rows.tags[i];
        assertEquals(subtask, routing.subtask(bin), "one subtask per batch");
        int off = rows.offsets[i];
        got.merge(
            bin + ":" + Arrays.toString(Arrays.copyOfRange(batch, off, off + rows.lengths[i])),
            1,
            Integer::sum);
      }
    }
    assertEquals(expected, got);
    assertTrue(batches.size() < 50_000 / 100, "rows are batched: " + batches.size());
  }
}
