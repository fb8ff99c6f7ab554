package io.psiflink.coordinator;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psiflink.bridge.BridgeRelay;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.PartyTrust;
import io.psiflink.bridge.RelayConfig;
import io.psiflink.bridge.SessionPins;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A running coordinator: the database, the HTTPS server and the expiry sweeper. */
public final class CoordinatorServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorServer.class);

  private final Server server;
  private final ServerConnector connector;
  private final ScheduledExecutorService sweeper;
  private final Coordinator coordinator;
  private final HttpApi api;
  private final Db db;
  private final BridgeRelay relay;

  private CoordinatorServer(
      Server server,
      ServerConnector connector,
      ScheduledExecutorService sweeper,
      Coordinator coordinator,
      HttpApi api,
      Db db,
      BridgeRelay relay) {
    this.relay = relay;
    this.server = server;
    this.connector = connector;
    this.sweeper = sweeper;
    this.coordinator = coordinator;
    this.api = api;
    this.db = db;
  }

  /** The JSON mapper of the API and of peer calls (unknown fields ignored when reading). */
  static ObjectMapper mapper() {
    return new ObjectMapper()
        .registerModule(Roles.jsonModule())
        .registerModule(Formats.jsonModule(false))
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .setSerializationInclusion(JsonInclude.Include.ALWAYS);
  }

  /** Migrates the database, starts the HTTPS server and the sweeper. */
  public static CoordinatorServer start(CoordinatorConfig config) throws Exception {
    return start(config, Clock.systemUTC());
  }

  static CoordinatorServer start(CoordinatorConfig config, Clock clock) throws Exception {
    Db db = new Db(config.database().url(), config.database().user(), config.database().password());
    db.migrate();
    Tokens tokens = Tokens.load(config.tokensFile());
    if (!config.peers().isEmpty()) {
      tokens.requirePeerLabels(
          config.organisations().stream()
              .map(CoordinatorConfig.Peer::name)
              .collect(java.util.stream.Collectors.toSet()),
          config.tokensFile().toString());
    }

    SSLContext tls =
        Tls.context(
            config.tls().certificate(), config.tls().privateKey(), config.tls().trustedCa());
    ObjectMapper json = mapper();
    Map<String, PeerClient> organisations = new java.util.HashMap<>();
    for (CoordinatorConfig.Peer p : config.organisations()) {
      organisations.put(p.name(), new PeerClient(tls, p.url(), readToken(p), json));
    }
    BridgeRelay relay = startRelay(config, db);
    Coordinator coordinator = new Coordinator(config, db, organisations, json, clock);
    HttpApi api = new HttpApi(coordinator, tokens, json);

    // room for the party's requests and the peers' calls back at once: HttpApi lets at most
    // MAX_CHANGES party changes (which call peers) hold a thread
    QueuedThreadPool threads = new QueuedThreadPool(8 * HttpApi.MAX_CHANGES, 2);
    threads.setName("coordinator-" + config.party());
    Server server = new Server(threads);
    SslContextFactory.Server ssl = new SslContextFactory.Server();
    ssl.setSslContext(tls);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    SecureRequestCustomizer secure = new SecureRequestCustomizer();
    secure.setSniHostCheck(false); // one certificate; clients may connect by IP address
    http.addCustomizer(secure);
    ServerConnector connector =
        new ServerConnector(
            server, new SslConnectionFactory(ssl, "http/1.1"), new HttpConnectionFactory(http));
    connector.setHost(config.listen().host());
    connector.setPort(config.listen().port());
    server.addConnector(connector);
    server.setHandler(api);
    server.setStopTimeout(2000);
    server.start();

    ScheduledExecutorService sweeper =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "coordinator-sweeper-" + config.party());
              t.setDaemon(true);
              return t;
            });
    long every = config.sweepInterval().toMillis();
    sweeper.scheduleWithFixedDelay(
        () -> {
          try {
            coordinator.sweep();
          } catch (RuntimeException e) {
            LOG.warn("sweep failed: {}", e.getMessage(), e);
          }
        },
        every,
        every,
        TimeUnit.MILLISECONDS);
    LOG.info(
        "coordinator of {} listening on https://{}:{}",
        config.party(),
        config.listen().host(),
        connector.getLocalPort());
    return new CoordinatorServer(server, connector, sweeper, coordinator, api, db, relay);
  }

  /**
   * The bridge relay at this party's endpoint, if configured: both jobs of a session in which this
   * party is A dial it. It admits the jobs of this party and of the peer (their certificates' CN
   * are the party names) and passes their frames on; the payload inside is sealed under keys only
   * the two jobs derive, so the relay sees no key, token or row.
   */
  private static BridgeRelay startRelay(CoordinatorConfig config, Db db) throws Exception {
    CoordinatorConfig.Relay r = config.bridge().relay();
    if (r == null) {
      return null;
    }
    int colon = r.listen().lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("config: bridge.relay.listen must be HOST:PORT");
    }
    RelayConfig rc =
        RelayConfig.defaults(
                PartyCredentials.load(r.certificate(), r.privateKey(), r.trustedCa()),
                allowedParties(config))
            .withBindHost(r.listen().substring(0, colon))
            .withPort(Integer.parseInt(r.listen().substring(colon + 1)))
            .withPartyTrust(relayTrust(config));
    if (r.pairTimeout() != null) {
      rc = rc.withPairTimeout(r.pairTimeout());
    }
    return BridgeRelay.start(rc, sessionPins(db));
  }

  /**
   * The names the relay admits: every organisation's (this party, the peer, the further peers),
   * every registered helper's and provider's (a helper or provider connects to the relay as a
   * client with its certificate, pinned by relayTrust).
   */
  static Set<String> allowedParties(CoordinatorConfig config) {
    Set<String> names = new java.util.LinkedHashSet<>();
    names.add(config.party());
    config.organisations().forEach(p -> names.add(p.name()));
    config.helpers().forEach(h -> names.add(h.name()));
    config.providers().forEach(p -> names.add(p.name()));
    return Set.copyOf(names);
  }

  /**
   * The relay's session pins: a stream of a session recorded here is admitted only with the
   * certificate the session names for its party (aFingerprint, bFingerprint; an n-party session's
   * parties' pins and its provider's), and never for a name that is not the session's; a session
   * not (yet) recorded here, e.g. while a lost decision callback waits for the sweeper, gets the CA
   * tie alone.
   */
  static SessionPins sessionPins(Db db) {
    return (session, party) -> {
      if (!Confined.isUuid(session)) {
        return null;
      }
      // an n-party session: each party's pin as the session names it, the provider's
      java.util.Optional<String> group =
          db.tx(c -> GroupStore.session(c, session))
              .map(
                  s -> {
                    String pin =
                        s.parties().stream()
                            .filter(p -> p.party().equals(party))
                            .map(Model.GroupMember::fingerprint)
                            .findFirst()
                            .orElse(null);
                    return pin != null
                        ? pin
                        : db.tx(c -> GroupStore.query(c, s.queryId()))
                            .filter(q -> q.provider().equals(party))
                            .map(Model.GroupQueryRecord::providerCertSha256)
                            .orElse(SessionPins.NOT_IN_SESSION);
                  });
      if (group.isPresent()) {
        return group.get();
      }
      return db.tx(c -> Store.session(c, session))
          .map(
              s ->
                  party.equals(s.partyA())
                      ? s.aFingerprint()
                      : party.equals(s.partyB())
                          ? s.bFingerprint()
                          : party.equals(s.prefiltering().helper())
                              ? s.prefiltering().helperCertSha256()
                              : SessionPins.NOT_IN_SESSION)
          .orElse(null);
    };
  }

  /**
   * Which certificates the relay admits for each party (both organisations' CAs are in trustedCa,
   * so the CN alone would let either CA issue the other's name): this party's own job certificate
   * (pinned) or its partyCa; the peer's peerCa, else trustedCa (with a warning).
   */
  static Map<String, PartyTrust> relayTrust(CoordinatorConfig config) {
    CoordinatorConfig.Relay r = config.bridge().relay();
    Path ownJob = config.job() != null ? config.job().certificate() : config.bridge().certificate();
    PartyTrust own = PartyTrust.load(r.partyCa(), List.of(Tls.fingerprint(ownJob)));
    if (r.peerCa() == null) {
      LOG.warn(
          "bridge.relay.peerCa is not set: the relay admits a certificate with CN {} from any"
              + " CA in {}; set it to {}'s CA",
          config.peer().name(),
          r.trustedCa(),
          config.peer().name());
    }
    PartyTrust peer = PartyTrust.load(r.peerCa() != null ? r.peerCa() : r.trustedCa(), List.of());
    Map<String, PartyTrust> trust = new java.util.HashMap<>();
    trust.put(config.party(), own);
    trust.put(config.peer().name(), peer);
    for (CoordinatorConfig.Peer p : config.peers()) {
      if (p.jobCa() == null) {
        LOG.warn(
            "peers: {} has no jobCa: the relay admits a certificate with CN {} from any CA in {}",
            p.name(),
            p.name(),
            r.trustedCa());
      }
      trust.put(
          p.name(), PartyTrust.load(p.jobCa() != null ? p.jobCa() : r.trustedCa(), List.of()));
    }
    // a helper or provider speaks only with the very certificate the coordinators registered
    config.helpers().forEach(h -> trust.put(h.name(), PartyTrust.pinned(List.of(h.certSha256()))));
    config
        .providers()
        .forEach(p -> trust.put(p.name(), PartyTrust.pinned(List.of(p.certSha256()))));
    return Map.copyOf(trust);
  }

  private static String readToken(CoordinatorConfig.Peer peer) throws IOException {
    String t = Files.readString(peer.tokenFile(), StandardCharsets.UTF_8).strip();
    if (t.isEmpty()) {
      throw new IllegalArgumentException(
          "the token file of " + peer.name() + ", " + peer.tokenFile() + ", is empty");
    }
    return t;
  }

  /** The port the server listens on (useful when configured as 0). */
  public int port() {
    return connector.getLocalPort();
  }

  /** Runs one expiry/poll pass now (tests; the sweeper runs it periodically). */
  void sweepNow() {
    coordinator.sweep();
  }

  List<HttpApi.Route> routes() {
    return api.routes();
  }

  Db db() {
    return db;
  }

  /** Blocks until the server stops. */
  public void join() throws InterruptedException {
    server.join();
  }

  /** The bridge relay's port (null when this coordinator runs none). */
  public Integer relayPort() {
    return relay == null ? null : relay.port();
  }

  @Override
  public void close() throws Exception {
    sweeper.shutdownNow();
    try {
      server.stop();
    } finally {
      coordinator.close();
      if (relay != null) {
        relay.close();
      }
    }
  }
}
