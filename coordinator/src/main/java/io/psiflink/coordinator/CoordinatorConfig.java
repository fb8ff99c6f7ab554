package io.psiflink.coordinator;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.psiflink.api.OutputFormat;
import io.psiflink.connectors.BadRowLimit;
import io.psiflink.nativepsi.ProtocolInfo;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The configuration of one party's coordinator, read from a YAML file. Relative paths are resolved
 * against the directory of the file. Example (see docs/coordinator.md):
 *
 * <pre>
 * party: alice
 * listen: {host: 127.0.0.1, port: 8443}
 * tls: {certificate: alice.pem, privateKey: alice.key, trustedCa: ca.pem}
 * database: {url: "jdbc:sqlite:coordinator.db"}
 * tokensFile: tokens
 * peer: {name: bob, url: "https://bob.example:8443", tokenFile: peer-token}
 * bridge: {endpoint: "alice.example:7443", certificate: alice.pem}
 * approvalTtl: PT24H
 * helpers:
 *   - {name: carol, certSha256: "5f...e1", description: "Carol Ltd's sample filter"}
 * peers:      # further organisations, for n-party joins
 *   - {name: dave, url: "https://dave.example:8443", tokenFile: dave-token, jobCa: dave-ca.pem}
 * providers:  # outsourcing providers of n-party joins
 *   - {name: olivia, certSha256: "9a...07", description: "Olivia plc's MPSI provider"}
 * </pre>
 *
 * @param party this party's name (one party per coordinator)
 * @param listen where the HTTPS API listens
 * @param tls the server's certificate chain and key (PEM), and the CA trusted for the peer
 *     coordinator
 * @param database JDBC URL (SQLite by default; {@code jdbc:postgresql://...} supported) and
 *     credentials
 * @param tokensFile the API tokens this coordinator accepts, as SHA-256 hashes ({@link Tokens})
 * @param peer the other party: its name, its coordinator's URL and the file holding the token this
 *     coordinator presents to it
 * @param bridge this party's bridge endpoint (host:port) and the certificate its job presents
 *     there; the session records carry the endpoint and the certificate's SHA-256 fingerprint
 * @param approvalTtl how long a submitted query waits for the other party's decision
 * @param sweepInterval how often pending queries are checked for expiry and polled at the peer
 * @param defaults session defaults: σ, protocol (unset: the library's default, rr22, when this
 *     party offers it, else the first protocol it offers), bins (0: chosen by the job)
 * @param protocols the native PSI protocols this party's jobs offer (default: the library's
 *     default, rr22), each a name the native library lists ({@link ProtocolInfo}); a query naming
 *     another one is refused
 * @param job how this party's job is launched once a session is approved (null: sessions are
 *     recorded but no job is launched)
 * @param output where party A's joined tables go by default: {@code <directory>/<session id>}
 * @param helpers the helpers this party may use for a query's pre-filter ({@code prefilter:
 *     helper}); a query may name only a helper registered here, and the peer's coordinator must
 *     have registered it with the same pin. The relay this coordinator runs admits them (pinned).
 * @param peers further organisations this party joins with in n-party joins, besides {@code peer}
 *     (which may be one of an n-party join's parties too); each with its coordinator's URL, the
 *     token this coordinator presents to it, and the CA of its job certificates ({@code jobCa}, for
 *     the relay). With peers, every peer token this coordinator accepts must be labelled with the
 *     name of the organisation it was issued to: the label says who calls.
 * @param providers the outsourcing providers an n-party join may name, as helpers are registered: a
 *     query names one registered at every party's coordinator with the same pin; the relay this
 *     coordinator runs admits them (pinned)
 */
@JsonIgnoreProperties(ignoreUnknown = false)
public record CoordinatorConfig(
    String party,
    Listen listen,
    Tls tls,
    Database database,
    Path tokensFile,
    Peer peer,
    Bridge bridge,
    Duration approvalTtl,
    Duration sweepInterval,
    Defaults defaults,
    List<String> protocols,
    Job job,
    Output output,
    List<Helper> helpers,
    List<Peer> peers,
    List<Provider> providers) {

  /**
   * The outsourcing provider of n-party joins (./psi provider): it combines the parties' encrypted
   * filters and holds no data; it learns nothing of which keys they hold (docs/security.md).
   *
   * @param name the CN of its certificate, as queries name it
   * @param certSha256 the SHA-256 of its certificate: the pin every party's job and the relay check
   * @param description shown at approval (who runs it, under which agreement)
   */
  public record Provider(String name, String certSha256, String description) implements Registered {
    public Provider {
      certSha256 = pin("providers", name, certSha256);
      description = description == null ? "" : description.strip();
    }
  }

  /** A service another organisation runs for this party's joins, registered with its pin. */
  public interface Registered {
    String name();

    String certSha256();

    String description();
  }

  /** A registered service's pin in lower case, with its name checked ({@code section}: helpers). */
  private static String pin(String section, String name, String certSha256) {
    if (name == null || !Requests.PARTY_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "config: "
              + section
              + ": name must be a certificate CN ("
              + Requests.PARTY_NAME.pattern()
              + "), not "
              + (name == null ? "missing" : "'" + name + "'"));
    }
    if (certSha256 == null || !certSha256.matches("[0-9a-fA-F]{64}")) {
      throw new IllegalArgumentException(
          "config: "
              + section
              + ": "
              + name
              + ": certSha256 (the SHA-256 of its certificate, 64 hex digits) is required");
    }
    return certSha256.toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * A helper of the server-aided sample filter: a third organisation that deals the random
   * correlations with which both parties AND their Bloom filters; it receives no data and learns
   * nothing of which keys they hold (docs/security.md).
   *
   * @param name the CN of its certificate, as queries name it
   * @param certSha256 the SHA-256 of its certificate (64 hex digits): the pin both parties' jobs
   *     and the relay check, and the peer's coordinator must have registered the same
   * @param description shown at approval (who runs it, under which agreement)
   */
  public record Helper(String name, String certSha256, String description) implements Registered {
    public Helper {
      certSha256 = pin("helpers", name, certSha256);
      description = description == null ? "" : description.strip();
    }
  }

  public record Listen(String host, int port) {}

  public record Tls(Path certificate, Path privateKey, Path trustedCa) {}

  public record Database(String url, String user, String password) {}

  /**
   * Another organisation's coordinator.
   *
   * @param jobCa the CA(s) of its job certificates (optional; for the relay, as relay.peerCa is for
   *     {@code peer})
   */
  public record Peer(String name, String url, Path tokenFile, Path jobCa) {
    public Peer(String name, String url, Path tokenFile) {
      this(name, url, tokenFile, null);
    }

    Peer relativeTo(Path dir) {
      return new Peer(name, url, dir.resolve(tokenFile), jobCa == null ? null : dir.resolve(jobCa));
    }
  }

  /**
   * @param endpoint host:port of this party's bridge endpoint; when this party is A (the output
   *     party) of a session, both parties' jobs dial it
   * @param certificate the certificate this party's job presents (its SHA-256 goes in sessions)
   * @param relay the bridge relay this coordinator runs at {@code endpoint} (null: none here)
   */
  public record Bridge(String endpoint, Path certificate, Relay relay) {
    public Bridge(String endpoint, Path certificate) {
      this(endpoint, certificate, null);
    }
  }

  /**
   * The edge relay: it passes the two jobs' TLS-wrapped PSI frames between them and sees no key,
   * token or row (the payload is sealed under keys only the jobs derive).
   *
   * @param listen host:port to listen on (e.g. 0.0.0.0:7443)
   * @param certificate the relay's certificate chain (PEM), trusted by both jobs' CAs
   * @param privateKey its key (PKCS#8 PEM)
   * @param trustedCa the CA(s) the jobs' client certificates must chain to (TLS)
   * @param pairTimeout how long a stream waits for the peer job's (default 60 s)
   * @param partyCa the CA(s) of this party's job certificates (optional): a stream with this
   *     party's CN is admitted only with the job certificate of this coordinator (job.certificate,
   *     pinned by its SHA-256) or one chaining to these CAs
   * @param peerCa the CA(s) of the peer's job certificates: a stream with the peer's CN is admitted
   *     only with a certificate chaining to these. Without it, any CA of trustedCa may issue the
   *     peer's CN (a warning is logged)
   */
  public record Relay(
      String listen,
      Path certificate,
      Path privateKey,
      Path trustedCa,
      Duration pairTimeout,
      Path partyCa,
      Path peerCa) {
    /** Without per-party CAs (this party is still pinned to its job certificate). */
    public Relay(
        String listen, Path certificate, Path privateKey, Path trustedCa, Duration pairTimeout) {
      this(listen, certificate, privateKey, trustedCa, pairTimeout, null, null);
    }
  }

  /**
   * How this party's job runs.
   *
   * @param mode {@link JobMode#EMBEDDED embedded} (default: a child JVM running PartyMain on an
   *     embedded Flink MiniCluster) or {@link JobMode#FLINK_RUN flink-run} ({@code
   *     $flinkHome/bin/flink run jobJar} against a real cluster)
   * @param javaHeap heap of the embedded child JVM (default 2g)
   * @param parallelism Flink parallelism of the job (default 2)
   * @param workDir per-session work directories (spill files, logs, summaries; default {@code
   *     work})
   * @param certificate the certificate the job presents on the bridge (default:
   *     bridge.certificate); its CN must be this party's name
   * @param privateKey the job's key (read by the job only)
   * @param trustedCa the CA(s) of the relay's and the peer job's certificates
   * @param flinkHome flink-run: the Flink distribution ({@code bin/flink})
   * @param jobJar flink-run: the job jar (deploy/target/psi-flink-job.jar)
   * @param flinkRestUrl flink-run: the cluster's REST URL, for progress and cancel (optional)
   * @param flinkConfDir flink-run: FLINK_CONF_DIR for {@code flink run} (optional)
   * @param attempts attempts per bin (default 3)
   * @param pairTimeout how long the job waits for the peer to open a stream (default 60 s)
   * @param idleTimeout how long the job waits for the peer to send (default 60 s)
   * @param maxBadRows how many of a table's rows may be quarantined (unreadable, NULL join key)
   *     before the job fails: a count or a percentage (default: the job's, 1%)
   * @param classpath embedded: the jars (and class directories) the party JVM runs, flink-jobs with
   *     its dependencies; the coordinator's own class path holds no Flink runtime (default: the
   *     system property {@value JvmOptions#JOB_CLASSPATH_PROPERTY}, which ./psi serve sets)
   * @param onShutdown what a coordinator that shuts down does with the jobs it runs: {@code stop}
   *     them (default; the other party's job fails too), or {@code leave} them running, to be
   *     re-attached when the coordinator starts again (a coordinator that is killed leaves them
   *     either way)
   * @param maxConcurrentJobs how many of this party's jobs run at once (default 4); further
   *     approved sessions wait in a queue, oldest first (party A's coordinator starts both jobs of
   *     a two-party session once both have a free slot)
   */
  public record Job(
      JobMode mode,
      String javaHeap,
      Integer parallelism,
      Path workDir,
      Path certificate,
      Path privateKey,
      Path trustedCa,
      Path flinkHome,
      Path jobJar,
      String flinkRestUrl,
      Path flinkConfDir,
      Integer attempts,
      Duration pairTimeout,
      Duration idleTimeout,
      String maxBadRows,
      List<Path> classpath,
      Integer maxConcurrentJobs,
      String onShutdown) {
    public Job {
      mode = mode == null ? JobMode.EMBEDDED : mode;
      javaHeap = javaHeap == null ? "2g" : javaHeap;
      parallelism = parallelism == null ? 2 : parallelism;
      workDir = workDir == null ? Path.of("work") : workDir;
      attempts = attempts == null ? 3 : attempts;
      pairTimeout = pairTimeout == null ? Duration.ofSeconds(60) : pairTimeout;
      idleTimeout = idleTimeout == null ? Duration.ofSeconds(60) : idleTimeout;
      require(privateKey, "job.privateKey");
      require(trustedCa, "job.trustedCa");
      if (mode == JobMode.FLINK_RUN) {
        require(flinkHome, "job.flinkHome (mode flink-run)");
        require(jobJar, "job.jobJar (mode flink-run)");
      }
      if (parallelism < 1 || attempts < 1) {
        throw new IllegalArgumentException("config: job.parallelism and job.attempts must be >= 1");
      }
      classpath = classpath == null ? List.of() : List.copyOf(classpath);
      maxConcurrentJobs = maxConcurrentJobs == null ? 4 : maxConcurrentJobs;
      onShutdown = onShutdown == null ? "stop" : onShutdown;
      if (!onShutdown.equals("stop") && !onShutdown.equals("leave")) {
        throw new IllegalArgumentException(
            "config: job.onShutdown must be stop or leave, not " + onShutdown);
      }
      if (maxConcurrentJobs < 1) {
        throw new IllegalArgumentException("config: job.maxConcurrentJobs must be >= 1");
      }
      if (maxBadRows != null) {
        try {
          BadRowLimit.parse(maxBadRows);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("config: job.maxBadRows: " + e.getMessage(), e);
        }
      }
    }

    /** A job section with the default number of concurrent jobs. */
    public Job(
        JobMode mode,
        String javaHeap,
        Integer parallelism,
        Path workDir,
        Path certificate,
        Path privateKey,
        Path trustedCa,
        Path flinkHome,
        Path jobJar,
        String flinkRestUrl,
        Path flinkConfDir,
        Integer attempts,
        Duration pairTimeout,
        Duration idleTimeout,
        String maxBadRows,
        List<Path> classpath) {
      this(
          mode,
          javaHeap,
          parallelism,
          workDir,
          certificate,
          privateKey,
          trustedCa,
          flinkHome,
          jobJar,
          flinkRestUrl,
          flinkConfDir,
          attempts,
          pairTimeout,
          idleTimeout,
          maxBadRows,
          classpath,
          null,
          null);
    }

    /** Whether a coordinator that shuts down leaves its jobs running (job.onShutdown: leave). */
    public boolean leavesJobs() {
      return onShutdown.equals("leave");
    }

    /** A job section whose embedded party JVM runs the default class path. */
    public Job(
        JobMode mode,
        String javaHeap,
        Integer parallelism,
        Path workDir,
        Path certificate,
        Path privateKey,
        Path trustedCa,
        Path flinkHome,
        Path jobJar,
        String flinkRestUrl,
        Path flinkConfDir,
        Integer attempts,
        Duration pairTimeout,
        Duration idleTimeout,
        String maxBadRows) {
      this(
          mode,
          javaHeap,
          parallelism,
          workDir,
          certificate,
          privateKey,
          trustedCa,
          flinkHome,
          jobJar,
          flinkRestUrl,
          flinkConfDir,
          attempts,
          pairTimeout,
          idleTimeout,
          maxBadRows,
          null);
    }

    /** A job section with the job's own bad-row limit. */
    public Job(
        JobMode mode,
        String javaHeap,
        Integer parallelism,
        Path workDir,
        Path certificate,
        Path privateKey,
        Path trustedCa,
        Path flinkHome,
        Path jobJar,
        String flinkRestUrl,
        Path flinkConfDir,
        Integer attempts,
        Duration pairTimeout,
        Duration idleTimeout) {
      this(
          mode,
          javaHeap,
          parallelism,
          workDir,
          certificate,
          privateKey,
          trustedCa,
          flinkHome,
          jobJar,
          flinkRestUrl,
          flinkConfDir,
          attempts,
          pairTimeout,
          idleTimeout,
          null);
    }

    Job relativeTo(Path dir, Path bridgeCertificate) {
      return new Job(
          mode,
          javaHeap,
          parallelism,
          dir.resolve(workDir),
          certificate == null ? bridgeCertificate : dir.resolve(certificate),
          dir.resolve(privateKey),
          dir.resolve(trustedCa),
          flinkHome == null ? null : dir.resolve(flinkHome),
          jobJar == null ? null : dir.resolve(jobJar),
          flinkRestUrl,
          flinkConfDir == null ? null : dir.resolve(flinkConfDir),
          attempts,
          pairTimeout,
          idleTimeout,
          maxBadRows,
          classpath.stream().map(dir::resolve).toList(),
          maxConcurrentJobs,
          onShutdown);
    }
  }

  /**
   * @param directory party A's joined tables go to {@code <directory>/<session id>} unless the
   *     query names an output location (default {@code results}); a local path or a URI the job's
   *     file systems know ({@code hdfs://namenode:8020/psi/results})
   * @param format avro (default) or csv
   */
  public record Output(String directory, OutputFormat format) {
    public Output {
      directory = directory == null ? "results" : directory;
      format = format == null ? OutputFormat.AVRO : format;
      if (format == OutputFormat.PARQUET) {
        throw new IllegalArgumentException(
            "config: output.format must be avro or csv, not " + format.text());
      }
    }
  }

  public record Defaults(Integer sigma, String protocol, Integer bins) {}

  public static final Duration DEFAULT_TTL = Duration.ofHours(24);
  public static final Duration DEFAULT_SWEEP = Duration.ofSeconds(5);

  /** Without job launching (the service core's shape). */
  public CoordinatorConfig(
      String party,
      Listen listen,
      Tls tls,
      Database database,
      Path tokensFile,
      Peer peer,
      Bridge bridge,
      Duration approvalTtl,
      Duration sweepInterval,
      Defaults defaults,
      List<String> protocols) {
    this(
        party,
        listen,
        tls,
        database,
        tokensFile,
        peer,
        bridge,
        approvalTtl,
        sweepInterval,
        defaults,
        protocols,
        null,
        null,
        null);
  }

  /** Two-party only: no further organisations, no providers. */
  public CoordinatorConfig(
      String party,
      Listen listen,
      Tls tls,
      Database database,
      Path tokensFile,
      Peer peer,
      Bridge bridge,
      Duration approvalTtl,
      Duration sweepInterval,
      Defaults defaults,
      List<String> protocols,
      Job job,
      Output output,
      List<Helper> helpers) {
    this(
        party,
        listen,
        tls,
        database,
        tokensFile,
        peer,
        bridge,
        approvalTtl,
        sweepInterval,
        defaults,
        protocols,
        job,
        output,
        helpers,
        null,
        null);
  }

  public CoordinatorConfig {
    require(party, "party");
    require(listen, "listen");
    require(tls, "tls");
    require(tls.certificate(), "tls.certificate");
    require(tls.privateKey(), "tls.privateKey");
    require(tls.trustedCa(), "tls.trustedCa");
    require(tokensFile, "tokensFile");
    require(peer, "peer");
    require(peer.name(), "peer.name");
    require(peer.url(), "peer.url");
    require(peer.tokenFile(), "peer.tokenFile");
    require(bridge, "bridge");
    require(bridge.endpoint(), "bridge.endpoint");
    require(bridge.certificate(), "bridge.certificate");
    if (peer.name().equals(party)) {
      throw new IllegalArgumentException("config: peer.name must differ from party");
    }
    if (database == null || database.url() == null) {
      database = new Database("jdbc:sqlite:coordinator.db", null, null);
    }
    approvalTtl = approvalTtl == null ? DEFAULT_TTL : approvalTtl;
    sweepInterval = sweepInterval == null ? DEFAULT_SWEEP : sweepInterval;
    if (approvalTtl.isNegative()
        || approvalTtl.isZero()
        || sweepInterval.isNegative()
        || sweepInterval.isZero()) {
      throw new IllegalArgumentException("config: approvalTtl and sweepInterval must be positive");
    }
    String libraryDefault = ProtocolInfo.defaultProtocol().name();
    protocols =
        protocols == null || protocols.isEmpty() ? List.of(libraryDefault) : List.copyOf(protocols);
    // Unset, the default is the library's if this party offers it, else the first it offers.
    Defaults d = defaults == null ? new Defaults(null, null, null) : defaults;
    defaults =
        new Defaults(
            d.sigma() == null ? 40 : d.sigma(),
            d.protocol() != null
                ? d.protocol()
                : protocols.contains(libraryDefault) ? libraryDefault : protocols.get(0),
            d.bins() == null ? 0 : d.bins());
    for (String p : protocols) {
      if (ProtocolInfo.find(p).isEmpty()) {
        throw new IllegalArgumentException(
            "config: protocols: unknown protocol '"
                + p
                + "' (known: "
                + ProtocolInfo.knownNames()
                + ")");
      }
    }
    if (!protocols.contains(defaults.protocol())) {
      throw new IllegalArgumentException(
          "config: defaults.protocol "
              + defaults.protocol()
              + " is not among protocols "
              + protocols);
    }
    output = output == null ? new Output(null, null) : output;
    helpers = helpers == null ? List.of() : List.copyOf(helpers);
    peers = peers == null ? List.of() : List.copyOf(peers);
    providers = providers == null ? List.of() : List.copyOf(providers);
    // one name, one organisation: a party, a helper or a provider, never two of them
    java.util.Set<String> parties = new java.util.HashSet<>(List.of(party, peer.name()));
    for (Peer p : peers) {
      require(p.name(), "peers: name");
      require(p.url(), "peers: " + p.name() + ": url");
      require(p.tokenFile(), "peers: " + p.name() + ": tokenFile");
      if (!Requests.PARTY_NAME.matcher(p.name()).matches()) {
        throw new IllegalArgumentException(
            "config: peers: name must be a certificate CN (" + Requests.PARTY_NAME.pattern() + ")");
      }
      if (!parties.add(p.name())) {
        throw new IllegalArgumentException(
            "config: peers: " + p.name() + " is this party, the peer, or listed twice");
      }
    }
    java.util.Set<String> services = new java.util.HashSet<>();
    for (Helper h : helpers) {
      if (parties.contains(h.name())) {
        throw new IllegalArgumentException(
            "config: helpers: " + h.name() + " is a party of this coordinator, not a helper");
      }
      if (!services.add(h.name())) {
        throw new IllegalArgumentException("config: helpers: " + h.name() + " is listed twice");
      }
    }
    for (Provider p : providers) {
      if (parties.contains(p.name())) {
        throw new IllegalArgumentException(
            "config: providers: " + p.name() + " is a party of this coordinator, not a provider");
      }
      if (!services.add(p.name())) {
        throw new IllegalArgumentException(
            "config: providers: " + p.name() + " is a helper too, or listed twice");
      }
    }
    if (job != null && job.certificate() == null) {
      job =
          new Job(
              job.mode(),
              job.javaHeap(),
              job.parallelism(),
              job.workDir(),
              bridge.certificate(),
              job.privateKey(),
              job.trustedCa(),
              job.flinkHome(),
              job.jobJar(),
              job.flinkRestUrl(),
              job.flinkConfDir(),
              job.attempts(),
              job.pairTimeout(),
              job.idleTimeout(),
              job.maxBadRows(),
              job.classpath(),
              job.maxConcurrentJobs(),
              job.onShutdown());
    }
  }

  private static void require(Object value, String name) {
    if (value == null) {
      throw new IllegalArgumentException("config: " + name + " is required");
    }
  }

  /** Reads a YAML config file; relative paths are taken relative to the file's directory. */
  public static CoordinatorConfig load(Path file) throws IOException {
    ObjectMapper yaml =
        new ObjectMapper(new YAMLFactory())
            .registerModule(new JavaTimeModule())
            .registerModule(Formats.jsonModule(true))
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    CoordinatorConfig c = yaml.readValue(file.toFile(), CoordinatorConfig.class);
    return c.relativeTo(file.toAbsolutePath().getParent());
  }

  /** This config with relative paths (and a relative SQLite file) resolved against {@code dir}. */
  public CoordinatorConfig relativeTo(Path dir) {
    Objects.requireNonNull(dir, "dir");
    String url = database.url();
    String prefix = "jdbc:sqlite:";
    if (url.startsWith(prefix)
        && !url.startsWith(prefix + "/")
        && !url.contains(":memory:")
        && !url.startsWith(prefix + "file:")) {
      url = prefix + dir.resolve(url.substring(prefix.length()));
    }
    return new CoordinatorConfig(
        party,
        listen,
        new Tls(
            dir.resolve(tls.certificate()),
            dir.resolve(tls.privateKey()),
            dir.resolve(tls.trustedCa())),
        new Database(url, database.user(), database.password()),
        dir.resolve(tokensFile),
        peer.relativeTo(dir),
        new Bridge(
            bridge.endpoint(),
            dir.resolve(bridge.certificate()),
            bridge.relay() == null
                ? null
                : new Relay(
                    bridge.relay().listen(),
                    dir.resolve(bridge.relay().certificate()),
                    dir.resolve(bridge.relay().privateKey()),
                    dir.resolve(bridge.relay().trustedCa()),
                    bridge.relay().pairTimeout(),
                    bridge.relay().partyCa() == null ? null : dir.resolve(bridge.relay().partyCa()),
                    bridge.relay().peerCa() == null ? null : dir.resolve(bridge.relay().peerCa()))),
        approvalTtl,
        sweepInterval,
        defaults,
        protocols,
        job == null ? null : job.relativeTo(dir, dir.resolve(bridge.certificate())),
        new Output(
            output.directory().matches("[A-Za-z][A-Za-z0-9+.-]*:.*")
                ? output.directory()
                : dir.resolve(output.directory()).toString(),
            output.format()),
        helpers,
        peers.stream().map(p -> p.relativeTo(dir)).toList(),
        providers);
  }

  /** The organisations this party joins with: the peer, then the further peers. */
  public List<Peer> organisations() {
    List<Peer> all = new java.util.ArrayList<>();
    all.add(peer);
    all.addAll(peers);
    return List.copyOf(all);
  }

  /** The organisation called {@code name} ({@link #organisations()}), if any. */
  public java.util.Optional<Peer> organisation(String name) {
    return organisations().stream().filter(p -> p.name().equals(name)).findFirst();
  }

  /** The registered provider called {@code name}, if any. */
  public java.util.Optional<Provider> provider(String name) {
    return providers.stream().filter(p -> p.name().equals(name)).findFirst();
  }

  /** The registered helper called {@code name}, if any. */
  public java.util.Optional<Helper> helper(String name) {
    return helpers.stream().filter(h -> h.name().equals(name)).findFirst();
  }
}
