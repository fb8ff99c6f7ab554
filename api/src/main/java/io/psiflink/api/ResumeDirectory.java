package io.psiflink.api;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where a party's job keeps what a resumed run needs ({@code --resume}): the directory {@code
 * resume} of its work directory ({@code --work}), one state file per session. The job writes and
 * reads it; whoever launched the job (./psi local, the coordinator) removes it once the session
 * succeeded at both parties.
 */
public final class ResumeDirectory {
  private ResumeDirectory() {}

  /** The resume directory of a job's work directory. */
  public static Path of(Path workDir) {
    return workDir.resolve("resume");
  }

  /**
   * Removes every resume state of a job's work directory, and the directory: a launcher's call once
   * the session succeeded at both parties (or was abandoned). True if there was one.
   */
  public static boolean forget(Path workDir) throws IOException {
    Path dir = of(workDir);
    if (!Files.isDirectory(dir)) {
      return false;
    }
    boolean any = false;
    try (var files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        any |= Files.deleteIfExists(f);
      }
    }
    Files.deleteIfExists(dir);
    return any;
  }
}
