package io.psiflink.tools.local;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import io.psiflink.api.CommandLineSyntax;
import io.psiflink.api.HostPort;
import io.psiflink.api.OptionValues;
import io.psiflink.api.PartyConfiguration;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import io.psiflink.api.TypedOption;
import io.psiflink.api.UsageException;
import io.psiflink.bridge.BridgeRelay;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.RelayConfig;
import io.psiflink.bridge.ThrowawayPki;
import io.psiflink.connectors.CsvOptions;
import io.psiflink.connectors.SchemaDiscovery;
import io.psiflink.connectors.TableException;
import io.psiflink.query.MultiJoinQuery;
import io.psiflink.query.QueryException;
import io.psiflink.tools.bench.Json;
import io.psiflink.tools.local.LocalJoin.InvalidJoinException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./psi local --table a=PATH --table b=PATH --table c=PATH ...}: an n-party join (issue 15)
 * on this machine. Every party runs its own Flink job in its own JVM, the outsourcing provider runs
 * in another; all talk through one bridge relay over mutually authenticated TLS on loopback, with
 * certificates from a throwaway CA made for the run. The party of the query's first table writes
 * the joined table.
 */
public final class LocalGroupJoin {
  private static final Duration SURVIVOR_GRACE = Duration.ofSeconds(15);

  /** The provider's party name (its certificate's CN) in a local run. */
  static final String PROVIDER = "provider";

  static final TypedOption<String> TABLE =
      TypedOption.text(
          "table",
          "NAME=PATH",
          "a table of an n-party join, once per table (3 or more): its name in the query's FROM,"
              + " and a local or hdfs:// .csv/.avro/.parquet file or directory of part files",
          null);

  static final TypedOption<String> SQL =
      PartyOptions.SQL.describedAs(
          "the join: SELECT ... FROM a JOIN b ON ... JOIN c ON ... [WHERE ...]");
  static final TypedOption<String> OUT =
      LocalJoin.OUT.describedAs("where P1 (the query's first table) writes the joined table");
  static final TypedOption<String> QUARANTINE =
      LocalJoin.QUARANTINE.describedAs(
          "where the parties' quarantined rows go, DIR/<table> (default: <out>.quarantine)");

  /** The command line of the n-party form of {@code ./psi local}. */
  static final CommandLineSyntax SYNTAX =
      new CommandLineSyntax(
          "./psi local --table NAME=PATH --table NAME=PATH --table NAME=PATH ...",
          "Runs an n-party join on this machine: every party runs its own Flink job in its own JVM,"
              + " the outsourcing provider in another, all through a bridge relay over TLS on"
              + " loopback; the party of the query's first table writes the joined table.",
          List.of(
              TABLE,
              SQL,
              OUT,
              PartyOptions.FORMAT,
              PartyOptions.MAX_BAD_ROWS,
              QUARANTINE,
              PartyOptions.BINS,
              PartyOptions.SIGMA,
              PartyOptions.PROTOCOL_PARAMS,
              PartyOptions.PARALLELISM,
              PartyOptions.ATTEMPTS,
              PartyOptions.PAIR_TIMEOUT,
              PartyOptions.IDLE_TIMEOUT,
              PartyOptions.PUBLIC_SIZE,
              LocalJoin.WORK,
              LocalJoin.PARTY_HEAP,
              LocalJoin.JSON,
              PartyOptions.INSECURE_TEST_ONLY));

  /** One table of the join: its name in the query and its path. */
  public record Table(String name, String path) {}

  /** The outcome: each party's summary JSON in party order, and the run's wall time. */
  public record Result(List<String> summaries, double seconds) {
    public String toJson() {
      ObjectNode n = Json.object();
      n.put("total_seconds", Json.three(seconds));
      ArrayNode parties = n.putArray("parties");
      for (String s : summaries) {
        parties.addRawValue(new RawValue(s));
      }
      return Json.write(n);
    }
  }

  private LocalGroupJoin() {}

  /** Whether a {@code ./psi local} command line is the n-party form. */
  static boolean isGroupJoin(String[] args) {
    for (String a : args) {
      if (a.equals("--table") || a.startsWith("--table=")) {
        return true;
      }
    }
    return false;
  }

