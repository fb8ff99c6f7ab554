package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A password-protected PostgreSQL table read by a separate process the way the coordinator launches
 * a job: the location without its password on the command line, the password in {@value
 * JdbcTable#PASSWORD_ENV}. Without the variable the same process is refused (so the password did
 * reach the driver through it).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JdbcPasswordTest {
  PostgresServer pg;
  String location;

  @BeforeAll
  void start() throws Exception {
    pg = PostgresServer.startWithPassword();
    String url = pg.createDatabase("secured");
    try (Connection c =
            DriverManager.getConnection(url, PostgresServer.USER, PostgresServer.PASSWORD);
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE people (id bigint PRIMARY KEY, name text)");
      s.execute("INSERT INTO people SELECT g, 'n' || g FROM generate_series(1, 42) g");
    }
    location = url + "&table=people&password=" + PostgresServer.PASSWORD;
  }

  @AfterAll
  void stop() throws Exception {
    if (pg != null) {
      pg.close();
    }
  }

  private record Run(int code, String out, List<String> args) {}

  private static Run child(String location, Map<String, String> env) throws Exception {
    List<String> cmd =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            JdbcCountMain.class.getName(),
            location);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().remove(JdbcTable.PASSWORD_ENV);
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    return new Run(p.exitValue(), out, cmd);
  }

  @Test
  void theTableIsReadWithThePasswordInTheEnvironmentOnly() throws Exception {
    String onCommandLine = JdbcTable.withoutPassword(location);
    assertFalse(onCommandLine.contains(PostgresServer.PASSWORD), onCommandLine);
    Run ok = child(onCommandLine, Map.of(JdbcTable.PASSWORD_ENV, JdbcTable.password(location)));
    assertEquals(0, ok.code(), ok.out());
    assertTrue(ok.out().contains("rows=42"), ok.out());
    assertTrue(ok.args().stream().noneMatch(a -> a.contains(PostgresServer.PASSWORD)));

    Run refused = child(onCommandLine, Map.of());
    assertNotEquals(0, refused.code(), refused.out());
    assertFalse(refused.out().contains(PostgresServer.PASSWORD), refused.out());
  }
}
