package io.psiflink.jobs;

import java.util.ArrayList;
import java.util.List;

/** Turns the exception chains of a failed Flink job into one readable line. */
public final class Errors {
  private Errors() {}

  /**
   * The messages of the chain, outermost first, without Flink's generic wrappers ("Job execution
   * failed.", "Recovery is suppressed...") and without repeats.
   */
  public static String explain(Throwable t) {
    return explain(t, null);
  }

  /**
   * {@link #explain(Throwable)}, and when a disk was full (the chain says "No space left on
   * device", which the JDK says without the path), which directories hold what this party writes:
   * its spill in {@code workDir} (the bins' spill files and Flink's, in io.tmp.dirs, when run
   * locally; null if unknown), else its outputs.
   */
  public static String explain(Throwable t, String workDir) {
    String line = chain(t);
    boolean full = line.contains(NO_SPACE);
    boolean shuffle = !full && line.contains(NO_SHUFFLE_TIER);
    if (!full && !shuffle) {
      return line;
    }
    return line
        + " ("
        + (shuffle
            ? NO_SPACE + ": Flink's shuffle keeps part of its disk free and found too little; "
            : "")
        + "a disk is full: "
        + (workDir == null
            ? "this party's spill directories (Flink's io.tmp.dirs)"
            : "this party's work directory " + workDir + " (its spill, in io.tmp.dirs)")
        + " or its output's or quarantine's file system)";
  }

  /** What the JDK (ENOSPC) says when a write finds its disk full. */
  static final String NO_SPACE = "No space left on device";

  /**
   * What Flink's hybrid shuffle says when it has no tier left for its data: its disk tier refuses a
   * new segment once the disk's free space falls below a reserve, before the disk is full.
   */
  static final String NO_SHUFFLE_TIER = "Failed to choose a storage tier";

  private static String chain(Throwable t) {
    List<String> parts = new ArrayList<>();
    for (Throwable c = t; c != null && parts.size() < 8; c = c.getCause()) {
      String m = c.getMessage();
      if (m == null || m.isBlank() || generic(m)) {
        continue;
      }
      String line = m.lines().findFirst().orElse(m).trim();
      if (parts.stream().noneMatch(p -> p.contains(line))) {
        parts.removeIf(line::contains);
        parts.add(line);
      }
    }
    if (parts.isEmpty()) {
      return t.getClass().getSimpleName();
    }
    return String.join(": ", parts);
  }

  private static boolean generic(String m) {
    return m.startsWith("Job execution failed")
        || m.startsWith("Recovery is suppressed")
        || m.startsWith("org.apache.flink.runtime.JobException")
        || m.startsWith("Could not forward element")
        || m.startsWith("java.lang.")
        // the wrappers of an exception on a source's fetcher thread (e.g. the JDBC source's reads)
        || m.startsWith("One or more fetchers have encountered exception")
        || m.startsWith("SplitFetcher thread ");
  }
}
