package io.psiflink.it.airflow;

import io.psiflink.coordinator.Client;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Apache Airflow from PyPI, in a virtualenv kept between runs ({@code PSI_AIRFLOW_VENV}, default
 * /tmp/psi-airflow-venv), running the DAGs of deploy/airflow with {@code airflow dags test}: the
 * whole scheduler-less DAG run, tasks executed for real, in a child process.
 */
final class Airflow {
  static final String VERSION = "3.3.2";

  /** A finished {@code airflow dags test}: exit code and everything it printed. */
  record Run(int exit, String log) {}

  private final Path venv;
  private final Path home;
  private final Path deploy;

  private Airflow(Path venv, Path home, Path deploy) {
    this.venv = venv;
    this.home = home;
    this.deploy = deploy;
  }

  /** Installs Airflow if the venv lacks it; migrates a fresh metadata database in {@code home}. */
  static Airflow install(Path home) throws Exception {
    Path venv = Path.of(System.getenv().getOrDefault("PSI_AIRFLOW_VENV", "/tmp/psi-airflow-venv"));
    Path airflow = venv.resolve("bin/airflow");
    if (!Files.isExecutable(airflow)
        || !run(List.of(airflow.toString(), "version"), Map.of(), 120).log().contains(VERSION)) {
      require(
          run(List.of("python3", "-m", "venv", venv.toString()), Map.of(), 120),
          "python3 -m venv (Debian: python3-venv)");
      require(
          run(
              List.of(
                  venv.resolve("bin/pip").toString(),
                  "install",
                  "-q",
                  "apache-airflow==" + VERSION),
              Map.of(),
              900),
          "pip install apache-airflow");
    }
    Path repo = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    Airflow a = new Airflow(venv, home, repo.resolve("deploy/airflow"));
    require(a.airflow(List.of("db", "migrate"), Map.of(), 300), "airflow db migrate");
    return a;
  }

  /**
   * {@code airflow dags test DAG -c CONF} with the connection {@code psi_coordinator} pointing at
   * {@code url} with a party token and the coordinator's CA.
   */
  Run dagsTest(
      String dag, String confJson, String url, String token, Path ca, Map<String, String> env)
      throws Exception {
    String conn =
        Client.JSON.writeValueAsString(
            Map.of(
                "conn_type",
                "http",
                "host",
                url,
                "password",
                token,
                "extra",
                Map.of("ca", ca.toString())));
    Map<String, String> e = new java.util.HashMap<>(env);
    e.put("AIRFLOW_CONN_PSI_COORDINATOR", conn);
    return airflow(List.of("dags", "test", dag, "-c", confJson), e, 600);
  }

  /**
   * The operators' unit tests (deploy/airflow/tests: what they send and how the sensor resumes a
   * failed session, with the client's HTTP call replaced by a recorder) with this venv's Python and
   * Airflow.
   */
  Run unitTests() throws Exception {
    return run(
        List.of(
            venv.resolve("bin/python").toString(),
            "-m",
            "unittest",
            "discover",
            "-s",
            deploy.resolve("tests").toString()),
        Map.of("PYTHONPATH", deploy.toString(), "AIRFLOW_HOME", home.toString()),
        300);
  }

  private Run airflow(List<String> args, Map<String, String> env, int timeoutSeconds)
      throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(venv.resolve("bin/airflow").toString());
    cmd.addAll(args);
    Map<String, String> e = new java.util.HashMap<>(env);
    e.put("AIRFLOW_HOME", home.toString());
    e.put("AIRFLOW__CORE__DAGS_FOLDER", deploy.resolve("dags").toString());
    e.put("AIRFLOW__CORE__LOAD_EXAMPLES", "False");
    e.put("PYTHONPATH", deploy.toString());
    return run(cmd, e, timeoutSeconds);
  }

  private static Run run(List<String> cmd, Map<String, String> env, int timeoutSeconds)
      throws IOException, InterruptedException {
    Path log = Files.createTempFile("psi-airflow-", ".log");
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      return new Run(
          -1,
          Files.readString(log, StandardCharsets.UTF_8)
              + "\n(killed after "
              + timeoutSeconds
              + " s)");
    }
    String out = Files.readString(log, StandardCharsets.UTF_8);
    Files.delete(log);
    return new Run(p.exitValue(), out);
  }

  private static void require(Run r, String what) {
    if (r.exit() != 0) {
      throw new IllegalStateException(what + " failed (exit " + r.exit() + "):\n" + tail(r.log()));
    }
  }

  /** The last lines of a log, for assertion messages. */
  static String tail(String log) {
    String[] lines = log.split("\n");
    return String.join("\n", List.of(lines).subList(Math.max(0, lines.length - 60), lines.length));
  }
}
