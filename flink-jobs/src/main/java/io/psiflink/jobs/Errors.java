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
