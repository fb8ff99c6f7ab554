package io.psiflink.tools.local;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Watches the parties' logs of {@link LocalJoin#run}: a stream that copies every byte on and hands
 * each complete line to a callback, so that a drill or benchmark can act the moment a party logs a
 * phase (kill a JVM, start a clock).
 */
public final class LogLines {
  private LogLines() {}

  /**
   * A stream that writes to {@code copy} and passes each line, without its newline, to {@code
   * each}.
   */
  public static OutputStream tap(OutputStream copy, Consumer<String> each) {
    return new OutputStream() {
      private final ByteArrayOutputStream line = new ByteArrayOutputStream();

      @Override
      public synchronized void write(int c) throws IOException {
        copy.write(c);
        if (c != '\n') {
          line.write(c);
          return;
        }
        String l = line.toString(StandardCharsets.UTF_8);
        line.reset();
        each.accept(l);
      }
    };
  }
}
