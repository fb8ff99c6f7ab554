package io.psiflink.coordinator;

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

  /**
   * System properties of a party JVM named {@code psi.flink.<key>} set Flink's {@code <key>} in the
   * job's configuration. The job (PrivateJoinJob.FLINK_PROPERTY_PREFIX) reads them; it-tests check
   * that both spell the prefix alike.
   */
  public static final String FLINK_PROPERTY_PREFIX = "psi.flink.";

  /**
   * The system property naming the class path of an embedded party JVM when the configuration's
   * {@code job.classpath} does not (./psi serve and ./psi demo set it to the job's build).
   */
  public static final String JOB_CLASSPATH_PROPERTY = "psi.job.classpath";

  private JvmOptions() {}

  private static List<String> load() {
    try (InputStream in = JvmOptions.class.getResourceAsStream("flink-jvm-options")) {
      if (in == null) {
        throw new IllegalStateException("resource flink-jvm-options missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .lines()
          .map(String::trim)
          .filter(l -> !l.isEmpty() && !l.startsWith("#"))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
