package io.psiflink.tools.local;

import io.psiflink.jobs.session.ResumeState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What {@code ./psi local --resume WORKDIR} needs of the run it resumes, kept in the run's work
 * directory as {@value #NAME}: the session id and the command line, one argument per line with its
 * newlines escaped. Written when a run over files starts; the parties keep their own resume states
 * in WORKDIR/party-A and WORKDIR/party-B.
 *
 * @param args the run's options as a command line
 * @param session the run's session id
 */
record LocalRunFile(List<String> args, String session) {
  static final String NAME = "psi-local.run";
  private static final String HEADER = "psi-flink local run v1";

  LocalRunFile {
    args = List.copyOf(args);
  }

  void write(Path work) throws IOException {
    StringBuilder b = new StringBuilder(HEADER).append('\n').append(session).append('\n');
    for (String a : args) {
      b.append(a.replace("\\", "\\\\").replace("\n", "\\n")).append('\n');
    }
    Files.writeString(work.resolve(NAME), b, StandardCharsets.UTF_8);
  }

  /**
   * The run file of {@code work}.
   *
   * @throws IOException naming the directory when it holds no run to resume
   */
  static LocalRunFile read(Path work) throws IOException {
    List<String> lines;
    try {
      lines = Files.readAllLines(work.resolve(NAME), StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new IOException(
          "nothing to resume in "
              + work
              + ": it holds no run of ./psi local over files ("
              + NAME
              + " is missing)");
    }
    if (lines.size() < 2 || !lines.get(0).equals(HEADER)) {
      throw new IOException(work.resolve(NAME) + " is not a run file of ./psi local");
    }
    List<String> args = new ArrayList<>();
    for (String l : lines.subList(2, lines.size())) {
      args.add(unescape(l));
    }
    return new LocalRunFile(args, lines.get(1));
  }

  /** Whether party A kept a resume state in {@code work}: the run got past its handshake. */
  static boolean resumable(Path work) {
    try {
      return Files.exists(ResumeState.file(work.resolve("party-A"), read(work).session()));
    } catch (IOException e) {
      return false;
    }
  }

  /** Refuses a run that cannot be resumed, before any party starts. */
  static void checkResumable(Path work) throws IOException {
    if (!resumable(work)) {
      throw new IOException(
          "nothing to resume in "
              + work
              + ": the run succeeded, or failed before its handshake (run it again)");
    }
  }

  /** The run succeeded: no party state is left to resume. */
  static void finished(Path work) throws IOException {
    ResumeState.forget(work.resolve("party-A"));
    ResumeState.forget(work.resolve("party-B"));
  }

  /** {@code hooks}, resuming. */
  static LocalJoin.Hooks resuming(LocalJoin.Hooks hooks) {
    return new LocalJoin.Hooks() {
      @Override
      public int bridgePort(io.psiflink.api.Role party, int relayPort) throws IOException {
        return hooks.bridgePort(party, relayPort);
      }

      @Override
      public void started(io.psiflink.api.Role party, Process process) {
        hooks.started(party, process);
      }

      @Override
      public List<String> launchPrefix(io.psiflink.api.Role party) {
        return hooks.launchPrefix(party);
      }

      @Override
      public java.time.Duration survivorGrace() {
        return hooks.survivorGrace();
      }

      @Override
      public boolean resuming() {
        return true;
      }

      @Override
      public boolean exitsAfterRun() {
        return hooks.exitsAfterRun();
      }
    };
  }

  private static String unescape(String l) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < l.length(); i++) {
      char c = l.charAt(i);
      if (c == '\\' && i + 1 < l.length()) {
        char n = l.charAt(++i);
        b.append(n == 'n' ? '\n' : n);
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return "LocalRunFile[session=" + session + ", args=" + Arrays.toString(args.toArray()) + "]";
  }
}
