package io.psiflink.coordinator;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.stream.Collectors;

/** How a coordinator runs its party's job ({@code job.mode} of the configuration). */
public enum JobMode {
  /** A child JVM running PartyMain on an embedded Flink MiniCluster (the default). */
  EMBEDDED("embedded"),
  /** {@code $flinkHome/bin/flink run jobJar} against a real cluster. */
  FLINK_RUN("flink-run");

  private final String text;

  JobMode(String text) {
    this.text = text;
  }

  /** The form the configuration file, the audit log and the log show. */
  @JsonValue
  public String text() {
    return text;
  }

  /**
   * The mode written {@code text} in the configuration.
   *
   * @throws IllegalArgumentException naming the key {@code job.mode} and the modes there are
   */
  @JsonCreator
  public static JobMode parse(String text) {
    for (JobMode m : values()) {
      if (m.text.equals(text)) {
        return m;
      }
    }
    throw new IllegalArgumentException(
        "config: job.mode must be "
            + Arrays.stream(values()).map(JobMode::text).collect(Collectors.joining(" or "))
            + ", not '"
            + text
            + "'");
  }

  @Override
  public String toString() {
    return text;
  }
}
