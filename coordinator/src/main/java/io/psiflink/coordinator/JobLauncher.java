package io.psiflink.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.HostPort;
import io.psiflink.api.JoinMode;
import io.psiflink.api.OutputFormat;
import io.psiflink.api.PartyConfiguration;
import io.psiflink.api.PartyFailure;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.Prefilter;
import io.psiflink.api.PublicSize;
import io.psiflink.api.ResumeDirectory;
import io.psiflink.api.Role;
import io.psiflink.connectors.JdbcTable;
import io.psiflink.coordinator.CoordinatorConfig.Job;
import io.psiflink.coordinator.Model.Dataset;
import io.psiflink.coordinator.Model.Phase;
import io.psiflink.coordinator.Model.Progress;
import io.psiflink.coordinator.Model.QueryRecord;
import io.psiflink.coordinator.Model.Result;
import io.psiflink.coordinator.Model.SessionRecord;
import io.psiflink.coordinator.Model.SessionStatus;
import io.psiflink.query.ExpectedColumns;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.fs.FileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs this party's job of a session and follows it to its end.
 *
 * <ul>
 *   <li>{@code embedded} (default): a child JVM running {@code io.psiflink.jobs.PartyMain} on an
 *       embedded Flink MiniCluster, whose REST endpoint is pinned to a free loopback port. A child
 *       JVM keeps a native crash or {@code System.exit} of the job away from the coordinator.
 *   <li>{@code flink-run}: {@code $FLINK_HOME/bin/flink run -c io.psiflink.jobs.PartyMain JAR ...}
 *       against a real cluster (the client runs the handshake, submits the job and waits for it);
 *       progress and cancel through {@code job.flinkRestUrl} when configured.
 * </ul>
 *
 * Both jobs of a session dial party A's bridge endpoint (the relay A's coordinator runs). The
 * session's state lives in the database: created → running → succeeded | failed | cancelled, with
 * the phase and bins from Flink ({@link FlinkProgress}); each step is in the audit log ({@code
 * job.started}, {@code job.succeeded|failed|cancelled}, {@code result.written}).
 */
