package io.psiflink.api;

import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The ordered, uniquely named columns of a table. Immutable. */
public final class TableSchema implements Serializable {
  private static final long serialVersionUID = 1L;

  private final List<Column> columns;
  private final Map<String, Integer> index;

  public TableSchema(List<Column> columns) {
    this.columns = List.copyOf(columns);
    Map<String, Integer> idx = new HashMap<>();
    for (int i = 0; i < this.columns.size(); i++) {
      if (idx.put(this.columns.get(i).name(), i) != null) {
        throw new IllegalArgumentException(
            "duplicate column name '" + this.columns.get(i).name() + "'");
      }
    }
    this.index = Map.copyOf(idx);
  }

  public List<Column> columns() {
    return columns;
  }

  public int size() {
    return columns.size();
  }

  public Column column(int i) {
    return columns.get(i);
  }

  /** Position of the column with exactly this name. */
  public Optional<Integer> indexOf(String name) {
    return Optional.ofNullable(index.get(name));
  }

  public List<String> names() {
    return columns.stream().map(Column::name).toList();
  }

  /** A schema of the given columns of this one, in the given order. */
  public TableSchema project(List<String> names) {
    return new TableSchema(
        names.stream()
            .map(
                n ->
                    columns.get(
                        indexOf(n)
                            .orElseThrow(
                                () ->
                                    new IllegalArgumentException(
                                        "no column '" + n + "' in " + names()))))
            .toList());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TableSchema other && columns.equals(other.columns);
  }

  @Override
  public int hashCode() {
    return columns.hashCode();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < columns.size(); i++) {
      Column c = columns.get(i);
      sb.append(i == 0 ? "" : ", ").append(c.name()).append(' ').append(c.type().sqlName());
      if (!c.nullable()) {
        sb.append(" NOT NULL");
      }
    }
    return sb.append(')').toString();
  }
}
