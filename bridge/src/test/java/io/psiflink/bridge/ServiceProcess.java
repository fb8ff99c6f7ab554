package io.psiflink.bridge;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A service's main (helper, provider) as {@code ./psi} runs it, for tests: a JVM of its own on this
 * JVM's class path, its output collected line by line.
 *
 * @param process the JVM
 * @param lines its output (stdout and stderr), as it comes
 */
public record ServiceProcess(Process process, List<String> lines) {
  /**
   * Starts {@code main CONFIG}; {@code seen} completes with the first output line that contains
   * {@code text}.
   */
  public static ServiceProcess start(
      Class<?> main, Path config, String text, CompletableFuture<String> seen) throws Exception {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m",
                "-cp",
                System.getProperty("java.class.path"),
                main.getName(),
                config.toString())
            .redirectErrorStream(true)
            .start();
    List<String> lines = new CopyOnWriteArrayList<>();
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                  lines.add(line);
                  if (line.contains(text)) {
                    seen.complete(line);
                  }
                }
              } catch (Exception e) {
                // the process ended
              }
            });
    t.setDaemon(true);
    t.start();
    return new ServiceProcess(p, lines);
  }

  /** The output so far, one string. */
  public String output() {
    return String.join("\n", lines);
  }
}