  /** As {@link LocalJoin#execute}, for the n-party form. */
  static int execute(String[] args, PrintStream out, PrintStream err) {
    if (CommandLineSyntax.wantsHelp(args)) {
      out.print(SYNTAX.usage());
      return 0;
    }
    List<Table> tables = new ArrayList<>();
    OptionValues o;
    Path work;
    try {
      o = SYNTAX.parse(withoutTables(args, tables).toArray(String[]::new));
      work =
          o.has(LocalJoin.WORK)
              ? Path.of(o.get(LocalJoin.WORK))
              : Files.createTempDirectory("psi-local-");
      Files.createDirectories(work);
      o = o.with(LocalJoin.WORK, work.toString());
    } catch (UsageException e) {
      err.println("psi local: " + e.getMessage() + " (--help lists the options)");
      return 2;
    } catch (IOException e) {
      err.println("psi local: cannot create the work directory: " + e.getMessage());
      return 1;
    }
    Path logFile = work.resolve(LocalJoin.LOG_FILE);
    try {
      Result r = run(tables, o, err, LocalJoin.Hooks.NONE);
      if (o.get(LocalJoin.JSON)) {
        out.println(r.toJson());
      } else {
        out.printf(
            Locale.ROOT,
            "joined table of %d parties written to %s in %.1f s%n",
            tables.size(),
            o.get(LocalJoin.OUT),
            r.seconds());
      }
      return 0;
    } catch (Exception e) {
      boolean logged = LocalJoin.logTrace(logFile, e);
      err.println(
          "psi local: "
              + LocalJoin.firstLine(e.getMessage())
              + (logged ? " (details: " + logFile + ")" : ""));
      return e instanceof InvalidJoinException || e instanceof UsageException ? 2 : 1;
    }
  }

