package io.psiflink.connectors;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

/**
 * A separate process that reads a JDBC table as a job does (JdbcTable.connect, with the password
 * from the URL or {@value JdbcTable#PASSWORD_ENV}) and prints its row count; exits 1 on failure.
 */
public final class JdbcCountMain {
  private JdbcCountMain() {}

  public static void main(String[] args) {
    try {
      JdbcTable t = JdbcTable.parse(args[0]);
      try (Connection c = t.connect();
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*) FROM " + t.quotedTable())) {
        rs.next();
        System.out.println("rows=" + rs.getLong(1));
      }
    } catch (Exception e) {
      System.out.println("failed: " + JdbcTable.redact(String.valueOf(e.getMessage())));
      System.exit(1);
    }
  }
}
