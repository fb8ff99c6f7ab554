package io.psiflink.tools.local;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import io.psiflink.api.CommandLineSyntax;
import io.psiflink.api.HostPort;
import io.psiflink.api.OptionValues;
import io.psiflink.api.PartyConfiguration;
import io.psiflink.api.PartyFailure;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.PublicSize;
import io.psiflink.api.Role;
import io.psiflink.api.TableSchema;
import io.psiflink.api.TypedOption;
import io.psiflink.api.UsageException;
import io.psiflink.bridge.BridgeRelay;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.PartyTrust;
import io.psiflink.bridge.RelayConfig;
import io.psiflink.bridge.ThrowawayPki;
import io.psiflink.connectors.BadRowGate;
import io.psiflink.connectors.CsvOptions;
import io.psiflink.connectors.JdbcTable;
import io.psiflink.connectors.SchemaDiscovery;
import io.psiflink.connectors.StagedOutput;
import io.psiflink.connectors.TableException;
import io.psiflink.coordinator.ClassDataSharing;
import io.psiflink.coordinator.JvmOptions;
import io.psiflink.jobs.JobSummary;
import io.psiflink.jobs.PartyMain;
import io.psiflink.jobs.SharedMiniCluster;
import io.psiflink.query.JoinQuery;
import io.psiflink.query.QueryException;
import io.psiflink.tools.bench.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./psi local}: runs both parties of a private join on this machine. Each party runs its own
 * Flink job on an embedded MiniCluster, in a JVM of its own, or for small tables on a thread of
 * this JVM ({@link #partiesOnThreads}); they talk through a real bridge relay over mutually
 * authenticated TLS on loopback, with certificates from a throwaway CA made for the run. Party A
 * (table {@code a}) writes the joined table.
 */
public final class LocalJoin {
  /** How long an exited party's console may take to be read to its end. */
  static final Duration CONSOLE_END = Duration.ofSeconds(2);

  /** How long a party may run on after its peer failed (see {@link #waitForBoth}). */
  private static final Duration SURVIVOR_GRACE = Duration.ofSeconds(15);

  // ./psi local's own options; the ones it hands to both parties are the job's (PartyOptions)
  static final TypedOption<String> A =
      TypedOption.text(
              "a",
              "A_TABLE",
              "party A's table: local or hdfs:// .csv/.avro/.parquet files or directories of part files, "
                  + "or a jdbc:postgresql://host:port/db?table=T URL",
              null)
          .asRequired();
  static final TypedOption<String> B =
      TypedOption.text("b", "B_TABLE", "party B's table (as --a)", null).asRequired();
  static final TypedOption<String> A_TABLE =
      PartyOptions.TABLE_NAME.named(
          "a-table", "the table of --a when it is a JDBC URL without ?table=");
  static final TypedOption<String> B_TABLE =
      PartyOptions.TABLE_NAME.named(
          "b-table", "the table of --b when it is a JDBC URL without ?table=");
  static final TypedOption<Character> A_DELIMITER =
      PartyOptions.CSV_DELIMITER.named(
          "a-delimiter", "the field delimiter of a CSV --a (or 'tab')");
  static final TypedOption<Character> B_DELIMITER =
      PartyOptions.CSV_DELIMITER.named(
          "b-delimiter", "the field delimiter of a CSV --b (or 'tab')");
  static final TypedOption<String> OUT =
      PartyOptions.OUT.describedAs("where party A writes the joined table").asRequired();
  static final TypedOption<String> QUARANTINE =
      PartyOptions.QUARANTINE.describedAs(
          "where the parties' quarantined rows go, DIR/a and DIR/b (default: <out>.quarantine)");
  static final TypedOption<PublicSize> A_PUBLIC_SIZE =
      PartyOptions.PUBLIC_SIZE.named(
          "a-public-size", "what B learns of A's size (default: --public-size)");
  static final TypedOption<PublicSize> B_PUBLIC_SIZE =
      PartyOptions.PUBLIC_SIZE.named(
          "b-public-size", "what A learns of B's size (default: --public-size)");
  static final TypedOption<String> WORK =
      TypedOption.text(
          "work",
          "DIR",
          "where the run's certificates, party work directories, summaries and its log go "
              + "(default: a new temporary directory)",
          null);
  static final TypedOption<String> PARTY_HEAP =
      TypedOption.text(
          "party-heap", "SIZE", "the heap of each party's JVM (-Xmx), with --party-jvms", "6g");
  static final TypedOption<Boolean> PARTY_JVMS =
      TypedOption.flag(
          "party-jvms",
          "run each party in a JVM of its own, also when both tables are files of at most 256 MiB"
              + " (their parties run on threads of this JVM unless this is given)");
  static final TypedOption<Boolean> JSON =
      TypedOption.flag("json", "print both parties' summaries as JSON instead of one line");

  /** The command line of {@code ./psi local}. */
  static final CommandLineSyntax SYNTAX =
      new CommandLineSyntax(
          "./psi local",
          "Runs a private join on this machine: party A and party B each run their own Flink job, "
              + "on threads of this JVM for small tables or in JVMs of their own, and talk through a "
              + "bridge relay over TLS on loopback; A writes the joined table.",
          List.of(
              A,
              B,
              PartyOptions.SQL,
              OUT,
              PartyOptions.FORMAT,
              A_TABLE,
              B_TABLE,
              A_DELIMITER,
              B_DELIMITER,
              PartyOptions.MAX_BAD_ROWS,
              QUARANTINE,
              PartyOptions.BINS,
              PartyOptions.SIGMA,
              PartyOptions.PROTOCOL,
              PartyOptions.PROTOCOL_PARAMS,
              PartyOptions.MODE,
              PartyOptions.LABEL_BYTES,
              PartyOptions.PREFILTER,
              PartyOptions.FILTER_BITS,
              PartyOptions.FILTER_HASHES,
              PartyOptions.EXPECTED_OVERLAP,
              PartyOptions.PARALLELISM,
              PartyOptions.ATTEMPTS,
              PartyOptions.PAIR_TIMEOUT,
              PartyOptions.IDLE_TIMEOUT,
              PartyOptions.PUBLIC_SIZE,
              A_PUBLIC_SIZE,
              B_PUBLIC_SIZE,
              WORK,
              PARTY_HEAP,
              PARTY_JVMS,
              JSON,
              PartyOptions.NO_RESUME,
              PartyOptions.INSECURE_TEST_ONLY));

  /** The file, in the run's work directory, that gets the stack trace of a failed run. */
  static final String LOG_FILE = "psi-local.log";

  /**
   * A join that cannot run, found before any party starts: invalid SQL, a column the tables do not
   * have, a table that cannot be read. The message is one line that names the clause and position,
   * or the table.
   */
  public static final class InvalidJoinException extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidJoinException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The outcome: each party's summary JSON and the whole run's wall time. */
  public record Result(String summaryA, String summaryB, double seconds) {
    /**
     * With the prefilter, one line with each party's candidates (of its tokenized rows) and the
     * prefilter's seconds; else null.
     */
    public String prefilterLine() {
      try {
        // the tree first: binding a summary builds Jackson's deserializers, ~10 ms at the end of
        // every run, and most runs have no prefilter
        if (!Json.parse(summaryA).has("prefilter") || !Json.parse(summaryB).has("prefilter")) {
          return null;
        }
        JobSummary a = JobSummary.fromJson(summaryA);
        JobSummary b = JobSummary.fromJson(summaryB);
        if (a.prefilter() == null || b.prefilter() == null) {
          return null;
        }
        return String.format(
            Locale.ROOT,
            "prefilter (2^%d bits, k = %d): party A %,d candidates of %,d rows, party B %,d of "
                + "%,d; %.1f s at A, %.1f s at B",
            a.prefilter().filterBits(),
            a.prefilter().filterHashes(),
            a.prefilter().candidates(),
            a.rowsTokenized(),
            b.prefilter().candidates(),
            b.rowsTokenized(),
            a.prefilter().seconds(),
            b.prefilter().seconds());
      } catch (java.io.IOException e) {
        return "prefilter: the parties' summaries cannot be read (" + e.getMessage() + ")";
      }
    }

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
    System.exit(execute(args, System.out, System.err, Hooks.EXIT));
  }

  /** {@code ./psi local --resume work}, its output and the parties' logs on {@code log}. */
  public static int resumeMain(Path work, PrintStream log) {
    return execute(new String[] {"--resume", work.toString()}, log, log, Hooks.NONE);
  }

  /**
   * {@code ./psi local}: parses, validates the join up front, runs both parties. A problem is one
   * line on {@code err}, naming the log file that has its stack trace.
   *
   * @return the exit code: 0 done, 2 a wrong command line or an invalid join (no party started), 1
   *     a failed join
   */
  static int execute(String[] args, PrintStream out, PrintStream err, Hooks hooks) {
    if (args.length > 0 && args[0].equals("--resume")) {
      if (args.length != 2) {
        err.println(
            "psi local: --resume WORKDIR takes the work directory of the run and nothing else");
        return 2;
      }
      try {
        Path resumed = Path.of(args[1]);
        args = LocalRunFile.read(resumed).args().toArray(String[]::new);
        LocalRunFile.checkResumable(resumed);
      } catch (IOException e) {
        err.println("psi local: " + e.getMessage());
        return 2;
      }
      hooks = LocalRunFile.resuming(hooks);
    }
    if (LocalGroupJoin.isGroupJoin(args)) {
      return LocalGroupJoin.execute(args, out, err);
    }
    if (CommandLineSyntax.wantsHelp(args)) {
      out.print(SYNTAX.usage());
      return 0;
    }
    OptionValues o;
    Path work;
    try {
      o = SYNTAX.parse(args);
      work = o.has(WORK) ? Path.of(o.get(WORK)) : Files.createTempDirectory("psi-local-");
      Files.createDirectories(work);
      o = o.with(WORK, work.toString());
    } catch (UsageException e) {
      err.println("psi local: " + e.getMessage() + " (--help lists the options)");
      return 2;
    } catch (IOException e) {
      err.println("psi local: cannot create the work directory: " + e.getMessage());
      return 1;
    }
    Path logFile = work.resolve(LOG_FILE);
    try {
      Result r = run(o, err, hooks);
      if (o.get(JSON)) {
        out.println(r.toJson());
      } else {
        out.printf(Locale.ROOT, "joined table written to %s in %.1f s%n", o.get(OUT), r.seconds());
        String prefilter = r.prefilterLine();
        if (prefilter != null) {
          out.println(prefilter);
        }
      }
      return 0;
    } catch (Exception e) {
      boolean logged = logTrace(logFile, e);
      err.println(
          "psi local: "
              + firstLine(e.getMessage())
              + (logged ? " (details: " + logFile + ")" : ""));
      return e instanceof InvalidJoinException || e instanceof UsageException ? 2 : 1;
    }
  }

  static String firstLine(String message) {
    if (message == null) {
      return "failed";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }

  /** Appends the stack trace to the run's log file; false when it cannot be written. */
  static boolean logTrace(Path logFile, Throwable t) {
    try (PrintWriter w =
        new PrintWriter(
            Files.newBufferedWriter(
                logFile,
                StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND))) {
      w.println(java.time.Instant.now() + " psi local failed:");
      t.printStackTrace(w);
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * Runs both parties; options as on the command line (without dashes, {@code "true"} for a flag).
   * Party logs go to {@code log}, prefixed with the party.
   *
   * @throws UsageException naming an unknown or malformed option
   * @throws InvalidJoinException when the join cannot run; no party has started then
   */
  public static Result run(Map<String, String> opts, PrintStream log) throws Exception {
    return run(opts, log, Hooks.NONE);
  }

  /** Lets tests put a network fault between a party and the bridge, or stop a party. */
  public interface Hooks {
    Hooks NONE = new Hooks() {};

    /** {@link #main}'s: the JVM exits once the run returned. */
    Hooks EXIT =
        new Hooks() {
          @Override
          public boolean exitsAfterRun() {
            return true;
          }
        };

    /**
     * Whether the JVM exits once the run returned: then a run that succeeded does not wait for the
     * shutdown of its parties' shared cluster ({@link SharedMiniCluster#shutDownForExit}).
     */
    default boolean exitsAfterRun() {
      return false;
    }

    /** The port {@code party} should dial to reach the relay listening on {@code relayPort}. */
    default int bridgePort(Role party, int relayPort) throws IOException {
      return relayPort;
    }

    /**
     * Called once the party's JVM runs: only where each party has one (a test that stops a party's
     * JVM passes --party-jvms).
     */
    default void started(Role party, Process process) {}

    /**
     * What the party's JVM command line starts with, e.g. {@code ip netns exec NS} to run it in a
     * network namespace ({@code ./psi bench join --net}); a prefix gives each party a JVM.
     */
    default List<String> launchPrefix(Role party) {
      return List.of();
    }

    /** Whether the run resumes the failed run of its work directory ({@code --resume}). */
    default boolean resuming() {
      return false;
    }

    /**
     * How long a party may run on after its peer failed before it is stopped: long enough to notice
     * through the bridge (fault drills lengthen it to see the party fail on its own).
     */
    default Duration survivorGrace() {
      return SURVIVOR_GRACE;
    }
  }

  public static Result run(Map<String, String> opts, PrintStream log, Hooks hooks)
      throws Exception {
    return run(options(opts), log, hooks);
  }

  /** Options held in a map (name without dashes to text), read as their command line would be. */
  static OptionValues options(Map<String, String> opts) {
    return options(SYNTAX, opts);
  }

  /** {@link #options(Map)} for the command line {@code syntax}. */
  static OptionValues options(CommandLineSyntax syntax, Map<String, String> opts) {
    List<String> args = new ArrayList<>();
    new java.util.TreeMap<>(opts)
        .forEach(
            (k, v) -> {
              args.add("--" + k);
              boolean flag =
                  syntax.options().stream().anyMatch(o -> o.name().equals(k) && o.isFlag());
              if (flag && !v.equals("true")) {
                throw new UsageException("--" + k + " takes no value");
              }
              if (!flag) {
                args.add(v);
              }
            });
    return syntax.parse(args.toArray(String[]::new));
  }

  static Result run(OptionValues o, PrintStream log, Hooks hooks) throws Exception {
    validate(o);
    Path work = o.has(WORK) ? Path.of(o.get(WORK)) : Files.createTempDirectory("psi-local-");
    Files.createDirectories(work);
    if (!partiesOnThreads(o, hooks)) {
      return run(o, work, null, log, hooks);
    }
    // both parties' jobs run on one cluster, which starts while the certificates are made, the
    // relay starts and the parties plan and shake hands
    try (SharedMiniCluster cluster =
        SharedMiniCluster.start(2 * o.get(PartyOptions.PARALLELISM), work)) {
      Result r = run(o, work, cluster, log, hooks);
      markClassDataSharing();
      if (hooks.exitsAfterRun()) {
        cluster.shutDownForExit();
      }
      return r;
    }
  }

  /**
   * Where ./psi, when this JVM writes its class-data sharing archive at its exit, wants a file
   * created if the archive will hold what a join of parties on this JVM's threads loads: it keeps
   * the archive only then, not one of a --help or a run with a JVM per party (cds_promote).
   */
  static final String CDS_MARK_PROPERTY = "psi.cds.mark";

  private static void markClassDataSharing() {
    String mark = System.getProperty(CDS_MARK_PROPERTY);
    if (mark != null) {
      try {
        Files.writeString(Path.of(mark), "");
      } catch (IOException | RuntimeException e) {
        // then the archive is not kept, and a later run writes one: slower, not wrong
      }
    }
  }

  /** A party's work directory ({@code --work} of its job) in the run's. */
  static Path partyWork(Path work, Role party) {
    return work.resolve("party-" + party.label());
  }

  /**
   * The directory whose {@code tmp} holds a party's spill: its work directory, or the run's where
   * both parties' jobs run on {@code cluster}.
   */
  static Path spillHome(Path work, SharedMiniCluster cluster, Role party) {
    return cluster != null ? cluster.workDir() : partyWork(work, party);
  }

  /** Runs both parties: on threads of this JVM with their jobs on {@code cluster}, else in JVMs. */
  private static Result run(
      OptionValues o, Path work, SharedMiniCluster cluster, PrintStream log, Hooks hooks)
      throws Exception {
    // with auto the helper is there for the jobs to use, if their handshake decides to
    boolean prefilter = o.get(PartyOptions.PREFILTER).namesHelper();
    ThrowawayPki pki =
        prefilter
            ? ThrowawayPki.create(work.resolve("pki"), "party-a", "party-b", "bridge", HELPER)
            : ThrowawayPki.create(work.resolve("pki"), "party-a", "party-b", "bridge");
    // a run over files keeps its command line and session in the work directory: --resume
    // restarts it there; one over a JDBC table cannot be resumed (and its URL is not kept)
    boolean resume = hooks.resuming();
    String session;
    if (resume) {
      session = LocalRunFile.read(work).session();
      LocalRunFile.checkResumable(work);
    } else {
      session = "local-" + UUID.randomUUID();
      if (!JdbcTable.isJdbc(o.get(A))
          && !JdbcTable.isJdbc(o.get(B))
          && !o.get(PartyOptions.NO_RESUME)) {
        new LocalRunFile(o.toArgs(), session).write(work);
      }
    }
    long start = System.nanoTime();
    Process helper = null;
    try (BridgeRelay relay =
        BridgeRelay.start(
            RelayConfig.defaults(
                pki.credentials("bridge"),
                prefilter ? Set.of("party-a", "party-b", HELPER) : Set.of("party-a", "party-b")))) {
      // This tool made both certificates, so each party gets the other's pinned, as the
      // coordinators' session records do for a real join.
      PartyCredentials ca = pki.credentials("party-a");
      PartyCredentials cb = pki.credentials("party-b");
      String helperSha256 = null;
      if (prefilter) {
        // the helper is a third organisation: its own JVM, its own certificate, next to the relay
        PartyCredentials ch = pki.credentials(HELPER);
        helperSha256 = sha256(ch);
        helper =
            launchHelper(
                o,
                ch,
                hooks.bridgePort(Role.HELPER, relay.port()),
                hooks.launchPrefix(Role.HELPER),
                work,
                log);
        hooks.started(Role.HELPER, helper);
        awaitListening(relay, helper, "helper");
      }
      FailureLine failA = new FailureLine(log, Role.A);
      FailureLine failB = new FailureLine(log, Role.B);
      PartyConfiguration confA =
          partyConfiguration(
              o,
              Role.A,
              ca,
              "party-b",
              sha256(cb),
              session,
              hooks.bridgePort(Role.A, relay.port()),
              work,
              helperSha256,
              resume);
      PartyConfiguration confB =
          partyConfiguration(
              o,
              Role.B,
              cb,
              "party-a",
              sha256(ca),
              session,
              hooks.bridgePort(Role.B, relay.port()),
              work,
              helperSha256,
              resume);
      RunningParty pa;
      RunningParty pb;
      if (cluster != null) {
        log.println(
            "psi local: both parties run on threads of this JVM (tables of at most "
                + (JvmOptions.C1_ONLY_MAX_BYTES >> 20)
                + " MiB; --party-jvms gives each a JVM of its own)");
        pa = PartyThread.start(confA, cluster, failA);
        pb = PartyThread.start(confB, cluster, failB);
      } else {
        Process a = launch(o, confA, hooks.launchPrefix(Role.A), failA);
        hooks.started(Role.A, a);
        pa = new PartyProcess(a);
        Process b = launch(o, confB, hooks.launchPrefix(Role.B), failB);
        hooks.started(Role.B, b);
        pb = new PartyProcess(b);
      }
      int[] exits = waitForBoth(pa, pb, log, hooks.survivorGrace());
      int ea = exits[0];
      int eb = exits[1];
      double seconds = (System.nanoTime() - start) / 1e9;
      if (ea != 0 || eb != 0) {
        failA.awaitEnd(CONSOLE_END);
        failB.awaitEnd(CONSOLE_END);
        throw new IOException(
            "the join failed (party A exit "
                + ea
                + ", party B exit "
                + eb
                + ")"
                + failA.diagnosis(spillHome(work, cluster, Role.A))
                + failB.diagnosis(spillHome(work, cluster, Role.B))
                + "; see the party logs above"
                // a refused input fails again the same way: no resume to offer
                + (LocalRunFile.resumable(work) && !failA.refusedInput() && !failB.refusedInput()
                    ? "; resume it with ./psi local --resume " + work
                    : ""));
      }
      // A committed the output: B's state (kept in case A died before that) goes too
      LocalRunFile.finished(work);
      return new Result(
          Files.readString(work.resolve("summary-A.json")),
          Files.readString(work.resolve("summary-B.json")),
          seconds);
    } finally {
      if (helper != null) {
        stop(helper);
      }
    }
  }

  /**
   * One party's console (its lines prefixed "[LABEL] "), passed on to the run's log, keeping the
   * reason of the party's failure line ({@link PartyFailure}) for the run's error, whose last line
   * should name the cause: what the party said, or for a full disk its directory, which is known
   * here.
   */
  static final class FailureLine extends PrintStream {
    private final Role party;
    private final String prefix;
    private volatile String reason;
    private final CountDownLatch end = new CountDownLatch(1);

    FailureLine(PrintStream log, Role party) {
      super(log, true, StandardCharsets.UTF_8);
      this.party = party;
      this.prefix = "[" + party.label() + "] ";
    }

    @Override
    public void println(String line) {
      if (reason == null && line.startsWith(prefix)) {
        reason = PartyFailure.reason(line.substring(prefix.length()));
      }
      super.println(line);
    }

    /**
     * A console for a party that runs on a thread of this JVM: its lines reach this stream
     * prefixed, as a party JVM's lines do through {@link #pump}.
     */
    PrintStream lines() {
      return new PrintStream(
          new java.io.OutputStream() {
            private final java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();

            @Override
            public synchronized void write(int b) {
              if (b == '\n') {
                flushLine();
              } else {
                line.write(b);
              }
            }

            // not flush(): PrintStream flushes after every write, mid-line too
            @Override
            public synchronized void close() {
              if (line.size() > 0) {
                flushLine();
              }
            }

            private void flushLine() {
              FailureLine.this.println(prefix + line.toString(StandardCharsets.UTF_8));
              line.reset();
            }
          },
          true,
          StandardCharsets.UTF_8);
    }

    /** The party's console ended (its JVM exited): every line it wrote has been read. */
    void ended() {
      end.countDown();
    }

    /**
     * Waits at most {@code max} for the console's end, so that the failure line of a party that has
     * exited is read (the console is read on a thread of its own).
     */
    void awaitEnd(Duration max) throws InterruptedException {
      end.await(max.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The party's own account of its failure ("party X failed: ...", redacted), or null. */
    String cause() {
      String r = reason;
      return r == null ? null : "party " + party.label() + " failed: " + JdbcTable.redact(r);
    }

    /** Whether the party refused its input (more bad rows than allowed). */
    boolean refusedInput() {
      String r = reason;
      return r != null && r.contains(BadRowGate.MARKER);
    }

    /**
     * What the run's error adds about this party's failure: "" or "; party X ...". {@code
     * spillHome}: where its spill is, under tmp ({@link #spillHome}).
     */
    String diagnosis(Path spillHome) {
      String r = reason;
      if (r == null) {
        return "";
      }
      if (!r.contains("No space left on device")) {
        return "; " + cause();
      }
      return "; party "
          + party.label()
          + " found a disk full (No space left on device): its spill (the bins' and Flink's, in"
          + " io.tmp.dirs) is in "
          + spillHome
          + ", and it also writes its quarantine"
          + (party.equals(Role.A) ? " and the output" : "");
    }
  }

  /**
   * Waits until {@code service} (the helper, the provider: the relay's only listening party in a
   * local run) listens on the relay: a party calls it right after its handshake, and would find it
   * not connected, sooner than a JVM starts.
   */
  static void awaitListening(BridgeRelay relay, Process service, String name)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + SERVICE_START.toNanos();
    while (relay.listeningParties() == 0) {
      if (!service.isAlive()) {
        throw new IOException(
            "the " + name + " exited with status " + service.exitValue() + "; see its log above");
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(
            "the " + name + " does not listen on the relay " + SERVICE_START.toSeconds() + " s on");
      }
      Thread.sleep(50);
    }
  }

  private static final Duration SERVICE_START = Duration.ofSeconds(60);

  /** The helper's party name (its certificate's CN) in a local run. */
  static final String HELPER = "helper";

  /**
   * Starts the helper service ({@code io.psiflink.helper.HelperMain}) in its own JVM with a config
   * written for this run: the relay, its certificate from this run's throwaway CA, and parties a
   * and b as the only ones it serves.
   */
  private static Process launchHelper(
      OptionValues o,
      PartyCredentials creds,
      int relayPort,
      List<String> prefix,
      Path work,
      PrintStream log)
      throws IOException {
    Path config = work.resolve("helper.yaml");
    Files.writeString(
        config,
        helperConfig(
            relayPort,
            creds,
            o.get(PartyOptions.PAIR_TIMEOUT),
            o.get(PartyOptions.IDLE_TIMEOUT),
            o.has(PartyOptions.FILTER_BITS) ? o.get(PartyOptions.FILTER_BITS) : 0));
    // it never holds a filter: chunk by chunk
    return launchService("io.psiflink.helper.HelperMain", config, "512m", prefix, "helper", log);
  }

  /**
   * Starts a third organisation's service ({@code mainClass CONFIG}, the helper or the provider) in
   * its own JVM on this class path, its output in {@code log} prefixed with {@code [name]}.
   */
  static Process launchService(
      String mainClass, Path config, String heap, List<String> prefix, String name, PrintStream log)
      throws IOException {
    List<String> cmd = new ArrayList<>(prefix);
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx" + heap);
    cmd.add("-Dlog4j2.configurationFile=log4j2.properties");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(mainClass);
    cmd.add(config.toString());
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    pump(p.getInputStream(), "[" + name + "] ", log);
    return p;
  }

  /**
   * The local helper's YAML config (see io.psiflink.helper.HelperConfig). The session timeout is
   * the parties' pair timeout: a party that does not arrive within it has failed anyway. {@code
   * filterBits}: the run's --filter-bits, 0 for automatic (then the largest the options allow).
   */
  static String helperConfig(
      int relayPort,
      PartyCredentials creds,
      java.time.Duration sessionTimeout,
      java.time.Duration idleTimeout,
      int filterBits) {
    return "relay: 127.0.0.1:"
        + relayPort
        + "\n"
        + "tls:\n"
        + "  certificate: "
        + quotedYaml(creds.certChainPem().toString())
        + "\n"
        + "  privateKey: "
        + quotedYaml(creds.privateKeyPem().toString())
        + "\n"
        + "  trustedCa: "
        + quotedYaml(creds.trustedCaPem().toString())
        + "\n"
        + "allowedParties: [party-a, party-b]\n"
        + "maxFilterBits: "
        + (filterBits == 0 ? PartyOptions.FILTER_BITS_MAX : filterBits)
        + "\n"
        + "sessionTimeout: "
        + sessionTimeout.toMillis()
        + "ms\n"
        + "idleTimeout: "
        + idleTimeout.toMillis()
        + "ms\n";
  }

  /** A path as a YAML double-quoted scalar. */
  static String quotedYaml(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** Stops the helper: SIGTERM (it ends its sessions and exits), then by force. */
  static void stop(Process helper) {
    helper.destroy();
    try {
      if (!helper.waitFor(10, TimeUnit.SECONDS)) {
        helper.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      helper.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Checks, before any party starts, what would otherwise fail in both parties' JVMs: the SQL, the
   * tables (present, readable, with a schema), the query against both schemas and the output (new
   * or empty: party A would find it taken only after both JVMs started, and B wait for A in vain).
   *
   * @throws InvalidJoinException one line naming the clause and position, the table or the output
   */
  static void validate(OptionValues o) throws InvalidJoinException {
    // the cheap checks first: a missing local file needs neither the SQL parser nor a file system
    readable(o, Role.A);
    readable(o, Role.B);
    outputFree(o.get(OUT));
    JoinQuery query;
    try {
      query = JoinQuery.parse(o.get(PartyOptions.SQL));
    } catch (QueryException e) {
      throw new InvalidJoinException("invalid query: " + e.getMessage(), e);
    }
    TableSchema a = schema(o, Role.A);
    TableSchema b = schema(o, Role.B);
    try {
      query.resolve(a, b);
    } catch (QueryException e) {
      throw new InvalidJoinException("invalid query for tables a and b: " + e.getMessage(), e);
    }
  }

  /** The output is new or an empty directory, as the party that writes it requires. */
  static void outputFree(String out) throws InvalidJoinException {
    try {
      StagedOutput.prepare(out);
    } catch (TableException e) {
      throw new InvalidJoinException(e.getMessage(), e);
    }
  }

  /** A local file table exists and can be read (a URL is checked by reading its schema). */
  private static void readable(OptionValues o, Role role) throws InvalidJoinException {
    String table = table(o, role);
    if (JdbcTable.isJdbc(table) || table.contains("://")) {
      return;
    }
    Path p = Path.of(table);
    if (!Files.exists(p)) {
      throw new InvalidJoinException(shown(table, role) + ": no such file or directory", null);
    }
    if (!Files.isReadable(p)) {
      throw new InvalidJoinException(shown(table, role) + ": not readable", null);
    }
  }

  private static String shown(String table, Role role) {
    return "table " + role.table() + " (" + JdbcTable.redact(table) + ")";
  }

  private static TableSchema schema(OptionValues o, Role role) throws InvalidJoinException {
    String table = table(o, role);
    String shown = shown(table, role);
    try {
      return SchemaDiscovery.discover(
          table,
          CsvOptions.of(
              o.get(role.equals(Role.A) ? A_DELIMITER : B_DELIMITER),
              PartyOptions.CSV_QUOTE.defaultValue()));
    } catch (TableException | RuntimeException e) {
      throw new InvalidJoinException(shown + ": " + firstLine(e.getMessage()), e);
    }
  }

  /** A party's table as the job will read it: the JDBC table name joined to its URL. */
  private static String table(OptionValues o, Role role) {
    String table = o.get(role.equals(Role.A) ? A : B);
    TypedOption<String> name = role.equals(Role.A) ? A_TABLE : B_TABLE;
    return o.has(name) && JdbcTable.isJdbc(table) ? JdbcTable.withTable(table, o.get(name)) : table;
  }

  /** The SHA-256 of a party's certificate in hex, as {@code --peer-cert-sha256} takes it. */
  public static String sha256(PartyCredentials c) {
    try {
      return java.util.HexFormat.of().formatHex(PartyTrust.sha256(c.certificate()));
    } catch (io.psiflink.bridge.BridgeException e) {
      throw new IllegalStateException("cannot hash the certificate of " + c.partyName(), e);
    }
  }

  /**
   * One party's job options in this run: its table and its share of {@code ./psi local}'s options,
   * the session, the bridge and the certificates this run made.
   */
  static PartyConfiguration partyConfiguration(
      OptionValues o,
      Role party,
      PartyCredentials creds,
      String peer,
      String peerSha256,
      String session,
      int port,
      Path work,
      String helperSha256,
      boolean resume) {
    boolean a = party.equals(Role.A);
    // a JDBC password goes to the party's environment, not its command line (ps shows that)
    String table = o.get(a ? A : B);
    PartyConfiguration c =
        PartyConfiguration.empty()
            .with(PartyOptions.PARTY, party)
            .with(
                PartyOptions.TABLE,
                JdbcTable.isJdbc(table) ? JdbcTable.withoutPassword(table) : table)
            .with(
                PartyOptions.TABLE_NAME,
                o.has(a ? A_TABLE : B_TABLE) ? o.get(a ? A_TABLE : B_TABLE) : null)
            .with(
                PartyOptions.CSV_DELIMITER,
                o.has(a ? A_DELIMITER : B_DELIMITER) ? o.get(a ? A_DELIMITER : B_DELIMITER) : null)
            .with(PartyOptions.SQL, o.get(PartyOptions.SQL))
            .with(PartyOptions.OUT, a ? o.get(OUT) : null)
            .with(
                PartyOptions.FORMAT,
                a && o.has(PartyOptions.FORMAT) ? o.get(PartyOptions.FORMAT) : null)
            .with(PartyOptions.QUARANTINE, quarantineDir(o) + "/" + party.table())
            .with(PartyOptions.SESSION, session)
            .with(PartyOptions.BRIDGE, new HostPort("127.0.0.1", port))
            .with(PartyOptions.CERT, creds.certChainPem())
            .with(PartyOptions.KEY, creds.privateKeyPem())
            .with(PartyOptions.CA, creds.trustedCaPem())
            .with(PartyOptions.PEER, peer)
            .with(PartyOptions.PEER_CERT_SHA256, peerSha256)
            // what this party discloses of its size: its own option, else the common one
            .with(
                PartyOptions.PUBLIC_SIZE,
                o.has(a ? A_PUBLIC_SIZE : B_PUBLIC_SIZE)
                    ? o.get(a ? A_PUBLIC_SIZE : B_PUBLIC_SIZE)
                    : o.has(PartyOptions.PUBLIC_SIZE) ? o.get(PartyOptions.PUBLIC_SIZE) : null)
            // lets tests use σ < 40
            .with(PartyOptions.INSECURE_TEST_ONLY, o.get(PartyOptions.INSECURE_TEST_ONLY))
            .with(PartyOptions.WORK, partyWork(work, party).toString())
            .with(PartyOptions.SUMMARY, work.resolve("summary-" + party.label() + ".json"))
            .with(PartyOptions.RESUME, resume);
    if (o.get(PartyOptions.PREFILTER).namesHelper()) {
      c =
          c.with(PartyOptions.PREFILTER, o.get(PartyOptions.PREFILTER))
              .with(PartyOptions.HELPER, HELPER)
              .with(PartyOptions.HELPER_CERT_SHA256, helperSha256);
      c = copy(o, c, PartyOptions.FILTER_BITS);
      c = copy(o, c, PartyOptions.FILTER_HASHES);
      c = copy(o, c, PartyOptions.EXPECTED_OVERLAP);
    }
    // the options both parties share, as given
    for (TypedOption<?> shared :
        List.of(
            PartyOptions.MAX_BAD_ROWS,
            PartyOptions.BINS,
            PartyOptions.SIGMA,
            PartyOptions.PROTOCOL,
            PartyOptions.PROTOCOL_PARAMS,
            PartyOptions.MODE,
            PartyOptions.LABEL_BYTES,
            PartyOptions.PARALLELISM,
            PartyOptions.ATTEMPTS,
            PartyOptions.IDLE_TIMEOUT,
            PartyOptions.PAIR_TIMEOUT,
            PartyOptions.NO_RESUME)) {
      c = copy(o, c, shared);
    }
    return c;
  }

  static <T> PartyConfiguration copy(
      OptionValues from, PartyConfiguration to, TypedOption<T> option) {
    return from.has(option) ? to.with(option, from.get(option)) : to;
  }

  private static Process launch(
      OptionValues o, PartyConfiguration party, List<String> prefix, PrintStream log)
      throws IOException {
    return launch(
        o.get(PARTY_HEAP),
        JdbcTable.password(o.get(party.role().equals(Role.A) ? A : B)),
        party,
        prefix,
        log);
  }

  /**
   * Starts one party's JVM ({@code PartyMain}) with the given heap; a JDBC password goes to its
   * environment.
   */
  static Process launch(
      String heap, String password, PartyConfiguration party, List<String> prefix, PrintStream log)
      throws IOException {
    List<String> cmd = new ArrayList<>(prefix);
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(JvmOptions.heap(heap));
    cmd.addAll(JvmOptions.forTables(List.of(party.get(PartyOptions.TABLE))));
    ClassDataSharing cds =
        ClassDataSharing.of(System.getProperty("java.class.path"), "party-" + party.role().label());
    cmd.addAll(cds.jvmOptions());
    // Our console logging, even where Flink's test jars put a silencing log4j2-test.properties
    // first.
    cmd.add("-Dlog4j2.configurationFile=log4j2.properties");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("io.psiflink.jobs.PartyMain");
    cmd.addAll(party.toArgs());
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    if (password != null) {
      pb.environment().put(JdbcTable.PASSWORD_ENV, password);
    }
    Process p = pb.start();
    cds.promoteOnExit(p);
    pump(p.getInputStream(), "[" + party.role().label() + "] ", log);
    return p;
  }

  /**
   * Where the parties' quarantines go ({@code <dir>/a}, {@code <dir>/b}): {@code --quarantine}, or
   * next to the output, {@code <out>.quarantine}, since the output directory itself appears only
   * when the join succeeded and the quarantine matters most when it did not.
   */
  static String quarantineDir(OptionValues o) {
    if (o.has(QUARANTINE)) {
      return o.get(QUARANTINE);
    }
    String out = o.get(OUT);
    return (out.endsWith("/") ? out.substring(0, out.length() - 1) : out) + ".quarantine";
  }

  static void pump(InputStream in, String prefix, PrintStream log) {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  log.println(prefix + line);
                }
              } catch (IOException e) {
                log.println(prefix + "(log lost: " + e.getMessage() + ")");
              } finally {
                if (log instanceof FailureLine console) {
                  console.ended();
                }
              }
            },
            "log " + prefix.trim());
    t.setDaemon(true);
    t.start();
  }

  /**
   * Whether both parties run on threads of this JVM instead of a JVM each. A small join's CPU went
   * largely to the second and third JVMs' start, class loading and compiling the same code again
   * (docs/benchmarks.md, issue 19's fifteenth step). Only where both tables are files of at most
   * {@link JvmOptions#C1_ONLY_MAX_BYTES} (whose party JVMs would run C1 alone, as ./psi runs this
   * one) and no party needs a process: --party-jvms, or a command line prefix to launch it under.
   */
  static boolean partiesOnThreads(OptionValues o, Hooks hooks) {
    return !o.get(PARTY_JVMS)
        && hooks.launchPrefix(Role.A).isEmpty()
        && hooks.launchPrefix(Role.B).isEmpty()
        && JvmOptions.forTables(List.of(table(o, Role.A), table(o, Role.B)))
            .contains(JvmOptions.C1_ONLY);
  }

  /** A running party: a JVM of its own, or a thread of this one. */
  interface RunningParty {
    /** The party's exit code when it ends: 0 done, 1 failed, 2 a wrong command line. */
    CompletableFuture<Integer> exit();

    /** Stops the party by force; returns when it ended, or after at most {@link #STOP_WAIT}. */
    void stop() throws InterruptedException;

    Duration STOP_WAIT = Duration.ofSeconds(10);
  }

  /** A party in a JVM of its own. */
  record PartyProcess(Process process) implements RunningParty {
    @Override
    public CompletableFuture<Integer> exit() {
      return process.onExit().thenApply(Process::exitValue);
    }

    @Override
    public void stop() throws InterruptedException {
      process.destroyForcibly().waitFor(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * A party on a thread of this JVM, running {@code PartyMain} as its JVM would, its console the
   * party's {@link FailureLine} (its log lines go to this JVM's log, as the relay's).
   */
  static final class PartyThread implements RunningParty {
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();
    private final Thread thread;

    private PartyThread(PartyConfiguration party, SharedMiniCluster cluster, FailureLine console) {
      String[] args = party.toArgs().toArray(String[]::new);
      thread =
          new Thread(
              () -> {
                PrintStream lines = console.lines();
                try {
                  exit.complete(PartyMain.run(args, lines, lines, cluster));
                } catch (Throwable t) {
                  lines.println(PartyFailure.line(party.role().label(), t.toString()));
                  exit.complete(1);
                } finally {
                  lines.close();
                  console.ended();
                }
              },
              "psi party " + party.role().label());
      // a party stopped by force must not keep this JVM from exiting
      thread.setDaemon(true);
    }

    static PartyThread start(
        PartyConfiguration party, SharedMiniCluster cluster, FailureLine console) {
      PartyThread t = new PartyThread(party, cluster, console);
      t.thread.start();
      return t;
    }

    @Override
    public CompletableFuture<Integer> exit() {
      return exit;
    }

    /** Interrupts the party: its job is cancelled (PrivateJoinJob.runToEnd). */
    @Override
    public void stop() throws InterruptedException {
      thread.interrupt();
      thread.join(STOP_WAIT.toMillis());
    }
  }

  /**
   * Waits for both parties. When one fails, the other gets {@code grace} to notice through the
   * bridge and fail on its own, then is stopped: it would otherwise wait out its timeouts.
   *
   * @return both exit codes; 1 for a party that a stop did not end
   */
  private static int[] waitForBoth(
      RunningParty pa, RunningParty pb, PrintStream log, Duration grace)
      throws InterruptedException {
    try {
      CompletableFuture.anyOf(pa.exit(), pb.exit()).join();
      RunningParty failed = failed(pa) ? pa : failed(pb) ? pb : null;
      RunningParty other = failed == pa ? pb : pa;
      if (failed != null && !ends(other, grace)) {
        log.println(
            "psi local: party "
                + (other == pa ? Role.A : Role.B)
                + " still runs "
                + grace.toSeconds()
                + " s after its peer failed; stopping it");
        other.stop();
        return new int[] {pa.exit().getNow(1), pb.exit().getNow(1)};
      }
      return new int[] {pa.exit().join(), pb.exit().join()};
    } catch (InterruptedException e) {
      pa.stop();
      pb.stop();
      throw e;
    }
  }

  private static boolean failed(RunningParty p) {
    return p.exit().isDone() && p.exit().join() != 0;
  }

  /** Whether {@code p} ends within {@code max}. */
  private static boolean ends(RunningParty p, Duration max) throws InterruptedException {
    try {
      p.exit().get(max.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (java.util.concurrent.TimeoutException e) {
      return false;
    } catch (java.util.concurrent.ExecutionException e) {
      return true;
    }
  }
}
