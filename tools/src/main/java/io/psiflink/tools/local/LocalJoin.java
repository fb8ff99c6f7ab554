package io.psiflink.tools.local;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import io.psiflink.tools.bench.Json;
import io.psiflink.coordinator.JvmOptions;
import io.psiflink.bridge.BridgeRelay;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.PartyTrust;
import io.psiflink.bridge.RelayConfig;
import io.psiflink.bridge.ThrowawayPki;
import io.psiflink.connectors.JdbcTable;
import io.psiflink.jobs.Args;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./psi local}: runs both parties of a private join on this machine. Each party is its own JVM
 * running its own Flink job on an embedded MiniCluster; they talk through a real bridge relay over
 * mutually authenticated TLS on loopback, with certificates from a throwaway CA made for the run.
 * Party A (table {@code a}) writes the joined table.
 */
public final class LocalJoin {
  private static final Set<String> FLAGS = Set.of("a", "b", "sql", "out", "format", "bins", "sigma",
      "protocol", "parallelism", "work", "json", "party-heap", "attempts", "idle-timeout",
      "pair-timeout", "protocol-params", "a-table", "b-table", "max-bad-rows", "quarantine",
      "a-delimiter", "b-delimiter", "public-size", "a-public-size", "b-public-size", "insecure-test-only");
  /** How long a party may run on after its peer failed (see {@link #waitForBoth}). */
  private static final Duration SURVIVOR_GRACE = Duration.ofSeconds(15);

  private static final String USAGE = "usage: ./psi local --a A_TABLE --b B_TABLE --sql \"SELECT "
      + "... FROM a JOIN b ON ...\" --out DIR [--format avro|parquet|csv] [--a-table T] "
      + "[--b-table T] [--a-delimiter C] [--b-delimiter C] [--max-bad-rows N|P%] "
      + "[--quarantine DIR] [--bins M] [--sigma S] "
      + "[--parallelism P] [--public-size rounded|exact|declared:N] [--a-public-size P] "
      + "[--b-public-size P] [--json]\n"
      + "  tables: local or hdfs:// .csv/.avro/.parquet files or directories of part files, or "
      + "jdbc:postgresql://host:port/db?table=T URLs";

  /** The outcome: each party's summary JSON and the whole run's wall time. */
  public record Result(String summaryA, String summaryB, double seconds) {
    public String toJson() {
      ObjectNode n = Json.object();
      n.put("total_seconds", Json.three(seconds));
      // the parties' summaries as the jobs wrote them
      n.putRawValue("a", new RawValue(summaryA));
      n.putRawValue("b", new RawValue(summaryB));
      return Json.write(n);
    }
  }

  private LocalJoin() {}

  public static void main(String[] args) {
    Map<String, String> a;
    try {
      a = parse(args);
      for (String k : List.of("a", "b", "sql", "out")) {
        if (!a.containsKey(k)) {
          throw new IllegalArgumentException("--" + k + " is required\n" + USAGE);
        }
      }
    } catch (IllegalArgumentException e) {
      System.err.println("psi local: " + e.getMessage());
      System.exit(2);
      return;
    }
    try {
      Result r = run(a, System.err);
      if (a.containsKey("json")) {
        System.out.println(r.toJson());
      } else {
        System.out.printf(Locale.ROOT, "joined table written to %s in %.1f s%n", a.get("out"),
            r.seconds());
      }
      System.exit(0);
    } catch (Exception e) {
      System.err.println("psi local: " + e.getMessage());
      System.exit(1);
    }
  }

  /**
   * Runs both parties; options as on the command line (without dashes). Party logs go to
   * {@code log}, prefixed with the party.
   */
  public static Result run(Map<String, String> opts, PrintStream log) throws Exception {
    return run(opts, log, Hooks.NONE);
  }

  /** Lets tests put a network fault between a party and the bridge, or stop a party. */
  public interface Hooks {
    Hooks NONE = new Hooks() {};

