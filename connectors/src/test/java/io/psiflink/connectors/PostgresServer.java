package io.psiflink.connectors;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A throwaway PostgreSQL server for tests, from Debian's {@code postgresql} package (installed by
 * {@code ./psi deps}): {@code initdb} into a temporary directory, {@code pg_ctl start} on a free
 * loopback port, trust authentication (loopback only, test data only), {@code pg_ctl stop} and the
 * directory removed at {@link #close}. PostgreSQL refuses to run as root, so as root (as in CI) the
 * server runs as the unprivileged {@code postgres} user via {@code runuser}. Tests are skipped
 * (with a message) only when the PostgreSQL binaries are not installed.
 */
public final class PostgresServer implements AutoCloseable {
  public static final String USER = "psi";

  /** The password of {@link #USER} on a server from {@link #startWithPassword()}. */
  public static final String PASSWORD = "psi-test-pw";

  private final Path bin;
  private final Path dir;
  private final int port;
  private final boolean asPostgres;

  /** Null: trust authentication. */
  private String password;

  private PostgresServer(Path bin, Path dir, int port, boolean asPostgres) {
    this.bin = bin;
    this.dir = dir;
    this.port = port;
    this.asPostgres = asPostgres;
  }

  /** The bin directory of the newest PostgreSQL under /usr/lib/postgresql, or null. */
  public static Path findBin() {
    Path root = Path.of("/usr/lib/postgresql");
    if (!Files.isDirectory(root)) {
      return null;
    }
    try (Stream<Path> versions = Files.list(root)) {
      return versions
          .map(v -> v.resolve("bin"))
          .filter(
              b ->
                  Files.isExecutable(b.resolve("initdb"))
                      && Files.isExecutable(b.resolve("pg_ctl")))
          .max(Comparator.comparing(b -> versionOf(b.getParent())))
          .orElse(null);
    } catch (IOException e) {
      return null;
    }
  }

  private static int versionOf(Path p) {
    try {
      return Integer.parseInt(p.getFileName().toString());
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** Starts a server, or aborts the calling test (skipped) when PostgreSQL is not installed. */
  public static PostgresServer start() throws Exception {
    return start(false);
  }

  /**
   * As {@link #start()}, but TCP connections must give {@link #PASSWORD} (SCRAM-SHA-256), so that a
   * test can tell whether a password reached the driver.
   */
  public static PostgresServer startWithPassword() throws Exception {
    return start(true);
  }

  private static PostgresServer start(boolean withPassword) throws Exception {
    Path bin = findBin();
    Assumptions.assumeTrue(
        bin != null,
        "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/"
            + "initdb): run ./psi deps (it installs the Debian package postgresql); skipping the"
            + " PostgreSQL tests");
    boolean root = "root".equals(System.getProperty("user.name"));
    Path dir = Files.createTempDirectory("psi-pg-");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    PostgresServer pg = new PostgresServer(bin, dir, port, root);
    pg.password = withPassword ? PASSWORD : null;
    List<String> auth = List.of("--auth=trust");
    if (withPassword) {
      Files.writeString(dir.resolve("pwfile"), PASSWORD + "\n");
      auth =
          List.of(
              "--auth-local=trust",
              "--auth-host=scram-sha-256",
              "--pwfile=" + dir.resolve("pwfile"));
    }
    if (root) {
      run(List.of("chown", "-R", "postgres:postgres", dir.toString()), dir);
    }
    try {
      List<String> initdb =
          new ArrayList<>(
              List.of(
                  bin.resolve("initdb").toString(),
                  "-D",
                  dir.resolve("data").toString(),
                  "-U",
                  USER,
                  "--encoding=UTF8",
                  "--no-sync"));
      initdb.addAll(auth);
      pg.pg(initdb);
      pg.pg(
          List.of(
              bin.resolve("pg_ctl").toString(),
              "-D",
              dir.resolve("data").toString(),
              "-l",
              dir.resolve("log").toString(),
              "-w",
              "-t",
              "60",
              "-o",
              "-p "
                  + port
                  + " -k "
                  + dir
                  + " -c listen_addresses=127.0.0.1 -c fsync=off"
                  + " -c max_connections=40",
              "start"));
    } catch (Exception e) {
      String log = Files.exists(dir.resolve("log")) ? Files.readString(dir.resolve("log")) : "";
      pg.close();
      throw new IllegalStateException("cannot start PostgreSQL: " + e.getMessage() + "\n" + log, e);
    }
    return pg;
  }

  /** Creates a database and returns its JDBC URL. */
  public String createDatabase(String name) throws SQLException {
    try (Connection c = DriverManager.getConnection(url("postgres"), USER, password);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
    return url(name);
  }

  public String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=" + USER;
  }

  private void pg(List<String> command) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    if (asPostgres) {
      String runuser =
          Stream.of("/usr/sbin/runuser", "/sbin/runuser")
              .filter(f -> Files.isExecutable(Path.of(f)))
              .findFirst()
              .orElse("runuser");
      cmd.addAll(List.of(runuser, "-u", "postgres", "--"));
    }
    cmd.addAll(command);
    run(cmd, dir);
  }

  private static void run(List<String> cmd, Path dir) throws IOException, InterruptedException {
    Path out = Files.createTempFile("psi-pg-cmd", ".log");
    try {
      Process p =
          new ProcessBuilder(cmd)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(cmd.get(0) + " timed out");
      }
      if (p.exitValue() != 0) {
        throw new IOException(
            String.join(" ", cmd) + " exited with " + p.exitValue() + ": " + Files.readString(out));
      }
    } finally {
      Files.deleteIfExists(out);
    }
  }

  /** Where clients reach the server: {@code 127.0.0.1:<port>}. */
  public String address() {
    return "127.0.0.1:" + port;
  }

  /**
   * Restarts the server ({@code pg_ctl restart -m fast}, same options): its open connections are
   * terminated (SQLSTATE 57P01) and it refuses new ones until it is back; returns once it accepts
   * connections again.
   */
  public void restart() throws IOException, InterruptedException {
    pg(
        List.of(
            bin.resolve("pg_ctl").toString(),
            "-D",
            dir.resolve("data").toString(),
            "-l",
            dir.resolve("log").toString(),
            "-w",
            "-t",
            "60",
            "-m",
            "fast",
            "restart"));
  }

  @Override
  public void close() throws Exception {
    try {
      if (Files.exists(dir.resolve("data").resolve("postmaster.pid"))) {
        pg(
            List.of(
                bin.resolve("pg_ctl").toString(),
                "-D",
                dir.resolve("data").toString(),
                "-w",
                "-m",
                "fast",
                "stop"));
      }
    } finally {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
