package io.psiflink.helper;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.CalleeRuntime;
import io.psiflink.bridge.IncomingCall;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.PartyTrust;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.time.Duration;
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
 * The helper of the server-aided sample filter (issue 14), a dealer of correlations: listens on the
 * relay and, per session, deals random oblivious transfers, one per filter bit, to the two parties
 * (docs/security.md, "Pre-filtering with a helper"): to B a fresh seed sB of its strings m0, m1; to
 * A a fresh seed sA of its choice string σ and m_σ = m0 ⊕ σ·(m0 ⊕ m1) in full, chunk by chunk
 * ({@link CorrelationStreams} expands the seeds, helper.proto has the wire, {@link HelperClient}
 * the parties' side). It takes no data from the parties, only their signed HELLOs, so it learns the
 * session id, the names and L; it holds one chunk of the expansions at a time.
 *
 * <p>Per session it checks each party's signed HELLO (certificate chains to the configured CA, CN
 * among the allowed parties and equal to the relay-authenticated name, signature, session, role,
 * this helper's name, L ≤ the configured maximum), waits up to the session timeout for the second
 * party, checks that both HELLOs agree (each names the other, same L), and only then answers each
 * with a signed HELLO and deals: it never deals to a lone party. Any fault aborts both streams with
 * a reason that names the cause and the party at fault, never data. It logs one line per session:
 * session id, the two party names, L, outcome, duration and the bytes dealt (2^L-determined), and
 * nothing else.
 *
 * <p>A dropped Listen call (relay restart, lost connection) is logged and listened again with
 * backoff. Thread-safe; {@link #close} ends every session with "helper shutting down".
 */
public final class HelperService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HelperService.class);

  private final HelperConfig config;
  private final PartyCredentials self;
  private final Map<String, PartyTrust> partyTrust;
  private final SecureRandom random = new SecureRandom();

  /** Sessions with at least one party arrived, running or not; guarded by itself. */
  private final Map<String, Meeting> meetings = new HashMap<>();

  /** The client, threads, timer and open streams; set once started. */
  private volatile CalleeRuntime runtime;

  /** One party's verified arrival. */
  private static final class Arrival {
    final BridgeStream stream;
    final HelperWire.PartyHelloView hello;
    HelperWire.ChunkCipher cipher;

    Arrival(BridgeStream stream, HelperWire.PartyHelloView hello) {
      this.stream = stream;
      this.hello = hello;
    }

    String describe() {
      return "party " + hello.role().label() + " ('" + hello.party() + "')";
    }
  }

  /** A session at the helper: who arrived, and whether the dealing started. */
  private static final class Meeting {
    // sessions are keyed by the A-B session id alone: the parties' HELLOs bind it, and a third
    // arrival for a session that has both parties is refused
    final String session;
    final long startNanos = System.nanoTime();
    Arrival a;
    Arrival b;
    boolean started;
    ScheduledFuture<?> expiry;

    Meeting(String session) {
      this.session = session;
    }

    Arrival get(Role role) {
      return role.equals(Role.A) ? a : b;
    }

    void set(Role role, Arrival x) {
      if (role.equals(Role.A)) {
        a = x;
      } else {
        b = x;
      }
    }
  }

  /** A party broke the session; what each side is told. */
  private static final class Fault extends Exception {
    private static final long serialVersionUID = 1L;
    final transient Arrival culprit;
    final String toOther;

    Fault(Arrival culprit, String toCulprit, String toOther) {
      super(toCulprit);
      this.culprit = culprit;
      this.toOther = toOther;
    }
  }

  private HelperService(
      HelperConfig config, PartyCredentials self, Map<String, PartyTrust> partyTrust) {
    this.config = config;
    this.self = self;
    this.partyTrust = partyTrust;
  }

  /**
   * Loads the credentials, connects to the relay and listens.
   *
   * @throws BridgeException if the relay is unreachable or refuses the Listen call
   * @throws IllegalArgumentException if a credentials file is unusable (the message names it)
   */
  public static HelperService start(HelperConfig config) throws BridgeException {
    PartyCredentials self =
        PartyCredentials.load(config.certificate(), config.privateKey(), config.trustedCa());
    Map<String, PartyTrust> partyTrust = new HashMap<>();
    config.partyCas().forEach((party, ca) -> partyTrust.put(party, PartyTrust.load(ca, List.of())));
    HelperService service = new HelperService(config, self, Map.copyOf(partyTrust));
    service.runtime =
        CalleeRuntime.connect(
            self,
            config.relay().host(),
            config.relay().port(),
            config.idleTimeout(),
            "helper '" + self.partyName() + "'",
            "psi-helper");
    service.runtime.listen(service::serve);
    LOG.info(
        "helper '{}' listens on relay {} for parties {} (max filter bits {}, session timeout {},"
            + " at most {} sessions)",
        self.partyName(),
        config.relay(),
        config.allowedParties(),
        config.maxFilterBits(),
        config.sessionTimeout(),
        config.maxSessions());
    return service;
  }

  /** The helper's party name (CN of its certificate). */
  public String partyName() {
    return self.partyName();
  }

  /** Whether the Listen call is open (false while reconnecting after a drop, and after close). */
  public boolean isListening() {
    return runtime.isListening();
  }

  @Override
  public void close() {
    if (runtime.isClosed()) {
      return;
    }
    runtime.close();
    LOG.info("helper '{}' stopped", self.partyName());
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
      Role role = HelperWire.roleOfChannel(call.channel());
      if (role == null) {
        refuse(stream, call, "channel '" + call.channel() + "' is no helper channel");
        return;
      }
      byte[] frame = stream.receive();
      if (frame == null) {
        refuse(stream, call, "the stream ended before the party's HELLO");
        return;
      }
      HelperWire.PartyHelloView hello =
          HelperWire.verifyPartyHello(
              frame,
              call.session(),
              role,
              stream.peerParty(),
              self,
              config.allowedParties(),
              partyTrust,
              config.maxFilterBits());
      Meeting ready = arrive(call.session(), new Arrival(stream, hello));
      handedOver = true;
      if (ready != null) {
        deal(ready);
      }
    } catch (HelperWire.WireException e) {
      refuse(stream, call, e.getMessage());
    } catch (Refusal e) {
      refuse(stream, call, e.getMessage());
    } catch (BridgeException e) {
      LOG.info(
          "session {}: party '{}' left before its HELLO was read: {}",
          call.session(),
          stream.peerParty(),
          e.getMessage());
      stream.close();
    } finally {
      if (!handedOver) {
        runtime.release(stream);
      }
    }
  }

  /** The helper cannot take this arrival. */
  private static final class Refusal extends Exception {
    private static final long serialVersionUID = 1L;

    Refusal(String message) {
      super(message);
    }
  }

  private void refuse(BridgeStream stream, IncomingCall call, String why) {
    LOG.warn(
        "session {}: refused party '{}' on channel '{}': {}",
        call.session(),
        stream.peerParty(),
        call.channel(),
        why);
    stream.abort("helper '" + self.partyName() + "' refused: " + why);
  }

  /** Records the arrival; returns the meeting if it completes it. */
  private Meeting arrive(String session, Arrival arrival) throws Refusal {
    Role role = arrival.hello.role();
    synchronized (meetings) {
      Meeting m = meetings.get(session);
      if (m == null) {
        if (meetings.size() >= config.maxSessions()) {
          throw new Refusal(
              "the helper serves at most "
                  + config.maxSessions()
                  + " sessions at once; try again later");
        }
        m = new Meeting(session);
        Meeting created = m;
        try {
          m.expiry =
              runtime
                  .timer()
                  .schedule(
                      () -> expire(created),
                      config.sessionTimeout().toNanos(),
                      TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
          throw new Refusal("the helper is shutting down");
        }
        meetings.put(session, m);
      }
      if (m.get(role) != null || m.started) {
        throw new Refusal("party " + role.label() + " of this session has already arrived");
      }
      m.set(role, arrival);
      if (m.a != null && m.b != null) {
        m.started = true;
        m.expiry.cancel(false);
        return m;
      }
      return null;
    }
  }

  private void expire(Meeting m) {
    Arrival present;
    synchronized (meetings) {
      if (m.started || meetings.get(m.session) != m) {
        return;
      }
      meetings.remove(m.session);
      present = m.a != null ? m.a : m.b;
    }
    Role missing = present.hello.role().peer();
    String why =
        "party "
            + missing.label()
            + " ('"
            + present.hello.peer()
            + "') did not reach the helper within "
            + config.sessionTimeout();
    present.stream.abort("helper '" + self.partyName() + "': " + why);
    runtime.release(present.stream);
    logSession(m, present.hello.filterBits(), "failed: " + why, 0);
  }

  // ---- the dealing ---------------------------------------------------------------------------

  /**
   * Answers both HELLOs, then deals: B gets its seed sB, A its seed sA and m_σ chunk by chunk (m_σ
   * = m0 ⊕ σ·(m0 ⊕ m1), expanded here from both seeds one chunk at a time). Each party then
   * acknowledges by finishing its stream (A once it has every chunk), and the helper finishes both:
   * so both parties succeed or both fail, and neither takes a half-dealt session for a whole one.
   */
  private void deal(Meeting m) {
    long out = 0;
    int bits = m.a.hello.filterBits();
    String outcome = "ok";
    try {
      agree(m);
      for (Arrival x : new Arrival[] {m.a, m.b}) {
        KeyPair dh = HelperWire.x25519();
        byte[] hello =
            HelperWire.helperHello(m.session, x.hello, self, dh.getPublic().getEncoded());
        byte[] key;
        try {
          key =
              HelperWire.frameKey(
                  dh.getPrivate(), x.hello.dhPublic(), m.session, x.hello.helloBytes(), hello);
        } catch (HelperWire.WireException e) {
          throw fault(x, e.getMessage());
        }
        x.cipher = new HelperWire.ChunkCipher(key);
        Arrays.fill(key, (byte) 0);
        send(x, HelperWire.sign(self, "helper hello", m.session, hello));
      }
      out += dealTo(m, bits);
      expectEnd(m.a);
      expectEnd(m.b);
      for (Arrival x : new Arrival[] {m.a, m.b}) {
        try {
          x.stream.finish();
        } catch (BridgeException e) {
          throw fault(x, "cannot finish: " + e.getMessage());
        }
      }
      m.a.stream.close();
      m.b.stream.close();
    } catch (Fault f) {
      if (runtime.isClosed()) { // close() aborted both streams already: no party is at fault
        outcome = "failed: helper shutting down";
        return;
      }
      Arrival other = f.culprit == m.a ? m.b : m.a;
      f.culprit.stream.abort("helper '" + self.partyName() + "': " + f.getMessage());
      other.stream.abort("helper '" + self.partyName() + "': " + f.toOther);
      outcome = "failed: " + f.culprit.describe() + ": " + f.getMessage();
    } catch (RuntimeException e) {
      m.a.stream.abort("helper '" + self.partyName() + "' failed");
      m.b.stream.abort("helper '" + self.partyName() + "' failed");
      outcome = "failed in the helper: " + e;
      LOG.error("session {} failed in the helper", m.session, e);
    } finally {
      synchronized (meetings) {
        meetings.remove(m.session, m);
      }
      runtime.release(m.a.stream);
      runtime.release(m.b.stream);
      logSession(m, bits, outcome, out);
    }
  }

  /** Sends sB to B, then sA and m_σ to A; returns the plaintext bytes sent. */
  private long dealTo(Meeting m, int bits) throws Fault {
    byte[] seedA = new byte[CorrelationStreams.SEED_BYTES];
    byte[] seedB = new byte[CorrelationStreams.SEED_BYTES];
    random.nextBytes(seedA);
    random.nextBytes(seedB);
    int words = HelperClient.chunkWords(bits, 0); // the largest chunk
    long[] m0 = new long[words];
    long[] m1 = new long[words];
    long[] sigma = new long[words];
    try {
      // each seed goes only to its own party's stream, sealed under that stream's key
      send(m.b, m.b.cipher.seal(HelperWire.SEED, 0, seedB));
      send(m.a, m.a.cipher.seal(HelperWire.SEED, 0, seedA));
      long sent = 2L * CorrelationStreams.SEED_BYTES;
      CorrelationStreams ofA = new CorrelationStreams(seedA);
      CorrelationStreams ofB = new CorrelationStreams(seedB);
      int chunks = HelperClient.chunks(bits);
      for (int c = 0; c < chunks; c++) {
        int n = HelperClient.chunkWords(bits, c);
        long first = (long) c * HelperClient.CHUNK_WORDS;
        DealtAnd.deal(ofA, ofB, first, m0, m1, sigma, n); // m0 becomes m_σ
        send(m.a, m.a.cipher.seal(HelperWire.TO_PARTY, c, HelperWire.toBytes(m0, n)));
        sent += n * 8L;
      }
      return sent;
    } finally {
      Arrays.fill(seedA, (byte) 0);
      Arrays.fill(seedB, (byte) 0);
      Arrays.fill(m0, 0);
      Arrays.fill(m1, 0);
      Arrays.fill(sigma, 0);
    }
  }

  /** Both HELLOs describe the same session (the session id and helper were checked already). */
  private void agree(Meeting m) throws Fault {
    HelperWire.PartyHelloView a = m.a.hello;
    HelperWire.PartyHelloView b = m.b.hello;
    String problem = null;
    if (!a.peer().equals(b.party()) || !b.peer().equals(a.party())) {
      problem =
          "the parties do not name each other (A '"
              + a.party()
              + "' names '"
              + a.peer()
              + "', B '"
              + b.party()
              + "' names '"
              + b.peer()
              + "')";
    } else if (a.filterBits() != b.filterBits()) {
      problem =
          "the parties ask for different filter bits (L = "
              + a.filterBits()
              + " at A, "
              + b.filterBits()
              + " at B)";
    }
    if (problem != null) {
      throw new Fault(m.a, "refused: " + problem, "refused: " + problem);
    }
  }

  /** The party's acknowledgement: the end of its stream, after which it sends nothing. */
  private void expectEnd(Arrival x) throws Fault {
    try {
      if (x.stream.receive() != null) {
        throw fault(x, "sent data after its HELLO (the helper takes none)");
      }
    } catch (BridgeException e) {
      throw fault(x, "left before the end (" + e.getMessage() + ")");
    }
  }

  private void send(Arrival x, byte[] frame) throws Fault {
    try {
      x.stream.send(frame);
    } catch (BridgeException e) {
      throw fault(x, "left mid-session (" + e.getMessage() + ")");
    }
  }

  /** {@code x} is at fault: it is told why, the other party that {@code x} broke the session. */
  private static Fault fault(Arrival x, String why) {
    return new Fault(x, why, x.describe() + " broke off the session: " + why);
  }

  private void logSession(Meeting m, int bits, String outcome, long out) {
    LOG.info(
        "session {}: parties '{}' (A) and '{}' (B), L={}, {}, duration={}, bytesOut={}",
        m.session,
        m.a == null ? "-" : m.a.hello.party(),
        m.b == null ? "-" : m.b.hello.party(),
        bits,
        outcome,
        Duration.ofNanos(System.nanoTime() - m.startNanos),
        out);
  }
}