    /** The port {@code party} should dial to reach the relay listening on {@code relayPort}. */
    default int bridgePort(String party, int relayPort) throws IOException {
      return relayPort;
    }

    /** Called once the party's JVM runs. */
    default void started(String party, Process process) {}
  }

  public static Result run(Map<String, String> opts, PrintStream log, Hooks hooks)
      throws Exception {
    Path work = opts.containsKey("work") ? Path.of(opts.get("work"))
        : Files.createTempDirectory("psi-local-");
    Files.createDirectories(work);
    ThrowawayPki pki = ThrowawayPki.create(work.resolve("pki"), "party-a", "party-b", "bridge");
    String session = "local-" + UUID.randomUUID();
    long start = System.nanoTime();
    try (BridgeRelay relay = BridgeRelay.start(RelayConfig.defaults(pki.credentials("bridge"),
        Set.of("party-a", "party-b")))) {
      // This tool made both certificates, so each party gets the other's pinned, as the
      // coordinators' session records do for a real join.
      PartyCredentials ca = pki.credentials("party-a");
      PartyCredentials cb = pki.credentials("party-b");
      Process pa = launch(opts, "A", ca, "party-b", sha256(cb), session,
          hooks.bridgePort("A", relay.port()), work, log);
      hooks.started("A", pa);
      Process pb = launch(opts, "B", cb, "party-a", sha256(ca), session,
          hooks.bridgePort("B", relay.port()), work, log);
      hooks.started("B", pb);
      int[] exits = waitForBoth(pa, pb, log);
      int ea = exits[0];
      int eb = exits[1];
      double seconds = (System.nanoTime() - start) / 1e9;
      if (ea != 0 || eb != 0) {
        throw new IOException("the join failed (party A exit " + ea + ", party B exit " + eb
            + "); see the party logs above");
      }
      return new Result(Files.readString(work.resolve("summary-A.json")),
          Files.readString(work.resolve("summary-B.json")), seconds);
    }
  }

  /** The SHA-256 of a party's certificate in hex, as {@code --peer-cert-sha256} takes it. */
  public static String sha256(PartyCredentials c) {
    try {
      return java.util.HexFormat.of().formatHex(PartyTrust.sha256(c.certificate()));
    } catch (io.psiflink.bridge.BridgeException e) {
      throw new IllegalStateException("cannot hash the certificate of " + c.partyName(), e);
    }
  }

