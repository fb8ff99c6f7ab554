package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive's life: the first JVM of a class path dumps, its dump becomes the archive only after
 * a normal exit, later JVMs map it (a real JVM, made to fail if it cannot: -Xshare:on), a rebuilt
 * jar gets a new archive and the old one is removed; off without the property or with a directory
 * on the class path.
 */
class ClassDataSharingTest {
  @TempDir Path tmp;

  @AfterEach
  void clear() {
    System.clearProperty(ClassDataSharing.DIR_PROPERTY);
  }

  /** Runs {@code jar --version} (a JDK tool: a main class that needs no class path of ours). */
  private static int runJvm(List<String> options, String classpath, boolean requireShare)
      throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(options);
    if (requireShare) {
      cmd.add("-Xshare:on");
    }
    cmd.addAll(List.of("-cp", classpath, "-m", "jdk.jartool/sun.tools.jar.Main", "--version"));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    return p.waitFor();
  }

  @Test
  void dumpThenPromoteThenMapAndANewArchiveAfterARebuild() throws Exception {
    Path dir = tmp.resolve("cds");
    System.setProperty(ClassDataSharing.DIR_PROPERTY, dir.toString());
    Path jar = tmp.resolve("lib.jar");
    try (var out = new java.util.jar.JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new java.util.zip.ZipEntry("a.txt"));
      out.write(1);
    }
    String cp = jar.toString();

    ClassDataSharing first = ClassDataSharing.of(cp, "party-A");
    List<String> dumping = first.jvmOptions();
    assertTrue(dumping.get(0).startsWith("-XX:ArchiveClassesAtExit="), dumping.toString());
    assertFalse(Files.exists(first.archive()));
    // a JVM that failed: its dump is not promoted
    first.promote(1);
    assertFalse(Files.exists(first.archive()));

    ClassDataSharing second = ClassDataSharing.of(cp, "party-A");
    assertEquals(0, runJvm(second.jvmOptions(), cp, false));
    second.promote(0);
    assertTrue(Files.isRegularFile(second.archive()), "promoted");
    try (var files = Files.list(dir)) {
      assertEquals(1, files.count(), "no dump left beside the archive");
    }

    ClassDataSharing third = ClassDataSharing.of(cp, "party-A");
    List<String> mapping = third.jvmOptions();
    assertEquals("-XX:SharedArchiveFile=" + second.archive(), mapping.get(0));
    assertEquals(0, runJvm(mapping, cp, true), "the JVM maps the archive");

    // a rebuilt jar: another archive, and the old one goes
    Files.setLastModifiedTime(
        jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 5000));
    ClassDataSharing rebuilt = ClassDataSharing.of(cp, "party-A");
    assertNotEquals(second.archive(), rebuilt.archive());
    assertTrue(rebuilt.jvmOptions().get(0).startsWith("-XX:ArchiveClassesAtExit="));
    assertFalse(Files.exists(second.archive()), "the stale archive is removed");
    // another kind of JVM on the same class path keeps its own
    assertNotEquals(rebuilt.archive(), ClassDataSharing.of(cp, "party-B").archive());
  }

  @Test
  void offWithoutTheDirectoryOrWithADirectoryOnTheClassPath() throws Exception {
    assertEquals(List.of(), ClassDataSharing.of(tmp.toString(), "party-A").jvmOptions());
    System.setProperty(ClassDataSharing.DIR_PROPERTY, tmp.resolve("cds").toString());
    Files.createDirectories(tmp.resolve("classes"));
    String cp = tmp.resolve("x.jar") + File.pathSeparator + tmp.resolve("classes");
    assertEquals(List.of(), ClassDataSharing.of(cp, "party-A").jvmOptions());
    ClassDataSharing.off().promote(0); // nothing to do
    assertEquals(List.of(), ClassDataSharing.off().jvmOptions());
  }
}
