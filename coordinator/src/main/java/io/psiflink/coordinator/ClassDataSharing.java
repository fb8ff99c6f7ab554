package io.psiflink.coordinator;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

/**
 * Class-data sharing (JDK CDS, dynamic archives) for the JVMs that run Flink jobs: a party JVM
 * spends seconds of CPU loading, parsing and verifying the ~20,000 classes of Flink and its
 * dependencies; mapping them from an archive instead takes a fraction of that.
 *
 * <p>The first JVM of a class path dumps the classes it loaded at its exit ({@code
 * -XX:ArchiveClassesAtExit}) into a file of its own; once it has exited normally {@link #promote}
 * makes that file the class path's archive (an atomic rename, so a JVM never maps a partial one),
 * which every later JVM of the class path maps ({@code -XX:SharedArchiveFile}). The archive's name
 * is a hash of the class path and of each entry's size and modification time, so a rebuilt jar is
 * never paired with an old archive. The JVM checks the archive again when it maps it and runs
 * without it if anything differs; its CDS messages are turned off either way, as an archive only
 * saves time.
 *
 * <p>Off unless the system property {@value #DIR_PROPERTY} names the archives' directory ({@code
 * ./psi} sets it), and for a class path with a directory on it (CDS takes jars only).
 */
public final class ClassDataSharing {
  /** The system property naming the directory of the archives. */
  public static final String DIR_PROPERTY = "psi.cds.dir";

  private final Path archive;
  private final Path dump;

  private ClassDataSharing(Path archive, Path dump) {
    this.archive = archive;
    this.dump = dump;
  }

  /** None: no options, nothing to promote (a JVM this launcher does not start, say). */
  public static ClassDataSharing off() {
    return new ClassDataSharing(null, null);
  }

  /**
   * For a JVM of {@code classpath}; {@code name} tells the archives of different kinds of JVM on
   * one class path apart (e.g. "party-A").
   */
  public static ClassDataSharing of(String classpath, String name) {
    String dir = System.getProperty(DIR_PROPERTY);
    if (dir == null || dir.isBlank()) {
      return off();
    }
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    for (String entry : classpath.split(File.pathSeparator)) {
      File f = new File(entry);
      if (f.isDirectory()) {
        return off();
      }
      sha.update(
          (entry + "\0" + f.length() + "\0" + f.lastModified() + "\n")
              .getBytes(StandardCharsets.UTF_8));
    }
    String key = HexFormat.of().formatHex(sha.digest(), 0, 8);
    Path archive = Path.of(dir, name + "-" + key + ".jsa");
    if (Files.isRegularFile(archive)) {
      return new ClassDataSharing(archive, null);
    }
    removeStale(Path.of(dir), name, archive);
    return new ClassDataSharing(
        archive, Path.of(dir, name + "-" + key + "." + UUID.randomUUID() + ".dump"));
  }

  /**
   * Removes {@code name}'s archives of other class paths (an earlier build's: about 100 MB each); a
   * JVM still mapping one keeps its mapping.
   */
  private static void removeStale(Path dir, String name, Path keep) {
    try (var files = Files.newDirectoryStream(dir, name + "-*.jsa")) {
      for (Path f : files) {
        if (!f.equals(keep)) {
          Files.deleteIfExists(f);
        }
      }
    } catch (IOException e) {
      // no directory yet, or a file another launcher removed first
    }
  }

  /** The JVM options: map the archive, or dump one at exit; none when off. */
  public List<String> jvmOptions() {
    if (archive == null) {
      return List.of();
    }
    if (dump == null) {
      return withQuietLog("-XX:SharedArchiveFile=" + archive);
    }
    try {
      Files.createDirectories(dump.getParent());
    } catch (IOException e) {
      return List.of(); // no directory, no archive: the JVM runs as it would without
    }
    return withQuietLog("-XX:ArchiveClassesAtExit=" + dump);
  }

  /**
   * After the JVM exited with {@code exitCode}: its dump becomes the archive if it exited normally,
   * else is removed. Best effort: a failure leaves the next JVM to dump again.
   */
  public void promote(int exitCode) {
    if (dump == null) {
      return;
    }
    try {
      if (exitCode == 0 && Files.size(dump) > 0 && !Files.exists(archive)) {
        Files.move(dump, archive, StandardCopyOption.ATOMIC_MOVE);
      }
    } catch (IOException e) {
      // no dump (the JVM was killed) or a lost race: nothing to promote
    } finally {
      try {
        Files.deleteIfExists(dump);
      } catch (IOException e) {
        // a stray dump file costs disk only
      }
    }
  }

  /** {@link #promote} once {@code p} has exited (for a launcher that does not wait for it). */
  public void promoteOnExit(Process p) {
    p.onExit().thenAccept(q -> promote(q.exitValue()));
  }

  /** The archive this JVM maps or dumps, or null when off. */
  Path archive() {
    return archive;
  }

  /** {@code option} and no CDS messages (an archive only saves time). */
  private static List<String> withQuietLog(String option) {
    return List.of(option, "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
  }
}
