package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JIT's setting follows the size of what the JVM reads; an unknown size counts as large. */
class JvmOptionsTest {
  @TempDir Path dir;

  @Test
  void smallTablesGetC1AloneOnTopOfTheFlinkOptions() throws Exception {
    Path a = csv("a.csv", 1000);
    Path parts = Files.createDirectories(dir.resolve("b"));
    Files.writeString(parts.resolve("part-0.csv"), "k,v\n1,x\n");
    Files.writeString(parts.resolve("part-1.csv"), "k,v\n2,y\n");
    List<String> options = JvmOptions.forTables(List.of(a.toString(), parts.toString()));
    assertEquals(JvmOptions.FLINK_JVM, options.subList(0, JvmOptions.FLINK_JVM.size()));
    assertEquals(
        List.of(JvmOptions.C1_ONLY), options.subList(JvmOptions.FLINK_JVM.size(), options.size()));
    assertTrue(JvmOptions.FLINK_JVM.contains("-XX:+UseParallelGC"), "the file's options are read");
  }

  @Test
  void aLargeOrUnknownTableGetsC2Late() throws Exception {
    Path small = csv("small.csv", 10);
    Path large = dir.resolve("large.csv");
    try (RandomAccessFile f = new RandomAccessFile(large.toFile(), "rw")) {
      f.setLength(JvmOptions.C1_ONLY_MAX_BYTES + 1); // sparse: no disk needed
    }
    Path limit = dir.resolve("limit.csv");
    try (RandomAccessFile f = new RandomAccessFile(limit.toFile(), "rw")) {
      f.setLength(JvmOptions.C1_ONLY_MAX_BYTES);
    }
    assertTrue(JvmOptions.forTables(List.of(limit.toString())).contains(JvmOptions.C1_ONLY));
    for (List<String> tables :
        List.of(
            List.of(large.toString()),
            // the insecure baseline reads both parties' tables: C1 only if both parties have it
            List.of(small.toString(), large.toString()),
            List.of("jdbc:postgresql://db.example:5432/crm?table=customers"),
            List.of(dir.resolve("missing.csv").toString()))) {
      List<String> options = JvmOptions.forTables(tables);
      assertEquals(JvmOptions.FLINK_JVM, options.subList(0, JvmOptions.FLINK_JVM.size()));
      assertEquals(
          JvmOptions.C2_LATE,
          options.subList(JvmOptions.FLINK_JVM.size(), options.size()),
          tables.toString());
      assertFalse(options.contains(JvmOptions.C1_ONLY));
    }
  }

  @Test
  void thisJvmAcceptsTheJitOptions() throws Exception {
    // a misspelt -XX option stops a JVM before it runs anything: every large join would fail
    for (List<String> jit : List.of(JvmOptions.C2_LATE, List.of(JvmOptions.C1_ONLY))) {
      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(jit);
      cmd.add("-version");
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(0, p.waitFor(), out);
    }
  }

  @Test
  void theYoungGenerationIsCappedWhereTheCapBinds() {
    assertEquals(List.of("-Xmx6g", JvmOptions.YOUNG_CAP), JvmOptions.heap("6g"));
    assertEquals(List.of("-Xmx2g", JvmOptions.YOUNG_CAP), JvmOptions.heap("2g"));
    assertEquals(List.of("-Xmx1537M", JvmOptions.YOUNG_CAP), JvmOptions.heap("1537M"));
    // a third of these is at most the cap already (and a cap as large as the heap makes a warning)
    assertEquals(List.of("-Xmx1536m"), JvmOptions.heap("1536m"));
    assertEquals(List.of("-Xmx512m"), JvmOptions.heap("512m"));
    assertEquals(List.of("-Xmx1g"), JvmOptions.heap("1g"));
    assertEquals(6L << 30, JvmOptions.heapBytes("6G"));
    assertEquals(2048L << 10, JvmOptions.heapBytes("2048k"));
    assertEquals(123456789L, JvmOptions.heapBytes("123456789"));
    // not a size: passed on as given, for the JVM to refuse
    for (String bad : new String[] {"", "6gb", "-1g", "g", "999999999999g", "1.5g"}) {
      assertEquals(-1, JvmOptions.heapBytes(bad), bad);
      assertEquals(List.of("-Xmx" + bad), JvmOptions.heap(bad));
    }
  }

  private Path csv(String name, int rows) throws Exception {
    StringBuilder b = new StringBuilder("k,v\n");
    for (int i = 0; i < rows; i++) {
      b.append(i).append(",x\n");
    }
    return Files.writeString(dir.resolve(name), b);
  }
}
