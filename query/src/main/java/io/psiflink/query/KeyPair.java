package io.psiflink.query;

import java.io.Serializable;
import java.util.Objects;

/** One equality of the {@code ON} clause: a column of {@code a} equals a column of {@code b}. */
public record KeyPair(String aColumn, String bColumn) implements Serializable {
  public KeyPair {
    Objects.requireNonNull(aColumn, "aColumn");
    Objects.requireNonNull(bColumn, "bColumn");
  }
}