final class JobLauncher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JobLauncher.class);
  private static final String PARTY_MAIN = "io.psiflink.jobs.PartyMain";

  /** Tells the peer coordinator that this side's job ended early (failure or cancel). */
  interface PeerAbort {
    void abort(String sessionId, AbortCategory category);
  }

  /**
   * How a session's job runs, recorded at its launch (Store.setJobProcess) so that a restarted
   * coordinator can re-attach to it: the process (the job's JVM, or the {@code flink run} client),
   * the REST URL of its progress, its output and work directory.
   */
  record JobProcess(
      long pid, String rest, String out, OutputFormat format, boolean outExisted, String work) {}

  /** One running job. */
  private static final class Run {
    final Launch launch;
    final String session;
    final ProcessHandle process;

    /** The launched process, for its exit status (null for one re-attached after a restart). */
    final Process child;

    final FlinkProgress progress;
    final String out;
    final boolean outExisted;
    volatile boolean stopped;

    /** Left running at a shutdown: nothing more is recorded for it here. */
    volatile boolean detached;

    volatile Thread follower;

    Run(
        Launch launch,
        ProcessHandle process,
        Process child,
        FlinkProgress progress,
        String out,
        boolean outExisted) {
      this.launch = launch;
      this.session = launch.session();
      this.process = process;
      this.child = child;
      this.progress = progress;
      this.out = out;
      this.outExisted = outExisted;
    }
  }

  private final CoordinatorConfig config;
  private final Job job;
  private final Db db;
  private final ObjectMapper json;
  private final Clock clock;
  private final PeerAbort peerAbort;
  private final Runnable jobEnded;
  private final Map<String, Run> runs = new ConcurrentHashMap<>();

  JobLauncher(
      CoordinatorConfig config, Db db, ObjectMapper json, Clock clock, PeerAbort peerAbort) {
    this(config, db, json, clock, peerAbort, () -> {});
  }

  /**
   * @param jobEnded runs after each job's end is recorded (its slot is free)
   */
  JobLauncher(
      CoordinatorConfig config,
      Db db,
      ObjectMapper json,
      Clock clock,
      PeerAbort peerAbort,
      Runnable jobEnded) {
    this.config = config;
    this.job = config.job();
    this.db = db;
    this.json = json;
    this.clock = clock;
    this.peerAbort = peerAbort;
    this.jobEnded = jobEnded;
  }

  /**
   * What a session's job needs to launch, whichever kind of session it is.
   *
   * @param table where the session's job state is kept
   * @param role this party's role (P1 of an n-party join, like A, writes the joined table)
   * @param requested the output the query asked for (null: the defaults)
   * @param detail the kind's own fields of the job.started audit entry
   * @param options the kind's job options, given the work directory, output location and format
   * @param peerAbort tells the other parties' coordinators that this job ended early
   */
  record Launch(
      String session,
      Store.SessionTable table,
      Role role,
      Dataset local,
      Model.Output requested,
      Map<String, Object> detail,
      Options options,
      PeerAbort peerAbort) {}

  /** A session kind's job options. */
  @FunctionalInterface
  interface Options {
    PartyConfiguration of(Path work, String out, OutputFormat format);
  }

  /**
   * Starts this party's job of two-party session {@code s}, unless it was started before (only a
   * {@code created} session moves to {@code running}, in one transaction with its audit entry).
   */
  void launch(SessionRecord s, QueryRecord q, Dataset local) {
    Launch l = twoParty(s, q, local);
    try {
      helperPin(s); // a helper unregistered since the approval: no job
    } catch (IllegalArgumentException e) {
      refuse(l, e);
      return;
    }
    start(l, s.aEndpoint());
  }

  /** The launch of this party's job of two-party session {@code s}. */
  Launch twoParty(SessionRecord s, QueryRecord q, Dataset local) {
    Map<String, Object> detail = new LinkedHashMap<>();
    detail.put("joinMode", s.mode().text());
    if (s.prefiltering().helped()) {
      detail.put("helper", s.prefiltering().helper());
    }
    // a resumed session: the job skips the bins A's job committed in the run before
    boolean resume = db.tx(c -> Store.sessionResumes(c, s.id())) > 0;
    if (resume) {
      detail.put("resume", true);
    }
    return new Launch(
        s.id(),
        Store.SessionTable.TWO_PARTY,
        q.localSide(),
        local,
        q.output(),
        detail,
        (work, out, format) -> partyConfiguration(s, q, local, work, out, format, resume),
        peerAbort);
  }

  /** The launch of this party's job of n-party session {@code s}. */
  Launch group(
      Model.GroupSessionRecord s, Model.GroupQueryRecord q, Dataset local, PeerAbort abort) {
    Map<String, Object> detail = new LinkedHashMap<>();
    detail.put("joinMode", "group");
    detail.put("parties", q.parties().stream().map(Model.GroupMember::party).toList());
    detail.put("provider", q.provider());
    return new Launch(
        s.id(),
        Store.SessionTable.GROUP,
        q.role(),
        local,
        q.output(),
        detail,
        (work, out, format) -> groupConfiguration(s, q, local, work, out, format),
        abort);
  }

  /** Starts this party's job of n-party session {@code s}, as {@link #launch} does. */
  void launchGroup(
      Model.GroupSessionRecord s, Model.GroupQueryRecord q, Dataset local, PeerAbort abort) {
    Launch l = group(s, q, local, abort);
    try {
      providerPin(q); // a provider unregistered since the approval: no job
    } catch (IllegalArgumentException e) {
      refuse(l, e);
      return;
    }
    start(l, s.endpoint());
  }

  private void refuse(Launch l, IllegalArgumentException e) {
    LOG.error("{}: refusing to launch session {}: {}", config.party(), l.session(), e.getMessage());
    fail(l, "refusing to launch: " + e.getMessage(), null);
  }

  private void start(Launch l, String bridge) {
    Role role = l.role();
    String id = l.session();
    // Our directories are named by the session id, which another party's coordinator may have
    // chosen: each is checked to be a direct child of its base (Confined), whatever the id holds.
    String out;
    Path work;
    try {
      // a path or a URI (hdfs://...): as a string, which java.nio would not keep
      out =
          !receivesRows(role)
              ? null
              : l.requested() != null && l.requested().location() != null
                  ? l.requested().location()
                  : Confined.under(config.output().directory(), id);
      work = Confined.under(job.workDir(), id);
    } catch (IllegalArgumentException e) {
      refuse(l, e);
      return;
    }
    OutputFormat format =
        !receivesRows(role)
            ? null
            : l.requested() != null && l.requested().format() != null
                ? l.requested().format()
                : config.output().format();
    Map<String, Object> detail = new LinkedHashMap<>();
    detail.put("mode", job.mode().text());
    detail.putAll(l.detail());
    detail.put("party", role.label());
    detail.put("dataset", l.local().name());
    detail.put("bridge", bridge);
    detail.put("workDir", work.toString());
    if (out != null) {
      detail.put("output", JdbcTable.redact(out));
    }
    long now = clock.millis();
    boolean started =
        db.tx(
            c -> {
              if (!Store.startSession(c, l.table(), id, now)) {
                return false;
              }
              Store.audit(c, now, config.party(), "job.started", "session", id, Store.json(detail));
              return true;
            });
    if (!started) {
      return;
    }
    try {
      Files.createDirectories(work);
      boolean outExisted = out != null && exists(out);
      int restPort = freePort();
      List<String> cmd = command(l.options().of(work, out, format), restPort);
      ClassDataSharing cds =
          job.mode() == JobMode.EMBEDDED
              ? ClassDataSharing.of(jobClasspath(), "party-" + role.label())
              : ClassDataSharing.off();
      cmd.addAll(1, cds.jvmOptions()); // after the java executable
      ProcessBuilder pb =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(work.resolve("job.log").toFile());
      pb.environment().putAll(environment(l.local()));
      Process p = pb.start();
      cds.promoteOnExit(p);
      String rest =
          job.mode() == JobMode.EMBEDDED ? "http://127.0.0.1:" + restPort : job.flinkRestUrl();
      JobProcess jp = new JobProcess(p.pid(), rest, out, format, outExisted, work.toString());
      db.tx(
          c -> {
            Store.setJobProcess(c, l.table(), id, Store.json(jp));
            return null;
          });
      follow(l, p.toHandle(), p, jp);
      LOG.info(
          "{}: launched the job of session {} (party {}, {}), log {}",
          config.party(),
          id,
          role.label(),
          job.mode(),
          work.resolve("job.log"));
    } catch (IOException | RuntimeException e) {
      fail(l, "cannot launch the job: " + e.getMessage(), null);
    }
  }

  /** The job's command line for two-party session {@code s}. */
  List<String> command(
      SessionRecord s,
      QueryRecord q,
      Dataset local,
      Path work,
      String out,
      OutputFormat format,
      int restPort) {
    return command(partyConfiguration(s, q, local, work, out, format, false), restPort);
  }

  /** The job's command line: PartyMain with {@code options}. */
  private List<String> command(PartyConfiguration options, int restPort) {
    List<String> cmd = new ArrayList<>();
    if (job.mode() == JobMode.EMBEDDED) {
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(JvmOptions.heap(job.javaHeap()));
      cmd.addAll(JvmOptions.forTables(List.of(options.get(PartyOptions.TABLE))));
      // the job's console logging, even where a test jar puts a silencing log4j2-test first
      cmd.add("-Dlog4j2.configurationFile=log4j2.properties");
      String f = "-D" + JvmOptions.FLINK_PROPERTY_PREFIX;
      cmd.add(f + "rest.address=127.0.0.1");
      cmd.add(f + "rest.bind-address=127.0.0.1");
      cmd.add(f + "rest.bind-port=" + restPort);
      // the REST API serves metrics it fetched at most this long ago (Flink's default: 10 s)
      cmd.add(f + "metrics.fetcher.update-interval=1000");
      cmd.add("-cp");
      cmd.add(jobClasspath());
      cmd.add(PARTY_MAIN);
    } else {
      cmd.add(job.flinkHome().resolve("bin").resolve("flink").toString());
      cmd.add("run");
      cmd.add("-c");
      cmd.add(PARTY_MAIN);
      cmd.add(job.jobJar().toString());
    }
    cmd.addAll(options.toArgs());
    return cmd;
  }

  /** This party's job options for session {@code s}: the job parses them back (PartyMain). */
  PartyConfiguration partyConfiguration(
      SessionRecord s,
      QueryRecord q,
      Dataset local,
      Path work,
      String out,
      OutputFormat format,
      boolean resume) {
    Role role = q.localSide();
    boolean helped = s.prefiltering().helped();
    return common(
            role, local, q.sql(), s.id(), s.aEndpoint(), s.bins(), s.sigma(), work, out, format)
        .with(PartyOptions.PEER, config.peer().name())
        // the peer job must present the very certificate the peer's coordinator put in the
        // session
        .with(PartyOptions.PEER_CERT_SHA256, s.fingerprint(role.peer()))
        .with(PartyOptions.PROTOCOL, s.protocol())
        // who learns the intersection: the session's, so both jobs run the same mode
        .with(PartyOptions.MODE, s.mode())
        .with(PartyOptions.LABEL_BYTES, s.mode() == JoinMode.LABELED ? s.labelBytes() : null)
        // the pre-filter: the session's helper and filter, the helper's pin from our registry
        .with(PartyOptions.PREFILTER, s.prefiltering().prefilter())
        .with(PartyOptions.HELPER, helped ? s.prefiltering().helper() : null)
        .with(PartyOptions.HELPER_CERT_SHA256, helped ? helperPin(s) : null)
        .with(PartyOptions.FILTER_BITS, helped ? s.prefiltering().filterBits() : null)
        .with(PartyOptions.FILTER_HASHES, helped ? s.prefiltering().filterHashes() : null)
        .with(
            PartyOptions.EXPECTED_OVERLAP,
            s.prefiltering().prefilter() == Prefilter.AUTO
                ? s.prefiltering().expectedOverlap()
                : null)
        .with(PartyOptions.RESUME, resume);
  }

  /**
   * This party's job options for n-party session {@code s}: the parties' names and certificate pins
   * from the session (every party's coordinator put its own there), the provider's pin from our
   * registry.
   */
  PartyConfiguration groupConfiguration(
      Model.GroupSessionRecord s,
      Model.GroupQueryRecord q,
      Dataset local,
      Path work,
      String out,
      OutputFormat format) {
    List<String> pins = new ArrayList<>();
    for (int i = 0; i < s.parties().size(); i++) {
      pins.add(i == q.localIndex() ? "-" : s.parties().get(i).fingerprint());
    }
    return common(
            q.role(), local, q.sql(), s.id(), s.endpoint(), q.bins(), q.sigma(), work, out, format)
        .with(PartyOptions.PARTIES, s.parties().stream().map(Model.GroupMember::party).toList())
        .with(PartyOptions.PARTY_CERT_SHA256S, pins)
        .with(PartyOptions.PROVIDER, q.provider())
        .with(PartyOptions.PROVIDER_CERT_SHA256, providerPin(q));
  }

  /** The options every party's job gets, whichever kind of session. */
  private PartyConfiguration common(
      Role role,
      Dataset local,
      String sql,
      String session,
      String bridge,
      int bins,
      int sigma,
      Path work,
      String out,
      OutputFormat format) {
    boolean receives = receivesRows(role);
    return PartyConfiguration.empty()
        .with(PartyOptions.PARTY, role)
        // a password in a JDBC location goes to the child's environment (environment()), never
        // on the command line where ps shows it
        .with(PartyOptions.TABLE, JdbcTable.withoutPassword(local.location()))
        .with(PartyOptions.SQL, sql)
        .with(PartyOptions.OUT, receives ? out : null)
        .with(PartyOptions.FORMAT, receives ? format : null)
        .with(PartyOptions.QUARANTINE, work.resolve("quarantine").toString())
        .with(PartyOptions.SESSION, session)
        .with(PartyOptions.BRIDGE, HostPort.parse(bridge))
        .with(PartyOptions.CERT, job.certificate())
        .with(PartyOptions.KEY, job.privateKey())
        .with(PartyOptions.CA, job.trustedCa())
        .with(PartyOptions.BINS, bins)
        .with(PartyOptions.SIGMA, sigma)
        // what the others learn of our size, as registered with the dataset (and published)
        .with(
            PartyOptions.PUBLIC_SIZE,
            local.publicSize() == null ? PublicSize.DEFAULT : PublicSize.parse(local.publicSize()))
        // the job refuses files whose columns differ from the registered ones
        .with(
            PartyOptions.EXPECTED_COLUMNS,
            local.schema().isEmpty()
                ? null
                : ExpectedColumns.format(
                    local.schema().stream()
                        .map(c2 -> new Column(c2.name(), ColumnType.valueOf(c2.type()), true))
                        .toList()))
        .with(PartyOptions.PARALLELISM, job.parallelism())
        .with(PartyOptions.ATTEMPTS, job.attempts())
        .with(PartyOptions.PAIR_TIMEOUT, atLeastASecond(job.pairTimeout()))
        .with(PartyOptions.IDLE_TIMEOUT, atLeastASecond(job.idleTimeout()))
        .with(PartyOptions.MAX_BAD_ROWS, job.maxBadRows())
        .with(PartyOptions.WORK, jobWorkDir(work).toString())
        .with(PartyOptions.SUMMARY, work.resolve("summary.json"));
  }

  /**
   * The pin of an n-party query's provider as this coordinator registers it: every party's
   * coordinator checked it at the approval; a provider removed since, or registered with another
   * certificate, gets no job.
   *
   * @throws IllegalArgumentException naming the provider
   */
  String providerPin(Model.GroupQueryRecord q) {
    return Registrations.pinAtLaunch(
        config.providers(), "provider", q.provider(), q.providerCertSha256());
  }

  /**
   * The pin of the session's helper as this coordinator registers it (null without a pre-filter).
   * Both coordinators checked it at the approval; a helper removed from the registry since, or
   * registered with another certificate, gets no job.
   *
   * @throws IllegalArgumentException naming the helper
   */
  String helperPin(SessionRecord s) {
    Model.Prefiltering p = s.prefiltering();
    return p.helped()
        ? Registrations.pinAtLaunch(config.helpers(), "helper", p.helper(), p.helperCertSha256())
        : null;
  }

  private static Duration atLeastASecond(Duration d) {
    return Duration.ofSeconds(Math.max(1, d.toSeconds()));
  }

  /**
   * What the job's process gets in its environment beyond the coordinator's: FLINK_CONF_DIR
   * (flink-run), and the password of a JDBC location ({@value JdbcTable#PASSWORD_ENV}), which the
   * job's JdbcTable reads, so that no password is on a command line.
   */
  Map<String, String> environment(Dataset local) {
    Map<String, String> env = new LinkedHashMap<>();
    if (job.mode() == JobMode.FLINK_RUN && job.flinkConfDir() != null) {
      env.put("FLINK_CONF_DIR", job.flinkConfDir().toString());
    }
    String password = JdbcTable.password(local.location());
    if (password != null) {
      env.put(JdbcTable.PASSWORD_ENV, password);
    }
    return env;
  }

  /**
   * The class path of the embedded party JVM: the job's jars ({@code job.classpath}, else the
   * system property {@value JvmOptions#JOB_CLASSPATH_PROPERTY}), never the coordinator's own, which
   * holds no Flink runtime.
   */
  String jobClasspath() {
    if (job.classpath() != null && !job.classpath().isEmpty()) {
      return String.join(
          java.io.File.pathSeparator, job.classpath().stream().map(Path::toString).toList());
    }
    String property = System.getProperty(JvmOptions.JOB_CLASSPATH_PROPERTY);
    if (property != null && !property.isBlank()) {
      return property;
    }
    throw new IllegalStateException(
        "config: job.classpath (the jars of the party's job, e.g. "
            + "flink-jobs and its dependencies) is required for job.mode embedded; ./psi serve sets "
            + "it through -D"
            + JvmOptions.JOB_CLASSPATH_PROPERTY);
  }

  /**
   * Whether {@code role}'s job writes the joined table: A's, the receiver of the PSI, or P1's of an
   * n-party join.
   */
  static boolean receivesRows(Role role) {
    return role.isParty() && role.index() == 0;
  }

  /** Follows a job's process on a thread of its own until it ends. */
  private void follow(Launch l, ProcessHandle handle, Process child, JobProcess jp) {
    String rest = jp.rest();
    Run run =
        new Run(
            l,
            handle,
            child,
            rest == null ? null : new FlinkProgress(rest, l.role(), l.session(), json),
            jp.out(),
            jp.outExisted());
    runs.put(l.session(), run);
    Thread t = new Thread(() -> follow(run, jp.format(), Path.of(jp.work())), "job-" + l.session());
    t.setDaemon(true);
    run.follower = t;
    t.start();
  }

  /**
   * Re-attaches to the job of a session that was running when this coordinator stopped, if its
   * process outlived the coordinator (job.onShutdown: leave, or a coordinator killed): it is
   * followed to its end as if launched here. False if it is gone (or its process id now names
   * another process), or was never recorded.
   */
  boolean reattach(Launch l) {
    String recorded = db.tx(c -> Store.jobProcess(c, l.table(), l.session()));
    if (recorded == null) {
      return false;
    }
    JobProcess jp;
    try {
      jp = json.readValue(recorded, JobProcess.class);
    } catch (IOException e) {
      LOG.warn("session {}: unreadable job process record: {}", l.session(), e.getMessage());
      return false;
    }
    // a process id may have been reused since: the process must still be this session's job
    ProcessHandle h =
        ProcessHandle.of(jp.pid())
            .filter(ProcessHandle::isAlive)
            .filter(p -> commandLine(p).contains(l.session()))
            .orElse(null);
    if (h == null) {
      if (job.mode() == JobMode.FLINK_RUN && jp.rest() != null) {
        // the client is gone, and with it the commit of the output: a job it left on the cluster
        // could only run on into nothing
        LOG.info(
            "{}: the client of session {} is gone; cancelling its job on the cluster: {}",
            config.party(),
            l.session(),
            new FlinkProgress(jp.rest(), l.role(), l.session(), json)
                .cancel(Duration.ofSeconds(30)));
      }
      return false;
    }
    follow(l, h, null, jp);
    db.tx(
        c -> {
          Store.audit(
              c,
              clock.millis(),
              config.party(),
              "job.reattached",
              "session",
              l.session(),
              Store.json(Map.of("pid", jp.pid())));
          return null;
        });
    LOG.info(
        "{}: re-attached to the job of session {} (pid {})", config.party(), l.session(), jp.pid());
    return true;
  }

  /**
   * A process's whole command line: from /proc on Linux (ProcessHandle.Info cuts it at 4096
   * characters, and a job's session id comes after its class path), else as Info has it.
   */
  private static String commandLine(ProcessHandle p) {
    try {
      byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline"));
      return new String(raw, StandardCharsets.UTF_8).replace('\0', ' ');
    } catch (IOException | UnsupportedOperationException e) {
      return p.info().commandLine().orElse("");
    }
  }

  /** Polls the job's progress until its process ends, then records how it ended. */
  private void follow(Run run, OutputFormat format, Path work) {
    Progress last = new Progress(Phase.HANDSHAKE, 0, null);
    try {
      while (!ended(run)) {
        Progress p = run.progress == null ? null : run.progress.poll();
        if (p != null && !p.equals(last) && !run.stopped && !run.detached) {
          last = p;
          db.tx(c -> Store.progress(c, run.launch.table(), run.session, p));
        }
      }
      if (run.detached) {
        return;
      }
      // a re-attached job's exit status is not ours to read: its summary says it succeeded
      int code =
          run.child != null
              ? run.child.exitValue()
              : Files.exists(work.resolve("summary.json")) ? 0 : 1;
      if (run.stopped) {
        removeOutput(run);
      } else if (code == 0) {
        succeed(run, format, work);
      } else {
        if (run.progress != null && job.mode() == JobMode.FLINK_RUN) {
          // the client is gone; its job may still run on the cluster
          LOG.info(
              "{}: the client of session {} exited with {}; cancelling: {}",
              config.party(),
              run.session,
              code,
              run.progress.cancel(Duration.ofSeconds(30)));
        }
        fail(run.launch, errorOf(work.resolve("job.log"), code), run);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.error("following the job of session {} failed", run.session, e);
      fail(run.launch, "the coordinator lost track of the job: " + e.getMessage(), run);
    } finally {
      runs.remove(run.session);
      if (!run.detached) {
        try {
          jobEnded.run();
        } catch (RuntimeException e) {
          LOG.warn("after the job of session {}: {}", run.session, e.getMessage());
        }
      }
    }
  }

  /**
   * How often a job's progress is read from Flink while it runs. A small join's job runs for about
   * a second: read once a second, its phases could pass unseen between two reads.
   */
  static final Duration PROGRESS_POLL = Duration.ofMillis(250);

  /**
   * Waits up to {@link #PROGRESS_POLL} for the job's process to end; whether it has. A child's own
   * wait, which records its exit status (the handle of a child may report its end before the status
   * is there).
   */
  private static boolean ended(Run run) throws InterruptedException {
    if (run.child != null) {
      return run.child.waitFor(PROGRESS_POLL.toMillis(), TimeUnit.MILLISECONDS);
    }
    ProcessHandle p = run.process;
    try {
      p.onExit().get(PROGRESS_POLL.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (java.util.concurrent.TimeoutException e) {
      return false;
    } catch (java.util.concurrent.ExecutionException e) {
      return !p.isAlive();
    }
  }

  /**
   * A job that succeeded leaves nothing to resume: party B's job keeps its resume state (the
   * session's token key) in case A fails after it, which this coordinator drops now; a session
   * whose A fails after B's job succeeded is submitted again instead (docs/operations.md).
   */
  private static void forgetResumeState(Path work) {
    try {
      ResumeDirectory.forget(jobWorkDir(work));
    } catch (IOException e) {
      LOG.warn("cannot remove the resume state of {}: {}", jobWorkDir(work), e.toString());
    }
  }

  /** The job's own work directory (--work) within a session's. */
  private static Path jobWorkDir(Path sessionWork) {
    return sessionWork.resolve("flink");
  }

  private void succeed(Run run, OutputFormat format, Path work) {
    String summary;
    JsonNode s;
    try {
      summary = Files.readString(work.resolve("summary.json"), StandardCharsets.UTF_8);
      s = json.readTree(summary);
    } catch (IOException e) {
      fail(
          run.launch,
          "the job ended without its summary ("
              + work.resolve("summary.json")
              + "): "
              + e.getMessage(),
          run);
      return;
    }
    long rowsOut = s.path("rows_out").asLong();
    Result result = receivesRows(run.launch.role()) ? new Result(run.out, format, rowsOut) : null;
    forgetResumeState(work);
    Progress done = new Progress(Phase.DONE, s.path("bins_done").asLong(), s.path("bins").asLong());
    long now = clock.millis();
    db.tx(
        c -> {
          if (Store.endSession(
              c,
              run.launch.table(),
              run.session,
              SessionStatus.SUCCEEDED,
              null,
              done,
              result,
              summary,
              now)) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("rowsRead", s.path("rows_read").asLong());
            // absent where the job did not learn it (B in the labeled mode): never a made-up 0
            if (s.hasNonNull("intersecting_keys")) {
              d.put("intersectingKeys", s.path("intersecting_keys").asLong());
            }
            d.put("rowsOut", rowsOut);
            d.put("bytesSent", s.path("bytes_sent").asLong());
            d.put("bytesReceived", s.path("bytes_received").asLong());
            d.put("seconds", s.path("total_seconds").asDouble());
            Store.audit(
                c, now, config.party(), "job.succeeded", "session", run.session, Store.json(d));
            if (result != null) {
              Store.audit(
                  c,
                  now,
                  config.party(),
                  "result.written",
                  "session",
                  run.session,
                  Store.json(
                      Map.of(
                          "location",
                          JdbcTable.redact(result.location()),
                          "format",
                          result.format(),
                          "rowsOut",
                          rowsOut)));
            }
          }
          return null;
        });
  }

  /**
   * Records the failure, removes partial output and tells the other parties (their jobs would
   * wait).
   */
  private void fail(Launch l, String error, Run run) {
    String session = l.session();
    long now = clock.millis();
    boolean ended =
        db.tx(
            c -> {
              if (!Store.endSession(
                  c, l.table(), session, SessionStatus.FAILED, error, null, null, null, now)) {
                return false;
              }
              Store.audit(c, now, config.party(), "job.failed", "session", session, error);
              return true;
            });
    if (run != null) {
      removeOutput(run);
    }
    if (ended) {
      // the others learn the category only; the error text stays here
      l.peerAbort().abort(session, AbortCategory.ofJobError(error));
    }
  }

  /**
   * Stops this party's job of a session, if it runs (the caller has ended the session in the
   * database). Waits until the process is gone and, in flink-run mode, until the cluster has
   * cancelled the job (first the client, so that it submits nothing after the cancel).
   */
  void stop(String session) {
    Run run = runs.get(session);
    if (run == null) {
      return;
    }
    run.stopped = true;
    destroy(run.process);
    if (run.progress != null && job.mode() == JobMode.FLINK_RUN) {
      LOG.info(
          "{}: cancelling the job of session {}: {}",
          config.party(),
          session,
          run.progress.cancel(Duration.ofSeconds(30)));
    }
    removeOutput(run);
  }

  private static void destroy(ProcessHandle p) {
    // flink run's client may have children; the embedded JVM needs no graceful stop: its work
    // directory is per session and the output is removed
    p.descendants().forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
    try {
      p.onExit().get(15, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      LOG.warn("process {} did not end within 15 s of its kill", p.pid());
    }
  }

  /**
   * A failed or cancelled job leaves no visible output (unless the directory existed before). The
   * output may be on any file system the job reaches (Flink's, with Hadoop's for hdfs://).
   */
  private static void removeOutput(Run run) {
    if (run.out == null || run.outExisted) {
      return;
    }
    try {
      org.apache.flink.core.fs.Path p = new org.apache.flink.core.fs.Path(run.out);
      FileSystem fs = p.getFileSystem();
      if (fs.exists(p)) {
        fs.delete(p, true);
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot remove the partial output {}: {}", run.out, e.getMessage());
    }
  }

  private static boolean exists(String location) throws IOException {
    org.apache.flink.core.fs.Path p = new org.apache.flink.core.fs.Path(location);
    return p.getFileSystem().exists(p);
  }

  /** The job's own explanation ("psi party A failed: ..."), or its exit code and log. */
  static String errorOf(Path log, int code) {
    String found = null;
    try {
      for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
        String reason = PartyFailure.reason(line);
        if (reason != null) {
          found = reason;
        }
      }
    } catch (IOException | java.io.UncheckedIOException e) {
      // fall through to the exit code
    }
    return found != null
        ? JdbcTable.redact(found)
        : "the job exited with code " + code + " (log: " + log + ")";
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /**
   * On shutdown: stops the jobs this coordinator runs, or (job.onShutdown: leave) leaves them
   * running and stops following them; a restarted coordinator re-attaches to them.
   */
  @Override
  public void close() {
    for (Run r : runs.values()) {
      if (job.leavesJobs()) {
        r.detached = true;
        Thread t = r.follower;
        if (t != null) {
          t.interrupt();
        }
        LOG.info(
            "{}: leaving the job of session {} running (pid {})",
            config.party(),
            r.session,
            r.process.pid());
      } else {
        r.stopped = true;
        destroy(r.process);
      }
    }
  }
}