  private static Process launch(Map<String, String> o, String party, PartyCredentials creds,
      String peer, String peerSha256, String session, int port, Path work, PrintStream log)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx" + o.getOrDefault("party-heap", "6g"));
    cmd.addAll(JvmOptions.FLINK_JVM);
    // Our console logging, even where Flink's test jars put a silencing log4j2-test.properties first.
    cmd.add("-Dlog4j2.configurationFile=log4j2.properties");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("io.psiflink.jobs.PartyMain");
    boolean a = party.equals("A");
    add(cmd, "party", party);
    // a JDBC password goes to the party's environment, not its command line (ps shows that)
    String table = o.get(a ? "a" : "b");
    String password = JdbcTable.isJdbc(table) ? JdbcTable.password(table) : null;
    add(cmd, "table", password == null ? table : JdbcTable.withoutPassword(table));
    if (o.containsKey(a ? "a-table" : "b-table")) {
      add(cmd, "table-name", o.get(a ? "a-table" : "b-table"));
    }
    if (o.containsKey(a ? "a-delimiter" : "b-delimiter")) {
      add(cmd, "csv-delimiter", o.get(a ? "a-delimiter" : "b-delimiter"));
    }
    add(cmd, "sql", o.get("sql"));
    if (a) {
      add(cmd, "out", o.get("out"));
      if (o.containsKey("format")) {
        add(cmd, "format", o.get("format"));
      }
    }
    add(cmd, "quarantine", quarantineDir(o) + "/" + party.toLowerCase(Locale.ROOT));
    if (o.containsKey("max-bad-rows")) {
      add(cmd, "max-bad-rows", o.get("max-bad-rows"));
    }
    add(cmd, "session", session);
    add(cmd, "bridge", "127.0.0.1:" + port);
    add(cmd, "cert", creds.certChainPem().toString());
    add(cmd, "key", creds.privateKeyPem().toString());
    add(cmd, "ca", creds.trustedCaPem().toString());
    add(cmd, "peer", peer);
    add(cmd, "peer-cert-sha256", peerSha256);
    for (String k : List.of("bins", "sigma", "protocol", "protocol-params", "parallelism",
        "attempts", "idle-timeout", "pair-timeout")) {
      if (o.containsKey(k)) {
        add(cmd, k, o.get(k));
      }
    }
    // what this party discloses of its size: its own option, else the common one, else the default
    String publicSize = o.getOrDefault(a ? "a-public-size" : "b-public-size", o.get("public-size"));
    if (publicSize != null) {
      add(cmd, "public-size", publicSize);
    }
    if (o.containsKey("insecure-test-only")) {
      cmd.add(io.psiflink.jobs.PartyConfig.INSECURE_FLAG); // lets tests use σ < 40
    }
    add(cmd, "work", work.resolve("party-" + party).toString());
    add(cmd, "summary", work.resolve("summary-" + party + ".json").toString());
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    if (password != null) {
      pb.environment().put(JdbcTable.PASSWORD_ENV, password);
    }
    Process p = pb.start();
    pump(p.getInputStream(), "[" + party + "] ", log);
    return p;
  }

  /**
   * Where the parties' quarantines go ({@code <dir>/a}, {@code <dir>/b}): {@code --quarantine}, or
   * next to the output, {@code <out>.quarantine}, since the output directory itself appears only
   * when the join succeeded and the quarantine matters most when it did not.
   */
  static String quarantineDir(Map<String, String> o) {
    if (o.containsKey("quarantine")) {
      return o.get("quarantine");
    }
    String out = o.get("out");
    return (out.endsWith("/") ? out.substring(0, out.length() - 1) : out) + ".quarantine";
  }

  private static void add(List<String> cmd, String k, String v) {
    cmd.add("--" + k);
    cmd.add(v);
  }

  private static void pump(InputStream in, String prefix, PrintStream log) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in,
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          log.println(prefix + line);
        }
      } catch (IOException e) {
        log.println(prefix + "(log lost: " + e.getMessage() + ")");
      }
    }, "log " + prefix.trim());
    t.setDaemon(true);
    t.start();
  }

  /**
   * Waits for both parties. When one fails, the other gets {@link #SURVIVOR_GRACE} to notice through
   * the bridge and fail on its own, then is stopped: it would otherwise wait out its timeouts.
   */
  private static int[] waitForBoth(Process pa, Process pb, PrintStream log)
      throws InterruptedException {
    try {
      CompletableFuture.anyOf(pa.onExit(), pb.onExit()).join();
      Process failed = !pa.isAlive() && pa.exitValue() != 0 ? pa
          : !pb.isAlive() && pb.exitValue() != 0 ? pb : null;
      Process other = failed == pa ? pb : pa;
      if (failed != null && !other.waitFor(SURVIVOR_GRACE.toSeconds(), TimeUnit.SECONDS)) {
        log.println("psi local: party " + (other == pa ? "A" : "B") + " still runs "
            + SURVIVOR_GRACE.toSeconds() + " s after its peer failed; stopping it");
        other.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      return new int[] {pa.waitFor(), pb.waitFor()};
    } catch (InterruptedException e) {
      pa.destroyForcibly();
      pb.destroyForcibly();
      throw e;
    }
  }

  static Map<String, String> parse(String[] args) {
    Args p = new Args(args, USAGE, Set.of("--json", io.psiflink.jobs.PartyConfig.INSECURE_FLAG));
    Map<String, String> values = p.values(FLAGS);
    p.finish();
    return values;
  }
}
