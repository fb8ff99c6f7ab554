package io.psiflink.connectors;

import java.io.IOException;
import java.util.UUID;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * An output directory (local, {@code file://} or {@code hdfs://}) that appears at its target path
 * only once the job that writes it succeeded. The job writes into a hidden staging directory next
 * to the target, {@code <parent>/.<name>.staging-<uuid>}, and the driver calls {@link #commit}
 * after {@code execute()} returned: it writes {@value TableSink#SUCCESS_MARKER} into the staging
 * directory and renames that to the target, one rename, atomic on HDFS and on a local POSIX file
 * system. A job that fails or is cancelled, or a driver that dies, leaves only the hidden staging
 * directory, which every reader that skips names starting with {@code .} ignores; {@link #abort}
 * removes it when the driver can.
 *
 * <p>The target must not exist, or be an empty directory (removed at commit), so that a run never
 * mixes its files with another's. Immutable.
 */
public final class StagedOutput {
  private final String target;
  private final Path path;
  private final String staging;
  private final boolean replace;

  private StagedOutput(String target, Path path, String staging, boolean replace) {
    this.target = target;
    this.path = path;
    this.staging = staging;
    this.replace = replace;
  }

  public static StagedOutput prepare(String target) throws TableException {
    return prepare(target, false);
  }

  /**
   * Checks the target and picks the staging directory (created by the sink that writes into it).
   *
   * @param replace whether {@link #commit} replaces an existing target directory (for outputs that
   *     only describe the latest run, such as a quarantine) instead of refusing it
   * @throws TableException if the target exists and is not an empty directory, or its parent cannot
   *     be created
   */
  public static StagedOutput prepare(String target, boolean replace) throws TableException {
    Path t = qualified(new Path(stripSlash(target)));
    if (t.getParent() == null) {
      throw new TableException("output '" + target + "' is a root directory; name a new directory");
    }
    try {
      FileSystem fs = t.getFileSystem();
      if (!replace) {
        checkTarget(fs, t, target);
      }
      Path parent = t.getParent();
      if (!fs.exists(parent) && !fs.mkdirs(parent)) {
        throw new TableException(
            "cannot create '" + parent + "', the parent of output '" + target + "'");
      }
    } catch (IOException e) {
      throw new TableException("cannot prepare output '" + target + "': " + e.getMessage(), e);
    }
    Path staging = new Path(t.getParent(), "." + t.getName() + ".staging-" + UUID.randomUUID());
    return new StagedOutput(target, t, staging.toString(), replace);
  }

  /**
   * A relative path qualified against its file system's working directory (the JVM's for a local
   * path), so that its parent, where the staging directory goes, is never empty: {@code --out out}
   * stages in {@code ./.out.staging-*}.
   */
  private static Path qualified(Path p) throws TableException {
    if (p.isAbsolute()) {
      return p;
    }
    try {
      return p.makeQualified(p.getFileSystem());
    } catch (IOException e) {
      throw new TableException("cannot resolve output '" + p + "': " + e.getMessage(), e);
    }
  }

  private static void checkTarget(FileSystem fs, Path t, String target)
      throws IOException, TableException {
    if (!fs.exists(t)) {
      return;
    }
    FileStatus status = fs.getFileStatus(t);
    if (!status.isDir()) {
      throw new TableException("output '" + target + "' exists and is not a directory");
    }
    FileStatus[] entries = fs.listStatus(t);
    if (entries != null && entries.length > 0) {
      throw new TableException(
          "output directory '"
              + target
              + "' already exists and is not "
              + "empty (it holds "
              + entries[0].getPath().getName()
              + "); choose a new directory per "
              + "run");
    }
  }

  /** An output path without its trailing slash (the root stays {@code /}). */
  public static String stripSlash(String p) {
    return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
  }

  /** Where the job writes. */
  public String stagingDir() {
    return staging;
  }

  /** Where the output appears on {@link #commit}. */
  public String target() {
    return target;
  }

  /**
   * Marks the staged output complete and moves it to the target.
   *
   * <p>The staging directory must exist: the sinks create it while the job's graph is built ({@link
   * TableSink#prepareDirectory}), so an empty result is an empty directory there. One that is gone
   * at commit (its file system unmounted, remounted or cleaned up meanwhile) is an error, not an
   * empty result: creating it here would publish an empty output as a complete one.
   *
   * @throws TableException if the staging directory is gone, the target appeared meanwhile (and is
   *     not empty) or the marker or the rename fails; the message names the target, the staging
   *     directory and the cause, and the target is not created (the staged files stay where they
   *     are)
   */
  public void commit() throws TableException {
    Path s = new Path(staging);
    boolean staged;
    try {
      staged = s.getFileSystem().exists(s);
    } catch (IOException e) {
      throw failure(e);
    }
    if (!staged) {
      throw new TableException(
          "cannot commit the output '"
              + target
              + "': its staging directory '"
              + staging
              + "' is gone (was its file system unmounted or cleaned up while the job ran?);"
              + " nothing was committed");
    }
    try {
      FileSystem fs = s.getFileSystem();
      TableSink.markComplete(staging);
      if (!replace) {
        checkTarget(fs, path, target);
      }
      if (fs.exists(path) && !fs.delete(path, replace)) {
        throw new TableException("cannot remove the directory '" + target + "'");
      }
      if (!fs.rename(s, path)) {
        throw new TableException("cannot rename '" + staging + "' to '" + target + "'");
      }
    } catch (IOException | TableException e) {
      throw failure(e);
    }
  }

  private TableException failure(Exception e) {
    return new TableException(
        "cannot commit the output '"
            + target
            + "' (staged in '"
            + staging
            + "', which stays there): "
            + e.getMessage(),
        e);
  }

  /** Removes the staging directory, if any; best effort (a failure is only returned). */
  public IOException abort() {
    Path s = new Path(staging);
    try {
      s.getFileSystem().delete(s, true);
      return null;
    } catch (IOException e) {
      return e;
    }
  }

  @Override
  public String toString() {
    return target + " (staged in " + staging + ")";
  }
}
