package io.psiflink.coordinator;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.locks.ReentrantLock;
import org.flywaydb.core.Flyway;

/**
 * The coordinator's database: SQLite (default) or PostgreSQL, migrated by Flyway from {@code
 * db/migration/common} and {@code db/migration/sqlite} or {@code db/migration/postgresql}. One
 * connection per transaction; with SQLite, transactions are serialised in this process (SQLite has
 * a single writer anyway, and the coordinator's traffic is small).
 */
public final class Db {
  /** Work done inside one transaction. */
  @FunctionalInterface
  public interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  private final String url;
  private final Properties props = new Properties();
  private final boolean sqlite;
  private final ReentrantLock sqliteLock = new ReentrantLock();

  public Db(String url, String user, String password) {
    this.url = url;
    this.sqlite = url.startsWith("jdbc:sqlite:");
    if (!sqlite && !url.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException(
          "database.url must be jdbc:sqlite:... or jdbc:postgresql:...");
    }
    if (user != null) {
      props.setProperty("user", user);
    }
    if (password != null) {
      props.setProperty("password", password);
    }
    if (sqlite) {
      props.setProperty("foreign_keys", "true");
      props.setProperty("busy_timeout", "10000");
      props.setProperty("journal_mode", "WAL");
    }
  }

  public boolean isSqlite() {
    return sqlite;
  }

  /** Applies pending migrations. */
  public void migrate() {
    migrate(null);
  }

  /** Applies pending migrations up to {@code version} (all when null; tests of a migration). */
  void migrate(String version) {
    var flyway =
        Flyway.configure()
            .dataSource(url, props.getProperty("user"), props.getProperty("password"))
            .locations(
                "classpath:db/migration/common",
                "classpath:db/migration/" + (sqlite ? "sqlite" : "postgresql"));
    if (version != null) {
      flyway = flyway.target(version);
    }
    flyway.load().migrate();
  }

  public Connection connect() throws SQLException {
    return DriverManager.getConnection(url, props);
  }

  /** Runs {@code work} in a transaction: committed when it returns, rolled back when it throws. */
  public <T> T tx(Work<T> work) {
    if (sqlite) {
      sqliteLock.lock();
    }
    try (Connection c = connect()) {
      c.setAutoCommit(false);
      try {
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("database: " + e.getMessage(), e);
    } finally {
      if (sqlite) {
        sqliteLock.unlock();
      }
    }
  }
}
