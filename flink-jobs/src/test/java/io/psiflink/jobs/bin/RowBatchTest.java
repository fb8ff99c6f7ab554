package io.psiflink.jobs.bin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Rows packed by {@link RowBatch.Writer} read back as written, batch by batch. */
class RowBatchTest {
  @Test
  void rowsComeBackWithTheirPositionsInOrder() {
    SplittableRandom r = new SplittableRandom(5);
    List<byte[]> records = new ArrayList<>();
    List<Long> tags = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      // mostly small rows, some larger than a batch, some empty
      int size = i % 997 == 0 ? 100_000 + r.nextInt(50_000) : i % 101 == 0 ? 0 : r.nextInt(300);
      byte[] rec = new byte[size];
      r.nextBytes(rec);
      records.add(rec);
      tags.add(i % 3 == 0 ? 0xffffffffL - i : r.nextLong(1L << 32));
    }
    RowBatch.Writer w = new RowBatch.Writer();
    List<byte[]> batches = new ArrayList<>();
    for (int i = 0; i < records.size(); i++) {
      if (w.add(tags.get(i), records.get(i), 0, records.get(i).length)) {
        batches.add(w.take());
      }
    }
    if (!w.isEmpty()) {
      batches.add(w.take());
    }
    assertTrue(w.isEmpty());
    assertTrue(batches.size() > 100, "many batches: " + batches.size());

    RowBatch.Rows rows = new RowBatch.Rows();
    int i = 0;
    for (byte[] b : batches) {
      rows.read(b);
      assertTrue(rows.count > 0);
      for (int j = 0; j < rows.count; j++, i++) {
        assertEquals(tags.get(i), rows.tags[j], "tag of row " + i);
        int off = rows.offsets[j];
        assertArrayEquals(
            records.get(i), Arrays.copyOfRange(b, off, off + rows.lengths[j]), "row " + i);
      }
    }
    assertEquals(records.size(), i);
  }

  @Test
  void aTruncatedBatchAndATagBeyondThirtyTwoBitsAreRejected() {
    RowBatch.Writer w = new RowBatch.Writer();
    w.add(7, new byte[40], 0, 40);
    w.add(9, new byte[40], 0, 40);
    byte[] b = w.take();
    RowBatch.Rows rows = new RowBatch.Rows();
    assertEquals(2, rows.read(b).count);
    for (int cut = 1; cut < b.length; cut++) {
      byte[] t = Arrays.copyOf(b, cut);
      if (cut == b.length / 2) {
        assertEquals(1, rows.read(t).count, "a whole first row");
      } else {
        assertThrows(IllegalArgumentException.class, () -> rows.read(t), "cut at " + cut);
      }
    }
    assertThrows(IllegalArgumentException.class, () -> w.add(1L << 32, new byte[1], 0, 1));
    assertThrows(IllegalArgumentException.class, () -> w.add(-1, new byte[1], 0, 1));
  }
}
