package io.psiflink.jobs.local;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * JVM options of the JVMs that run Flink jobs: the garbage collector, and what Flink needs on Java
 * 17 (the same opens Flink's own scripts pass). They live in the resource {@code
 * flink-jvm-options}, which {@code ./psi} reads too.
 */
public final class JvmOptions {
  public static final List<String> FLINK_JVM = load();

  private JvmOptions() {}

  private static List<String> load() {
    try (InputStream in = JvmOptions.class.getResourceAsStream("flink-jvm-options")) {
      if (in == null) {
        throw new IllegalStateException("resource flink-jvm-options missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
          .map(String::trim).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
