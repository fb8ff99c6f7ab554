package io.psiflink.coordinator.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.Locale;

/**
 * Shows a session's progress as one bar per phase: on a terminal the current phase's line is
 * redrawn in place and each finished phase keeps its line; otherwise a plain line is printed
 * whenever the phase or the bins done change (logs, CI).
 */
public final class ProgressView {
  private static final int WIDTH = 24;

  private final PrintStream out;
  private final boolean tty;
  private final String label;
  private String phase;
  private long phaseStart;
  private String lastLine;

  public ProgressView(PrintStream out, boolean tty, String label) {
    this.out = out;
    this.tty = tty;
    this.label = label;
  }

  /** Shows {@code session} (a Session JSON); {@code extra} is appended (e.g. the peer's state). */
  public void update(JsonNode session, String extra) {
    JsonNode p = session.path("progress");
    String status = session.path("status").asText();
    String ph = p.isObject() ? p.path("phase").asText() : status;
    long now = System.nanoTime();
    if (phase != null && !ph.equals(phase)) {
      // the previous phase is over: its bar full, with its time
      print(line(phase, -1, -1, (now - phaseStart) / 1e9, true, ""), true);
    }
    if (!ph.equals(phase)) {
      phase = ph;
      phaseStart = now;
    }
    if (ph.equals("done") || status.equals("failed") || status.equals("cancelled")) {
      return;
    }
    long done = p.path("binsDone").asLong(0);
    long total = p.path("binsTotal").isNumber() ? p.path("binsTotal").asLong() : -1;
    print(line(ph, done, total, (now - phaseStart) / 1e9, false, extra), false);
  }

  /** Ends the in-place line (before other output). */
  public void finish() {
    if (tty && lastLine != null) {
      out.println();
      lastLine = null;
    }
  }

  private String line(
      String ph, long done, long total, double seconds, boolean finished, String extra) {
    StringBuilder bar = new StringBuilder("[");
    int fill = finished ? WIDTH : total > 0 ? (int) (WIDTH * Math.min(done, total) / total) : 0;
    for (int i = 0; i < WIDTH; i++) {
      bar.append(
          i < fill
              ? '#'
              : (tty && !finished && total <= 0 && i == (int) (seconds * 4) % WIDTH) ? '>' : '.');
    }
    bar.append(']');
    String bins = total > 0 ? String.format(Locale.ROOT, " %d/%d bins", done, total) : "";
    return String.format(
        Locale.ROOT,
        "%s %-14s %s %6.1f s%s%s",
        label,
        ph,
        bar,
        seconds,
        finished ? " done" : bins,
        extra.isEmpty() ? "" : "   " + extra);
  }

  private void print(String line, boolean keep) {
    if (tty) {
      String pad =
          lastLine != null && lastLine.length() > line.length()
              ? " ".repeat(lastLine.length() - line.length())
              : "";
      out.print("\r" + line + pad);
      if (keep) {
        out.println();
        lastLine = null;
      } else {
        lastLine = line;
      }
      out.flush();
    } else if (!line.replaceAll("\\s+[0-9.]+ s", "")
        .equals(lastLine == null ? null : lastLine.replaceAll("\\s+[0-9.]+ s", ""))) {
      // plain output: a line per change of phase or bins, not per tick of the clock
      out.println(line);
      lastLine = keep ? null : line;
    }
  }
}
