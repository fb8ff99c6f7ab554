package io.psiflink.query;

import io.psiflink.api.Role;
import java.io.Serializable;
import java.util.Objects;

/**
 * One column of the joined result: which party supplies it, its name in that party's table, and its
 * name in the result (see {@link JoinQuery} for how output names are chosen).
 */
public record OutputColumn(Role side, String column, String outputName) implements Serializable {
  public OutputColumn {
    Objects.requireNonNull(side, "side");
    Objects.requireNonNull(column, "column");
    Objects.requireNonNull(outputName, "outputName");
  }
}
