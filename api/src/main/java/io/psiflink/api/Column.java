package io.psiflink.api;

import java.io.Serializable;
import java.util.Objects;

/** One column of a table: its name as written in the file header or schema, and its type. */
public record Column(String name, ColumnType type, boolean nullable) implements Serializable {
  public Column {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("a column name must not be empty");
    }
  }
}
