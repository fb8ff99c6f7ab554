package io.psiflink.jobs.write;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BinJournalTest {
  @TempDir Path dir;

  @Test
  void committedBinsReplayTheirRowsAndOnlyCommittedOnesCount() throws Exception {
    BinJournal j = BinJournal.of(dir.resolve("out").toString(), "session-1");
    assertTrue(j.dir().startsWith(dir.resolve(".out.resume-").toString()), j.dir());
    assertEquals(new BitSet(), j.committed(8));
    List<byte[]> rows = List.of(new byte[] {1, 2, 3}, new byte[0], new byte[70_000]);
    try (BinJournal.Entry e = j.open(5)) {
      rows.forEach(e::add);
      e.commit();
    }
    try (BinJournal.Entry e = j.open(1)) {
      e.commit(); // a bin without output rows is done too
    }
    try (BinJournal.Entry e = j.open(2)) {
      e.add(new byte[] {9}); // never committed: a run that died mid-bin
    }
    BitSet expected = new BitSet();
    expected.set(1);
    expected.set(5);
    assertEquals(expected, j.committed(8));
    List<byte[]> back = new ArrayList<>();
    assertEquals(3, j.replay(5, back::add));
    for (int i = 0; i < rows.size(); i++) {
      assertArrayEquals(rows.get(i), back.get(i));
    }
    assertEquals(0, j.replay(1, r -> {}));
    // the session names the journal: another session's is another directory
    assertFalse(j.dir().equals(BinJournal.of(dir.resolve("out").toString(), "session-2").dir()));
    j.delete();
    assertEquals(new BitSet(), j.committed(8));
  }

  /** The file format, byte by byte, and rows across many buffers of the writer. */
  @Test
  void fileLayoutIsTheDocumentedOne() throws Exception {
    BinJournal j = BinJournal.of(dir.resolve("out").toString(), "s");
    try (BinJournal.Entry e = j.open(3)) {
      e.add(new byte[] {7, 8});
      e.commit();
    }
    java.nio.ByteBuffer want = java.nio.ByteBuffer.allocate(34);
    want.putInt(0x50534a31).putInt(3).putInt(2).put(new byte[] {7, 8}).putInt(-1).putLong(1);
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(want.array(), 0, want.position());
    want.putInt((int) crc.getValue());
    assertArrayEquals(
        java.util.Arrays.copyOf(want.array(), want.position()),
        Files.readAllBytes(Path.of(j.dir(), "bin-3")));

    java.util.SplittableRandom r = new java.util.SplittableRandom(3);
    List<byte[]> rows = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      byte[] row = new byte[r.nextInt(i % 500 == 0 ? 100_000 : 200)];
      r.nextBytes(row);
      rows.add(row);
    }
    try (BinJournal.Entry e = j.open(4)) {
      rows.forEach(e::add);
      e.commit();
    }
    List<byte[]> back = new ArrayList<>();
    assertEquals(rows.size(), j.replay(4, back::add));
    for (int i = 0; i < rows.size(); i++) {
      assertArrayEquals(rows.get(i), back.get(i), "row " + i);
    }
  }

  @Test
  void aTornOrAlteredFileIsAnErrorNamingIt() throws Exception {
    BinJournal j = BinJournal.of(dir.resolve("out").toString(), "s");
    try (BinJournal.Entry e = j.open(0)) {
      e.add(new byte[] {1, 2, 3, 4});
      e.commit();
    }
    Path file = Path.of(j.dir(), "bin-0");
    byte[] bytes = Files.readAllBytes(file);
    bytes[14] ^= 1; // a row byte
    Files.write(file, bytes);
    IOException altered = assertThrows(IOException.class, () -> j.replay(0, r -> {}));
    assertTrue(altered.getMessage().contains("bin-0") && altered.getMessage().contains("corrupt"));
    Files.write(file, java.util.Arrays.copyOf(bytes, 10));
    IOException torn = assertThrows(IOException.class, () -> j.replay(0, r -> {}));
    assertTrue(torn.getMessage().contains("truncated"), torn.getMessage());
  }
}
