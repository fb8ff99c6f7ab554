package io.psiflink.tools.local;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A small tmpfs mounted on a directory for a storage fault: a disk that fills up, a file system
 * remounted read-only or unmounted under a running job. Mounting needs root (or CAP_SYS_ADMIN);
 * without it the calling test is skipped, with a message.
 */
final class Tmpfs implements AutoCloseable {
  private final Path dir;
  private boolean mounted;

  private Tmpfs(Path dir) {
    this.dir = dir;
  }

  /**
   * Mounts a tmpfs of {@code size} (mount's syntax: 2m, 512k) on {@code dir}, created if needed.
   */
  static Tmpfs mount(Path dir, String size) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Tmpfs t = new Tmpfs(dir);
    String out = run("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", dir.toString());
    Assumptions.assumeTrue(
        out == null, "cannot mount a tmpfs on " + dir + " (needs root): " + out + "; skipping");
    t.mounted = true;
    return t;
  }

  Path dir() {
    return dir;
  }

  /** Makes the file system read-only under whoever uses it. */
  void remountReadOnly() {
    check(run("mount", "-o", "remount,ro", dir.toString()));
  }

  /**
   * Unmounts it under whoever uses it (lazily, as open files would otherwise refuse): the path then
   * shows the empty directory beneath.
   */
  void unmount() {
    check(run("umount", "-l", dir.toString()));
    mounted = false;
  }

  /** Bytes in use, as df counts them. */
  long used() throws IOException {
    return Files.getFileStore(dir).getTotalSpace() - Files.getFileStore(dir).getUnallocatedSpace();
  }

  @Override
  public void close() {
    if (mounted) {
      unmount();
    }
  }

  private static void check(String failure) {
    if (failure != null) {
      throw new IllegalStateException(failure);
    }
  }

  /** Runs a command; null when it succeeded, else what it said. */
  private static String run(String... cmd) {
    List<String> c = new ArrayList<>(List.of(cmd));
    try {
      Process p = new ProcessBuilder(c).redirectErrorStream(true).start();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return String.join(" ", c) + " timed out";
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return p.exitValue() == 0 ? null : String.join(" ", c) + ": " + out;
    } catch (IOException e) {
      return String.join(" ", c) + ": " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return String.join(" ", c) + ": interrupted";
    }
  }
}
