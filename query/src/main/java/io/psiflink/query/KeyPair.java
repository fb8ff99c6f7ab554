package io.psiflink.query;

import java.io.Serializable;
import java.util.Objects;

/**
 * One key equality: a key of {@code a} equals a key of {@code b}, each named by its column or, for
 * an expression, its Flink SQL text ({@link JoinKey#name()}).
 */
public record KeyPair(String aColumn, String bColumn) implements Serializable {
  public KeyPair {
    Objects.requireNonNull(aColumn, "aColumn");
    Objects.requireNonNull(bColumn, "bColumn");
  }
}
