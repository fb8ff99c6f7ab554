package io.psiflink.provider;

import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.BridgeTimeoutException;
import io.psiflink.bridge.CalleeRuntime;
import io.psiflink.bridge.HelloCrypto;
import io.psiflink.bridge.HelloCrypto.Rejected;
import io.psiflink.bridge.IncomingCall;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.nativepsi.Aead;
import io.psiflink.nativepsi.PsiException;
import io.psiflink.nativepsi.PsiParams;
import io.psiflink.nativepsi.PsiPhase;
import io.psiflink.nativepsi.PsiRole;
import io.psiflink.nativepsi.PsiSession;
import io.psiflink.provider.proto.v1.BinHello;
import java.nio.ByteBuffer;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outsourcing provider of the multiparty join (issue 15): listens on the relay and runs the
 * provider's side of the native mpsi protocol for the n parties of a session, once for the
 * session's setup and once per run of a bin (provider.proto has the wire, {@link ProviderClient}
 * and {@link ProviderLink} the parties' side). It holds no set and learns the public facts only:
 * the session id, the party names, n, the bins' set sizes, the traffic and the timing.
 *
 * <p>A setup: each party's signed HELLO is checked (certificate chains to the configured CA, CN
 * equal to the relay-authenticated name, among the allowed parties and at its index of the party
 * list, signature, session, this provider's name, n within 2..maxParties); the provider waits up to
 * the session timeout for all n, checks that their HELLOs agree (party list, parameters), answers
 * each with its signed HELLO (X25519: one link key per party) and runs the setup rounds. It keeps
 * the session (the link keys, the setup) until it was idle for sessionIdle.
 *
 * <p>A bin: each party's sealed BIN_HELLO; once all n arrived (within the session timeout) and
 * agree on the attempt, the set size is the largest demand (at most maxSetSize), each party gets
 * BIN_START and the online rounds run: the parties' messages read round-robin frame by frame, the
 * provider's broadcast chunk by chunk, sealed per party. Bins of a session run concurrently, one
 * thread each.
 *
 * <p>A party that breaks a run (leaves, stays silent for the idle timeout, sends what does not open
 * or what the native protocol refuses) fails that run: every party's stream is aborted with a
 * reason that names the party at fault. Log lines: one per session setup and one per session end
 * (bins served, bytes), plus refusals and failed runs; party names and public sizes only.
 * Thread-safe; {@link #close} ends every session with "provider shutting down".
 */
public final class ProviderService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProviderService.class);
  private static final byte[] NO_NONCE = new byte[0];

  private final ProviderConfig config;
  private final PartyCredentials self;
  private final String me;
  private final SecureRandom random = new SecureRandom();

  /** The client, threads, timer and open streams; set once started. */
  private volatile CalleeRuntime runtime;

  /** Setups and bins waiting for their parties, and the sessions set up; guarded by itself. */
  private final Map<String, Meeting> meetings = new HashMap<>();

  private final Map<String, Session> sessions = new HashMap<>();

  /** A session set up: what its bins need, and what its end-of-session line counts. */
  private static final class Session {
    final String id;
    final List<String> parties;
    final String params;
    final byte[][] linkKeys;
    final byte[] setup;
    final long startNanos = System.nanoTime();
    long lastUsedNanos = startNanos;
    int running;
    long binsServed;
    long binsFailed;
    long bytesIn;
    long bytesOut;

    Session(String id, List<String> parties, String params, byte[][] linkKeys, byte[] setup) {
      this.id = id;
      this.parties = parties;
      this.params = params;
      this.linkKeys = linkKeys;
      this.setup = setup;
    }

    void wipe() {
      for (byte[] k : linkKeys) {
        Arrays.fill(k, (byte) 0);
      }
    }
  }

  /**
   * One party's verified arrival at a setup (its {@code hello}) or a bin (its attempt, demand and
   * nonce).
   */
  private record Arrival(
      BridgeStream stream,
      int index,
      String name,
      SealedLink link,
      ProviderWire.PartyHelloView hello,
      int attempt,
      long demand,
      byte[] nonce) {
    static Arrival setup(BridgeStream stream, ProviderWire.PartyHelloView hello, SealedLink link) {
      return new Arrival(stream, hello.index(), hello.party(), link, hello, 0, 0, NO_NONCE);
    }

    String describe() {
      return ProviderWire.describe(index, name);
    }
  }

  /** A setup (bin -1) or a bin waiting for its n parties, or running. */
  private static final class Meeting {
    final String key;
    final String session;
    final int bin;
    final List<String> parties;
    final String params;
    final Arrival[] slots;
    final long startNanos = System.nanoTime();
    int present;
    boolean started;
    ScheduledFuture<?> expiry;

    Meeting(String session, int bin, List<String> parties, String params) {
      this.key = key(session, bin);
      this.session = session;
      this.bin = bin;
      this.parties = parties;
      this.params = params;
      this.slots = new Arrival[parties.size()];
    }

    static String key(String session, int bin) {
      return bin + "/" + session;
    }

    String what() {
      return bin < 0 ? "the setup of session " + session : "bin " + bin + " of session " + session;
    }

    List<Arrival> arrived() {
      List<Arrival> out = new ArrayList<>();
      for (Arrival a : slots) {
        if (a != null) {
          out.add(a);
        }
      }
      return out;
    }
  }

  /** A run broke; {@code culprit} is the party at fault, or -1 (none, or the provider). */
  private static final class Fault extends Exception {
    private static final long serialVersionUID = 1L;
    final int culprit;

    Fault(int culprit, String message) {
      super(message);
      this.culprit = culprit;
    }
  }

  private ProviderService(ProviderConfig config, PartyCredentials self) {
    this.config = config;
    this.self = self;
    this.me = "provider '" + self.partyName() + "'";
  }

  /**
   * Loads the credentials, connects to the relay and listens.
   *
   * @throws BridgeException if the relay is unreachable or refuses the Listen call
   * @throws IllegalArgumentException if a credentials file is unusable (the message names it)
   * @throws java.io.UncheckedIOException if a credentials file cannot be read
   */
  public static ProviderService start(ProviderConfig config) throws BridgeException {
    PartyCredentials self =
        PartyCredentials.load(config.certificate(), config.privateKey(), config.trustedCa());
    ProviderService service = new ProviderService(config, self);
    service.runtime =
        CalleeRuntime.connect(
            self,
            config.relay().host(),
            config.relay().port(),
            config.idleTimeout(),
            service.me,
            "psi-provider");
    service.runtime.listen(service::serve);
    long sweep = Math.max(50, Math.min(60_000, config.sessionIdle().toMillis() / 4));
    service
        .runtime
        .timer()
        .scheduleWithFixedDelay(service::endIdleSessions, sweep, sweep, TimeUnit.MILLISECONDS);
    LOG.info(
        "{} listens on relay {} for parties {} (at most {} parties and set size {}, session"
            + " timeout {}, idle timeout {}, at most {} sessions, kept {} after their last bin)",
        service.me,
        config.relay(),
        new java.util.TreeSet<>(config.allowedParties()),
        config.maxParties(),
        config.maxSetSize(),
        config.sessionTimeout(),
        config.idleTimeout(),
        config.maxSessions(),
        config.sessionIdle());
    return service;
  }

  /** The provider's party name (CN of its certificate). */
  public String partyName() {
    return self.partyName();
  }

  /**
   * Whether the Listen call is open (false while listening again after a drop, and after close).
   */
  public boolean isListening() {
    return runtime.isListening();
  }

  /** The sessions set up and not yet ended. */
  public int sessionCount() {
    synchronized (meetings) {
      return sessions.size();
    }
  }

  @Override
  public void close() {
    if (runtime.isClosed()) {
      return;
    }
    runtime.close();
    List<Session> left;
    synchronized (meetings) {
      left = new ArrayList<>(sessions.values());
      sessions.clear();
      meetings.clear();
    }
    for (Session s : left) {
      logEnd(s, "provider shutting down");
    }
    LOG.info("{} stopped", me);
  }

  // ---- one party's arrival -------------------------------------------------------------------

  private void serve(IncomingCall call) {
    BridgeStream stream;
    try {
      stream = runtime.accept(call);
    } catch (BridgeException | RuntimeException e) {
      LOG.warn(
          "session {}: cannot open the stream '{}' called for: {}",
          call.session(),
          call.caller(),
          e.getMessage());
      return;
    }
    boolean handedOver = false;
    try {
      ProviderWire.Channel channel = ProviderWire.parseChannel(call.channel());
      if (channel == null) {
        throw new Rejected(
            "channel " + HelloCrypto.quoted(call.channel()) + " is no provider channel");
      }
      handedOver = channel.bin() < 0 ? arriveSetup(stream, channel) : arriveBin(stream, channel);
    } catch (Rejected e) {
      refuse(stream, e.getMessage());
    } catch (BridgeException e) {
      LOG.info(
          "session {}: party '{}' left before its first frame was read: {}",
          call.session(),
          stream.peerParty(),
          HelloCrypto.quoted(e.getMessage(), 300));
      stream.close();
    } catch (RuntimeException e) {
      LOG.error("session {}: the provider failed on a party's arrival", call.session(), e);
      stream.abort(me + " failed");
    } finally {
      if (!handedOver) {
        runtime.release(stream);
      }
    }
  }

  private void refuse(BridgeStream stream, String why) {
    LOG.warn(
        "session {}: refused party '{}' on channel '{}': {}",
        stream.session(),
        stream.peerParty(),
        stream.channel(),
        why);
    stream.abort(me + " refused: " + why);
  }

  /** The first frame of a party's stream, read with the idle timeout. */
  private static byte[] firstFrame(BridgeStream stream, String what)
      throws BridgeException, Rejected {
    byte[] f = stream.receive();
    if (f == null) {
      throw new Rejected("the stream ended before the party's " + what);
    }
    return f;
  }

  /** A party's setup HELLO; returns whether the stream was handed to a meeting. */
  private boolean arriveSetup(BridgeStream stream, ProviderWire.Channel channel)
      throws BridgeException, Rejected {
    String session = stream.session();
    ProviderWire.PartyHelloView h =
        ProviderWire.verifyPartyHello(
            firstFrame(stream, "HELLO"),
            session,
            channel.index(),
            stream.peerParty(),
            self,
            config.allowedParties(),
            config.maxParties());
    Arrival a = Arrival.setup(stream, h, new SealedLink(stream, -1, 0, false, null, h.describe()));
    Meeting ready;
    Meeting broken = null;
    List<Arrival> replaced = new ArrayList<>();
    synchronized (meetings) {
      if (sessions.containsKey(session)) {
        throw new Rejected(
            "session "
                + session
                + " is set up already (its setup is kept until it was idle for "
                + config.sessionIdle()
                + ")");
      }
      String key = Meeting.key(session, -1);
      Meeting m = meetings.get(key);
      if (m == null) {
        if (sessions.size() + setupsWaiting() >= config.maxSessions()) {
          throw new Rejected(
              "the provider serves at most "
                  + config.maxSessions()
                  + " sessions at once; try again later");
        }
        m = open(new Meeting(session, -1, h.parties(), h.params()));
      }
      if (!m.parties.equals(h.parties()) || !m.params.equals(h.params())) {
        meetings.remove(m.key, m);
        m.started = true; // nobody else joins it
        m.expiry.cancel(false);
        broken = m;
        ready = null;
      } else {
        ready = place(m, a, replaced);
      }
    }
    supersede(replaced);
    if (broken != null) {
      disagree(broken, a);
    } else if (ready != null) {
      runSetup(ready);
    }
    return true;
  }

  /** A party's bin stream and its BIN_HELLO; returns whether it was handed to a meeting. */
  private boolean arriveBin(BridgeStream stream, ProviderWire.Channel channel)
      throws BridgeException, Rejected {
    String id = stream.session();
    Session s;
    synchronized (meetings) {
      s = sessions.get(id);
    }
    if (s == null) {
      throw new Rejected(
          "session "
              + id
              + " has no setup at this provider (never set up, or idle for longer than "
              + config.sessionIdle()
              + ")");
    }
    int i = channel.index();
    if (i >= s.parties.size() || !s.parties.get(i).equals(stream.peerParty())) {
      throw new Rejected(
          "the relay authenticated '"
              + stream.peerParty()
              + "' on the channel of P"
              + (i + 1)
              + ", which is not that party's in session "
              + id);
    }
    String who = ProviderWire.describe(i, s.parties.get(i));
    byte[] f = firstFrame(stream, "BIN_HELLO");
    int prefix = 4 + ProviderWire.NONCE_BYTES;
    if (f.length <= prefix + Aead.TAG_BYTES) {
      throw new Rejected(
          who
              + " sent a first frame of "
              + f.length
              + " bytes, not an attempt, a nonce and a"
              + " sealed BIN_HELLO");
    }
    int attempt = ByteBuffer.wrap(f).getInt();
    byte[] nonce = Arrays.copyOfRange(f, 4, prefix);
    SealedLink link =
        new SealedLink(stream, channel.bin(), attempt, false, null, who).withKey(s.linkKeys[i]);
    boolean handed = false;
    try {
      link.keyIn(nonce, NO_NONCE);
      BinHello h = ProviderWire.parseBinHello(link.open(f, prefix));
      if (h.getBin() != channel.bin() || h.getAttempt() != attempt || attempt < 0) {
        throw new Rejected(who + "'s BIN_HELLO is for another bin or attempt than its stream's");
      }
      long demand = h.getSetSizeDemand();
      if (demand < 1 || demand >= ProviderWire.NATIVE_SET_SIZE_LIMIT) {
        throw new Rejected(
            who
                + " asks for set size "
                + Long.toUnsignedString(demand)
                + ", not 1.."
                + (ProviderWire.NATIVE_SET_SIZE_LIMIT - 1));
      }
      Arrival a = new Arrival(stream, i, s.parties.get(i), link, null, attempt, demand, nonce);
      Meeting ready;
      List<Arrival> replaced = new ArrayList<>();
      synchronized (meetings) {
        if (sessions.get(id) != s) {
          throw new Rejected("session " + id + " ended while " + who + " arrived");
        }
        Meeting m = meetings.get(Meeting.key(id, channel.bin()));
        if (m == null) {
          m = open(new Meeting(id, channel.bin(), s.parties, s.params));
        }
        ready = place(m, a, replaced);
        if (ready != null) {
          s.running++;
        }
        s.lastUsedNanos = System.nanoTime();
      }
      handed = true;
      supersede(replaced);
      if (ready != null) {
        runBin(ready, s);
      }
      return true;
    } finally {
      if (!handed) {
        link.close();
      }
    }
  }

  /** Registers a new meeting with its expiry; under the lock. */
  private Meeting open(Meeting m) throws Rejected {
    try {
      m.expiry =
          runtime
              .timer()
              .schedule(() -> expire(m), config.sessionTimeout().toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      throw new Rejected("the provider is shutting down");
    }
    meetings.put(m.key, m);
    return m;
  }

  private int setupsWaiting() {
    int n = 0;
    for (Meeting m : meetings.values()) {
      n += m.bin < 0 ? 1 : 0;
    }
    return n;
  }

  /**
   * Takes the arrival into its slot (an earlier arrival of the same party, whose stream the relay
   * superseded, goes to {@code replaced}); returns the meeting if it is now complete. Under the
   * lock.
   */
  private Meeting place(Meeting m, Arrival a, List<Arrival> replaced) throws Rejected {
    if (m.started) {
      throw new Rejected(m.what() + " is running already");
    }
    Arrival old = m.slots[a.index];
    if (old != null) {
      replaced.add(old);
    } else {
      m.present++;
    }
    m.slots[a.index] = a;
    if (m.present < m.slots.length) {
      return null;
    }
    m.started = true;
    m.expiry.cancel(false);
    return m;
  }

  private void supersede(List<Arrival> replaced) {
    for (Arrival old : replaced) {
      old.stream.abort(me + ": superseded by a newer arrival of " + old.describe());
      old.link.close();
      runtime.release(old.stream);
    }
  }

  /** The setup's first HELLO and {@code a}'s disagree: everyone is told, nobody is served. */
  private void disagree(Meeting m, Arrival a) {
    Arrival first = m.arrived().isEmpty() ? a : m.arrived().get(0);
    String why =
        "the parties disagree on the session: "
            + first.describe()
            + " names parties "
            + first.hello.parties()
            + " and parameters "
            + HelloCrypto.quoted(first.hello.params(), 100)
            + ", "
            + a.describe()
            + " names "
            + a.hello.parties()
            + " and "
            + HelloCrypto.quoted(a.hello.params(), 100);
    List<Arrival> all = m.arrived();
    all.add(a);
    for (Arrival x : all) {
      x.stream.abort(me + " refused: " + why);
      x.link.close();
      runtime.release(x.stream);
    }
    LOG.warn("session {}: setup refused: {}", m.session, why);
  }

  private void expire(Meeting m) {
    List<Arrival> present;
    synchronized (meetings) {
      if (m.started || meetings.get(m.key) != m) {
        return;
      }
      meetings.remove(m.key);
      present = m.arrived();
    }
    List<String> missing = new ArrayList<>();
    for (int i = 0; i < m.slots.length; i++) {
      if (m.slots[i] == null) {
        missing.add(ProviderWire.describe(i, m.parties.get(i)));
      }
    }
    String why =
        String.join(", ", missing)
            + " did not reach "
            + me
            + " within "
            + config.sessionTimeout()
            + " for "
            + m.what()
            + " ("
            + present.size()
            + " of "
            + m.slots.length
            + " parties arrived)";
    for (Arrival a : present) {
      a.stream.abort(me + ": " + why);
      a.link.close();
      runtime.release(a.stream);
    }
    if (m.bin >= 0) {
      synchronized (meetings) {
        Session s = sessions.get(m.session);
        if (s != null) {
          s.binsFailed++;
        }
      }
    }
    LOG.warn("{} failed: {}", m.what(), why);
  }

  // ---- a session's setup ---------------------------------------------------------------------

  /**
   * Answers the n HELLOs (one link key per party), runs the setup rounds, and keeps the session
   * once every party sent its DONE; then answers DONE, so that a party's setup succeeds only when
   * the session's bins can run.
   */
  private void runSetup(Meeting m) {
    Arrival[] a = m.slots;
    int n = a.length;
    byte[][] keys = new byte[n][];
    Session kept = null;
    String outcome = "ok";
    try {
      try (PsiSession s = provider(n, 1, null, m.params)) {
        for (Arrival x : a) {
          KeyPair dh = HelloCrypto.x25519();
          byte[] hello =
              ProviderWire.providerHello(m.session, x.hello, self, dh.getPublic().getEncoded());
          try {
            keys[x.index] =
                ProviderWire.linkKey(
                    dh.getPrivate(), x.hello.dhPublic(), m.session, x.hello.helloBytes(), hello);
          } catch (Rejected e) {
            throw new Fault(x.index, e.getMessage());
          }
          sendRaw(x, ProviderWire.sign(self, "provider hello", m.session, hello));
          x.link.withKey(keys[x.index]).keySetup();
        }
        rounds(s, PsiPhase.SETUP, a);
        receiveDone(a);
        kept = new Session(m.session, m.parties, m.params, keys, s.exportSetup());
      }
      synchronized (meetings) {
        if (runtime.isClosed()) {
          throw new Fault(-1, me + " is shutting down");
        }
        sessions.put(m.session, kept);
      }
      sendDone(a);
      LOG.info(
          "session {}: set up for parties {} (n={}), parameters '{}', duration={}, bytesIn={},"
              + " bytesOut={}",
          m.session,
          m.parties,
          n,
          m.params,
          Duration.ofNanos(System.nanoTime() - m.startNanos),
          bytes(a, true),
          bytes(a, false));
    } catch (Fault f) {
      outcome = fail(m, f);
    } catch (RuntimeException e) {
      outcome = failInternally(m, e);
    } finally {
      synchronized (meetings) {
        meetings.remove(m.key, m);
        // A session whose end was cut short by close() stays for close() to end and log, whichever
        // of the two takes the lock first.
        if (!outcome.equals("ok") && kept != null && !runtime.isClosed()) {
          sessions.remove(m.session, kept);
        }
      }
      if (kept == null || !outcome.equals("ok")) {
        for (byte[] k : keys) {
          if (k != null) {
            Arrays.fill(k, (byte) 0);
          }
        }
      }
      release(a);
    }
  }

  // ---- a bin ---------------------------------------------------------------------------------

  /**
   * Checks that the n parties agree on the attempt, takes the largest demand as the set size,
   * answers BIN_START and runs the online rounds; DONE both ways at the end.
   */
  private void runBin(Meeting m, Session session) {
    Arrival[] a = m.slots;
    String outcome = "ok";
    try {
      int attempt = a[0].attempt;
      int largest = 0;
      for (Arrival x : a) {
        if (x.attempt != attempt) {
          throw new Fault(
              -1, "the parties disagree on the attempt of bin " + m.bin + ": " + attempts(a));
        }
        largest = x.demand > a[largest].demand ? x.index : largest;
      }
      long setSize = a[largest].demand;
      if (setSize > config.maxSetSize()) {
        throw new Fault(
            largest,
            "asks for set size "
                + setSize
                + ", more than this provider's maximum "
                + config.maxSetSize());
      }
      byte[] providerNonce = new byte[ProviderWire.NONCE_BYTES];
      random.nextBytes(providerNonce);
      List<byte[]> nonces = new ArrayList<>();
      for (Arrival x : a) {
        nonces.add(x.nonce);
      }
      byte[] instance =
          ProviderWire.instance(m.session, m.bin, attempt, setSize, providerNonce, nonces);
      try (PsiSession s = provider(a.length, setSize, instance, m.params)) {
        s.importSetup(session.setup);
        byte[] start = ProviderWire.binStart(setSize, nonces);
        for (Arrival x : a) {
          x.link.keyIn(x.nonce, providerNonce);
          x.link.keyOut(x.nonce, providerNonce);
          sendRaw(x, x.link.seal(providerNonce, start, 0, start.length));
        }
        rounds(s, PsiPhase.ONLINE, a);
      }
      receiveDone(a);
      sendDone(a);
    } catch (Fault f) {
      outcome = fail(m, f);
    } catch (RuntimeException e) {
      outcome = failInternally(m, e);
    } finally {
      synchronized (meetings) {
        meetings.remove(m.key, m);
        session.running--;
        session.lastUsedNanos = System.nanoTime();
        if (outcome.equals("ok")) {
          session.binsServed++;
        } else {
          session.binsFailed++;
        }
        session.bytesIn += bytes(a, true);
        session.bytesOut += bytes(a, false);
      }
      release(a);
    }
  }

  private static String attempts(Arrival[] a) {
    List<String> out = new ArrayList<>();
    for (Arrival x : a) {
      out.add(x.describe() + " " + x.attempt);
    }
    return String.join(", ", out);
  }

  // ---- the rounds ----------------------------------------------------------------------------

  /**
   * The provider's side of {@code phase}: each round the parties own is read from the n streams
   * round-robin, a frame at a time, so that no party's sending waits long behind another's; each
   * round it owns is emitted chunk by chunk, every chunk sealed for and sent to each party.
   */
  private void rounds(PsiSession s, PsiPhase phase, Arrival[] a) throws Fault {
    byte[] frame = Rounds.frameBuffer();
    int rounds = s.roundCount(phase);
    for (int r = 0; r < rounds; r++) {
      int round = r;
      if (s.isMine(phase, r)) {
        try {
          Rounds.emit(
              s,
              phase,
              r,
              frame,
              (f, len) -> {
                for (Arrival x : a) {
                  try {
                    x.link.send(f, 0, len);
                  } catch (BridgeException e) {
                    throw left(x, phase + " round " + round, e);
                  }
                }
              });
        } catch (PsiException e) {
          throw new Fault(
              -1,
              me
                  + "'s native mpsi session failed in "
                  + phase
                  + " round "
                  + r
                  + ": "
                  + e.getMessage());
        }
      } else if (r + 1 < rounds) {
        gather(s, phase, r, a);
      }
    }
  }

  /** Feeds every party's message of round {@code r} into round r + 1, round-robin by frames. */
  private void gather(PsiSession s, PsiPhase phase, int r, Arrival[] a) throws Fault {
    boolean[] done = new boolean[a.length];
    for (int left = a.length; left > 0; ) {
      for (Arrival x : a) {
        if (done[x.index]) {
          continue;
        }
        byte[] f = receive(x, phase + " round " + r);
        if (f == null) {
          throw new Fault(x.index, "ended its stream in " + phase + " round " + r);
        }
        boolean last;
        try {
          last = Rounds.chunk(f, phase, r, x.describe());
        } catch (Rejected e) {
          throw new Fault(x.index, e.getMessage());
        }
        try {
          s.feedFrom(
              phase,
              r + 1,
              x.index,
              f,
              ProviderWire.PSI_HEADER,
              f.length - ProviderWire.PSI_HEADER,
              last);
        } catch (PsiException e) {
          throw new Fault(
              x.index,
              "sent a " + phase + " round " + r + " message mpsi refuses: " + e.getMessage());
        }
        if (last) {
          done[x.index] = true;
          left--;
        }
      }
    }
  }

  private void receiveDone(Arrival[] a) throws Fault {
    for (Arrival x : a) {
      try {
        ProviderWire.expectDone(receive(x, "its DONE"), x.describe());
      } catch (Rejected e) {
        throw new Fault(x.index, e.getMessage());
      }
    }
  }

  /** DONE to every party, the end of each stream, and each party's end. */
  private void sendDone(Arrival[] a) throws Fault {
    for (Arrival x : a) {
      try {
        x.link.send(ProviderWire.done());
        x.stream.finish();
      } catch (BridgeException e) {
        throw left(x, "the end", e);
      }
    }
    for (Arrival x : a) {
      if (receive(x, "the end of its stream") != null) {
        throw new Fault(x.index, "sent more after its DONE");
      }
      x.stream.close();
    }
  }

  /** The next opened frame of {@code x}, or null at its end. */
  private byte[] receive(Arrival x, String during) throws Fault {
    try {
      return x.link.receive();
    } catch (BridgeException e) {
      throw left(x, during, e);
    } catch (Rejected e) {
      throw new Fault(x.index, e.getMessage());
    }
  }

  private void sendRaw(Arrival x, byte[] frame) throws Fault {
    try {
      x.link.sendRaw(frame);
    } catch (BridgeException e) {
      throw left(x, "the start", e);
    }
  }

  /** {@code x}'s stream failed: it timed out (silent) or the party left. */
  private Fault left(Arrival x, String during, BridgeException e) {
    if (e instanceof BridgeTimeoutException) {
      return new Fault(
          x.index, "kept the provider waiting for " + config.idleTimeout() + " in " + during);
    }
    return new Fault(
        x.index, "left in " + during + " (" + HelloCrypto.quoted(e.getMessage(), 200) + ")");
  }

  // ---- the end of a run ----------------------------------------------------------------------

  /** Aborts every stream: the culprit with the cause, the others naming the culprit. */
  private String fail(Meeting m, Fault f) {
    if (runtime.isClosed()) { // close() aborted every stream already: no party is at fault
      return "failed: provider shutting down";
    }
    String culprit = f.culprit >= 0 ? m.slots[f.culprit].describe() : null;
    String why = culprit == null ? f.getMessage() : culprit + ": " + f.getMessage();
    for (Arrival x : m.slots) {
      x.stream.abort(
          me
              + ": "
              + (culprit == null || x.index == f.culprit
                  ? why
                  : culprit + " broke off " + m.what() + ": " + f.getMessage()));
    }
    LOG.warn("{} failed: {}", m.what(), why);
    return "failed: " + why;
  }

  private String failInternally(Meeting m, RuntimeException e) {
    for (Arrival x : m.slots) {
      x.stream.abort(me + " failed");
    }
    LOG.error("{} failed in the provider", m.what(), e);
    return "failed in the provider: " + e;
  }

  private void release(Arrival[] a) {
    for (Arrival x : a) {
      x.link.close();
      runtime.release(x.stream);
    }
  }

  private static long bytes(Arrival[] a, boolean in) {
    long sum = 0;
    for (Arrival x : a) {
      sum += in ? x.stream.bytesReceived() : x.stream.bytesSent();
    }
    return sum;
  }

  /** The provider's native session of a setup ({@code instance} null) or a bin. */
  private PsiSession provider(int parties, long setSize, byte[] instance, String params)
      throws Fault {
    PsiParams p = ProviderWire.sessionParams(parties, -1, setSize, instance, params);
    try {
      return PsiSession.create(ProviderWire.PROTOCOL, PsiRole.PROVIDER, p);
    } catch (PsiException e) {
      throw new Fault(
          -1,
          "the session's parameters are refused by "
              + ProviderWire.PROTOCOL
              + ": "
              + HelloCrypto.quoted(e.getMessage(), 300));
    }
  }

  // ---- sessions' ends ------------------------------------------------------------------------

  private void endIdleSessions() {
    List<Session> ended = new ArrayList<>();
    long now = System.nanoTime();
    synchronized (meetings) {
      sessions
          .values()
          .removeIf(
              s -> {
                boolean idle =
                    s.running == 0 && now - s.lastUsedNanos > config.sessionIdle().toNanos();
                if (idle) {
                  ended.add(s);
                }
                return idle;
              });
    }
    for (Session s : ended) {
      logEnd(s, "idle for " + config.sessionIdle());
    }
  }

  private void logEnd(Session s, String why) {
    s.wipe();
    LOG.info(
        "session {}: ended ({}): parties {} (n={}), bins served={}, failed={}, duration={},"
            + " bytesIn={}, bytesOut={}",
        s.id,
        why,
        s.parties,
        s.parties.size(),
        s.binsServed,
        s.binsFailed,
        Duration.ofNanos(System.nanoTime() - s.startNanos),
        s.bytesIn,
        s.bytesOut);
  }
}
