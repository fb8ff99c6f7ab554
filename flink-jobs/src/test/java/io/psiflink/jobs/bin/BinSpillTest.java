package io.psiflink.jobs.bin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BinSpillTest {
  @TempDir Path dir;

  @Test
  void eachBinReadsBackItsRecordsInArrivalOrderAsChunksOfWholeRecords() throws IOException {
    SplittableRandom r = new SplittableRandom(11);
    int bins = 7;
    ByteArrayOutputStream[] oracle = new ByteArrayOutputStream[bins];
    Map<Integer, List<String>> rows = new HashMap<>();
    for (int b = 0; b < bins; b++) {
      oracle[b] = new ByteArrayOutputStream();
    }
    try (BinSpill spill = new BinSpill(dir, bins)) {
      for (int i = 0; i < 30_000; i++) {
        int bin = r.nextInt(bins - 1); // the last bin gets no record
        // mostly small rows, some far larger than a chunk
        int len = i % 5_000 == 17 ? 3 * BinSpill.CHUNK_BYTES + r.nextInt(1000) : r.nextInt(200);
        byte[] row = new byte[len];
        r.nextBytes(row);
        long hi = r.nextLong() & Long.MAX_VALUE;
        long lo = r.nextLong();
        byte[] record = TokenRecord.of(bin, hi, lo, row, 0, len);
        spill.add(bin, record, TokenRecord.BIN_BYTES, record.length - TokenRecord.BIN_BYTES);
        BinChunks.append(oracle[bin], hi, lo, row);
        rows.computeIfAbsent(bin, b -> new ArrayList<>()).add(hi + ":" + lo + ":" + len);
      }
      try (Stream<Path> files = Files.list(dir)) {
        assertTrue(
            files.findFirst().orElseThrow().toFile().length() > 0, "full chunks are written");
      }
      for (int b = bins - 1; b >= 0; b--) { // in any order
        List<byte[]> chunks = spill.read(b);
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (byte[] c : chunks) {
          all.write(c);
        }
        assertArrayEquals(oracle[b].toByteArray(), all.toByteArray(), "bin " + b);
        // whole records per chunk: BinTable parses each chunk on its own
        BinTable t = new BinTable(chunks);
        List<String> seen = new ArrayList<>();
        for (int u = 0; u < t.distinct(); u++) {
          long hi = t.hi(u);
          long lo = t.lo(u);
          t.forEachRow(u, (buf, off, len) -> seen.add(hi + ":" + lo + ":" + len));
        }
        List<String> expected = rows.getOrDefault(b, List.of());
        assertEquals(expected.size(), t.rows());
        assertEquals(expected.stream().sorted().toList(), seen.stream().sorted().toList());
      }
    }
    try (Stream<Path> left = Files.list(dir)) {
      assertEquals(0, left.count(), "close deletes the spill file");
    }
  }

  @Test
  void aBinIsReadOnceAndTakesNoRecordAfter() throws IOException {
    try (BinSpill spill = new BinSpill(dir, 2)) {
      spill.add(0, new byte[] {1, 2, 3}, 0, 3);
      assertEquals(1, spill.read(0).size());
      assertThrows(IllegalStateException.class, () -> spill.read(0));
      assertThrows(IllegalStateException.class, () -> spill.add(0, new byte[1], 0, 1));
      assertEquals(List.of(), spill.read(1));
    }
  }

  @Test
  void aTruncatedFileIsAnErrorNamingIt() throws IOException {
    try (BinSpill spill = new BinSpill(dir, 1)) {
      byte[] row = new byte[BinSpill.CHUNK_BYTES + 10];
      spill.add(0, row, 0, row.length);
      Path file;
      try (Stream<Path> files = Files.list(dir)) {
        file = files.findFirst().orElseThrow();
      }
      try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
        c.truncate(100);
      }
      IOException e = assertThrows(IOException.class, () -> spill.read(0));
      assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    }
  }
}