  /** The arguments without the {@code --table} options, whose values go to {@code tables}. */
  static List<String> withoutTables(String[] args, List<Table> tables) {
    List<String> rest = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String value;
      if (args[i].equals("--table")) {
        if (i + 1 >= args.length) {
          throw new UsageException("--table needs a value NAME=PATH");
        }
        value = args[++i];
      } else if (args[i].startsWith("--table=")) {
        value = args[i].substring("--table=".length());
      } else {
        rest.add(args[i]);
        continue;
      }
      int eq = value.indexOf('=');
      if (eq <= 0 || eq == value.length() - 1) {
        throw new UsageException("--table takes NAME=PATH, not '" + value + "'");
      }
      tables.add(new Table(value.substring(0, eq), value.substring(eq + 1)));
    }
    return rest;
  }

  /** Options held in a map, as {@link LocalJoin#options}; the tables apart. */
  public static Result run(List<Table> tables, Map<String, String> opts, PrintStream log)
      throws Exception {
    return run(tables, opts, log, LocalJoin.Hooks.NONE);
  }

  /** As {@link #run(List, Map, PrintStream)}; {@code hooks} sees every JVM start. */
  public static Result run(
      List<Table> tables, Map<String, String> opts, PrintStream log, LocalJoin.Hooks hooks)
      throws Exception {
    return run(tables, LocalJoin.options(SYNTAX, opts), log, hooks);
  }

  static Result run(List<Table> given, OptionValues o, PrintStream log, LocalJoin.Hooks hooks)
      throws Exception {
    List<Table> tables = validate(given, o);
    int n = tables.size();
    Path work =
        o.has(LocalJoin.WORK)
            ? Path.of(o.get(LocalJoin.WORK))
            : Files.createTempDirectory("psi-local-");
    Files.createDirectories(work);
    List<String> names = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      names.add("party-" + i);
    }
    List<String> pkiNames = new ArrayList<>(names);
    pkiNames.add("bridge");
    pkiNames.add(PROVIDER);
    ThrowawayPki pki = ThrowawayPki.create(work.resolve("pki"), pkiNames.toArray(String[]::new));
    Set<String> allowed = new HashSet<>(names);
    allowed.add(PROVIDER);
    String session = "local-" + UUID.randomUUID();
    long start = System.nanoTime();
    List<Process> processes = new ArrayList<>();
    List<LocalJoin.FailureLine> consoles = new ArrayList<>();
    Process provider = null;
    try (BridgeRelay relay =
        BridgeRelay.start(RelayConfig.defaults(pki.credentials("bridge"), allowed))) {
      PartyCredentials pc = pki.credentials(PROVIDER);
      provider = launchProvider(o, pc, names, relay.port(), work, log);
      hooks.started(Role.PROVIDER, provider);
      LocalJoin.awaitListening(relay, provider, "provider");
      List<String> pins = new ArrayList<>();
      for (String name : names) {
        pins.add(LocalJoin.sha256(pki.credentials(name)));
      }
      for (int i = 0; i < n; i++) {
        PartyConfiguration c =
            partyConfiguration(
                o,
                tables,
                i,
                names,
                pins,
                pki.credentials(names.get(i)),
                LocalJoin.sha256(pc),
                session,
                relay.port(),
                work);
        LocalJoin.FailureLine console = new LocalJoin.FailureLine(log, c.role());
        consoles.add(console);
        processes.add(LocalJoin.launch(o.get(LocalJoin.PARTY_HEAP), null, c, List.of(), console));
        hooks.started(Role.party(i, n), processes.get(i));
      }
      int[] exits = waitForAll(processes, log);
      double seconds = (System.nanoTime() - start) / 1e9;
      List<String> failed = new ArrayList<>();
      StringBuilder causes = new StringBuilder();
      for (int i = 0; i < n; i++) {
        if (exits[i] != 0) {
          failed.add("P" + (i + 1) + " exit " + exits[i]);
          consoles.get(i).awaitEnd(LocalJoin.CONSOLE_END); // its failure line read
          String cause = consoles.get(i).cause();
          if (cause != null) {
            causes.append("; ").append(cause);
          }
        }
      }
      if (!failed.isEmpty()) {
        throw new IOException(
            "the join failed ("
                + String.join(", ", failed)
                + ")"
                + causes
                + "; see the party logs above");
      }
      List<String> summaries = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        summaries.add(Files.readString(work.resolve("summary-P" + (i + 1) + ".json")));
      }
      return new Result(summaries, seconds);
    } finally {
      for (Process p : processes) {
        if (p.isAlive()) {
          p.destroyForcibly();
        }
      }
      if (provider != null) {
        LocalJoin.stop(provider);
      }
    }
  }

  /**
   * Checks, before anything starts, the tables against the query: each table the query names is
   * given once, readable, with a schema, and the query resolves against all of them; and the output
   * is new or empty.
   *
   * @return the tables in the query's order (party order)
   */
  static List<Table> validate(List<Table> given, OptionValues o) throws InvalidJoinException {
    if (given.size() < 3) {
      throw new InvalidJoinException(
          "an n-party join takes 3 or more --table NAME=PATH (two tables: --a and --b)", null);
    }
    Map<String, Table> byName = new LinkedHashMap<>();
    for (Table t : given) {
      if (byName.put(t.name(), t) != null) {
        throw new InvalidJoinException("--table " + t.name() + " is given twice", null);
      }
      if (!t.path().contains("://")) {
        Path p = Path.of(t.path());
        if (!Files.isReadable(p)) {
          throw new InvalidJoinException(
              "table "
                  + t.name()
                  + " ("
                  + t.path()
                  + "): no such file or directory, or not readable",
              null);
        }
      }
    }
    LocalJoin.outputFree(o.get(LocalJoin.OUT));
    MultiJoinQuery query;
    try {
      query = MultiJoinQuery.parse(o.get(PartyOptions.SQL));
    } catch (QueryException e) {
      throw new InvalidJoinException("invalid query: " + e.getMessage(), e);
    }
    if (!new HashSet<>(query.tables()).equals(byName.keySet())) {
      throw new InvalidJoinException(
          "the query joins tables "
              + query.tables()
              + ", --table gives "
              + List.copyOf(byName.keySet()),
          null);
    }
    List<Table> ordered = new ArrayList<>();
    List<TableSchema> schemas = new ArrayList<>();
    for (String name : query.tables()) {
      Table t = byName.get(name);
      ordered.add(t);
      try {
        schemas.add(
            SchemaDiscovery.discover(
                t.path(),
                CsvOptions.of(
                    PartyOptions.CSV_DELIMITER.defaultValue(),
                    PartyOptions.CSV_QUOTE.defaultValue())));
      } catch (TableException | RuntimeException e) {
        throw new InvalidJoinException(
            "table " + name + " (" + t.path() + "): " + LocalJoin.firstLine(e.getMessage()), e);
      }
    }
    try {
      query.resolve(schemas);
    } catch (QueryException e) {
      throw new InvalidJoinException(
          "invalid query for tables " + query.tables() + ": " + e.getMessage(), e);
    }
    return ordered;
  }

  /** Party i's job options in this run. */
  static PartyConfiguration partyConfiguration(
      OptionValues o,
      List<Table> tables,
      int i,
      List<String> names,
      List<String> pins,
      PartyCredentials creds,
      String providerSha256,
      String session,
      int port,
      Path work) {
    int n = tables.size();
    Role role = Role.party(i, n);
    List<String> pinList = new ArrayList<>(pins);
    pinList.set(i, "-");
    PartyConfiguration c =
        PartyConfiguration.empty()
            .with(PartyOptions.PARTY, role)
            .with(PartyOptions.TABLE, tables.get(i).path())
            .with(PartyOptions.SQL, o.get(PartyOptions.SQL))
            .with(PartyOptions.OUT, i == 0 ? o.get(LocalJoin.OUT) : null)
            .with(
                PartyOptions.FORMAT,
                i == 0 && o.has(PartyOptions.FORMAT) ? o.get(PartyOptions.FORMAT) : null)
            .with(PartyOptions.QUARANTINE, LocalJoin.quarantineDir(o) + "/" + tables.get(i).name())
            .with(PartyOptions.SESSION, session)
            .with(PartyOptions.BRIDGE, new HostPort("127.0.0.1", port))
            .with(PartyOptions.CERT, creds.certChainPem())
            .with(PartyOptions.KEY, creds.privateKeyPem())
            .with(PartyOptions.CA, creds.trustedCaPem())
            .with(PartyOptions.PARTIES, names)
            .with(PartyOptions.PARTY_CERT_SHA256S, pinList)
            .with(PartyOptions.PROVIDER, PROVIDER)
            .with(PartyOptions.PROVIDER_CERT_SHA256, providerSha256)
            .with(PartyOptions.INSECURE_TEST_ONLY, o.get(PartyOptions.INSECURE_TEST_ONLY))
            .with(PartyOptions.WORK, work.resolve("party-" + role.label()).toString())
            .with(PartyOptions.SUMMARY, work.resolve("summary-" + role.label() + ".json"));
    for (TypedOption<?> shared :
        List.of(
            PartyOptions.MAX_BAD_ROWS,
            PartyOptions.BINS,
            PartyOptions.SIGMA,
            PartyOptions.PROTOCOL_PARAMS,
            PartyOptions.PUBLIC_SIZE,
            PartyOptions.PARALLELISM,
            PartyOptions.ATTEMPTS,
            PartyOptions.IDLE_TIMEOUT,
            PartyOptions.PAIR_TIMEOUT)) {
      c = LocalJoin.copy(o, c, shared);
    }
    return c;
  }

  /** Starts the provider service in its own JVM with a config written for this run. */
  private static Process launchProvider(
      OptionValues o,
      PartyCredentials creds,
      List<String> parties,
      int relayPort,
      Path work,
      PrintStream log)
      throws IOException {
    Path config = work.resolve("provider.yaml");
    Files.writeString(
        config, providerConfig(relayPort, creds, parties, o.get(PartyOptions.IDLE_TIMEOUT)));
    // its native sessions' memory is off-heap
    return LocalJoin.launchService(
        "io.psiflink.provider.ProviderMain", config, "512m", List.of(), PROVIDER, log);
  }

  /**
   * The local provider's YAML config (io.psiflink.provider.ProviderConfig): the parties of this run
   * only. Its session timeout stays the default (10 min): a party with a larger table reaches its
   * first bin later than the others, and a party that vanished fails the others by their own idle
   * timeout anyway.
   */
  static String providerConfig(
      int relayPort, PartyCredentials creds, List<String> parties, Duration idleTimeout) {
    return "relay: 127.0.0.1:"
        + relayPort
        + "\n"
        + "tls:\n"
        + "  certificate: "
        + LocalJoin.quotedYaml(creds.certChainPem().toString())
        + "\n"
        + "  privateKey: "
        + LocalJoin.quotedYaml(creds.privateKeyPem().toString())
        + "\n"
        + "  trustedCa: "
        + LocalJoin.quotedYaml(creds.trustedCaPem().toString())
        + "\n"
        + "allowedParties: ["
        + String.join(", ", parties)
        + "]\n"
        + "idleTimeout: "
        + idleTimeout.toMillis()
        + "ms\n";
  }

  /**
   * Waits for every party. When one fails, the others get {@link #SURVIVOR_GRACE} to notice and
   * fail on their own, then are stopped.
   */
  private static int[] waitForAll(List<Process> ps, PrintStream log) throws InterruptedException {
    try {
      while (ps.stream().anyMatch(Process::isAlive)) {
        CompletableFuture.anyOf(
                ps.stream()
                    .filter(Process::isAlive)
                    .map(Process::onExit)
                    .toArray(CompletableFuture[]::new))
            .join();
        if (ps.stream().anyMatch(p -> !p.isAlive() && p.exitValue() != 0)) {
          long deadline = System.nanoTime() + SURVIVOR_GRACE.toNanos();
          for (int i = 0; i < ps.size(); i++) {
            Process p = ps.get(i);
            long left = deadline - System.nanoTime();
            if (!p.waitFor(Math.max(0, left), TimeUnit.NANOSECONDS)) {
              log.println(
                  "psi local: party P"
                      + (i + 1)
                      + " still runs "
                      + SURVIVOR_GRACE.toSeconds()
                      + " s after another failed; stopping it");
              p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
          }
          break;
        }
      }
      int[] exits = new int[ps.size()];
      for (int i = 0; i < exits.length; i++) {
        exits[i] = ps.get(i).waitFor();
      }
      return exits;
    } catch (InterruptedException e) {
      ps.forEach(Process::destroyForcibly);
      throw e;
    }
  }
}
