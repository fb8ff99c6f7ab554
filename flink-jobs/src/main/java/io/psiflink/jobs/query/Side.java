package io.psiflink.jobs.query;

/** The two parties of a join query; each owns one table, {@code a} or {@code b}. */
public enum Side {
  A("a"),
  B("b");

  private final String table;

  Side(String table) {
    this.table = table;
  }

  /** The name of this side's table in a query: {@code "a"} or {@code "b"}. */
  public String table() {
    return table;
  }

  /** The other party. */
  public Side other() {
    return this == A ? B : A;
  }
}
