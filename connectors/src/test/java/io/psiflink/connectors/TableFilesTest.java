package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableFilesTest {
  @TempDir Path dir;

  private Path write(Path p, String text) throws IOException {
    Files.createDirectories(p.getParent());
    return Files.writeString(p, text);
  }

  private void assertFails(String path, String... fragments) {
    TableException e = assertThrows(TableException.class, () -> TableFiles.of(path));
    for (String f : fragments) {
      assertTrue(e.getMessage().contains(f), e.getMessage());
    }
  }

  @Test
  void aFileIsItself() throws Exception {
    Path f = write(dir.resolve("t.Avro"), "12345");
    TableFiles t = TableFiles.of(f.toString());
    assertEquals(
        new TableFiles(
            TableFormat.AVRO,
            List.of(f.toString()),
            List.of(5L),
            List.of(java.nio.file.Files.getLastModifiedTime(f).toMillis())),
        t);
    assertEquals(5L, t.bytes());
  }

  @Test
  void aDirectoryIsItsVisiblePartFilesByName() throws Exception {
    Path d = dir.resolve("t");
    write(d.resolve("part-1.csv"), "a\n1\n");
    write(d.resolve("part-0.CSV"), "a\n");
    write(d.resolve("_SUCCESS"), "");
    write(d.resolve(".part-1.csv.crc"), "crc");
    write(d.resolve(".part-2.csv.inprogress.1"), "a\n2\n");
    write(d.resolve("sub/part-3.csv"), "a\n3\n");
    TableFiles t = TableFiles.of(d.toString());
    assertEquals(TableFormat.CSV, t.format());
    assertEquals(List.of(d + "/part-0.CSV", d + "/part-1.csv"), t.files());
    assertEquals(List.of(2L, 4L), t.lengths());
    assertEquals(6L, t.bytes());
    // a trailing slash and file:// name the same files
    assertEquals(t.files(), TableFiles.of(d + "/").files());
    assertEquals(
        List.of("file:" + d + "/part-0.CSV", "file:" + d + "/part-1.csv"),
        TableFiles.of("file://" + d).files());
  }

  @Test
  void partsMustShareOneFormat() throws Exception {
    Path mixed = dir.resolve("mixed");
    write(mixed.resolve("a.csv"), "x\n");
    write(mixed.resolve("b.avro"), "");
    assertFails(mixed.toString(), "'" + mixed + "'", "'b.avro'", "mixes formats");

    Path unknown = dir.resolve("unknown");
    write(unknown.resolve("part-0.csv"), "x\n");
    write(unknown.resolve("part-1"), "x\n");
    assertFails(unknown.toString(), "'" + unknown + "'", "'part-1'", ".csv");
  }

  @Test
  void emptyDirectoryMissingPathAndUnknownExtensionAreErrors() throws Exception {
    Path empty = dir.resolve("empty");
    write(empty.resolve("_SUCCESS"), "");
    write(empty.resolve(".x.crc"), "");
    Files.createDirectories(empty.resolve("sub"));
    assertFails(empty.toString(), "'" + empty + "'", "no part files");

    assertFails(
        dir.resolve("nope.csv").toString(), "'" + dir.resolve("nope.csv") + "'", "does not exist");
    assertFails(write(dir.resolve("t.txt"), "a\n").toString(), "t.txt");
  }

  @Test
  void hiddenNames() {
    assertTrue(TableFiles.isVisible("part-0.csv"));
    assertFalse(TableFiles.isVisible("_SUCCESS"));
    assertFalse(TableFiles.isVisible(".part-0.csv.crc"));
  }
}
