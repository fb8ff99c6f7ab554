package io.psiflink.jobs.prefilter;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeTimeoutException;
import io.psiflink.helper.CorrelationStreams;
import io.psiflink.helper.DealtAnd;
import io.psiflink.helper.HelperClient;
import io.psiflink.jobs.psi.PeerProtocolException;
import io.psiflink.jobs.psi.SealedBinStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.IntFunction;

/**
 * One party's side of the pre-filter's AND with the peer's job, chunk by chunk of {@link
 * HelperClient#CHUNK_WORDS} words, the filter f changed in place to x · y (docs/security.md,
 * "Pre-filtering with a helper"). One random OT per filter bit, dealt by the helper: the party
 * whose filter is ready first, the chooser ({@link PrefilterPlan#chooser}), sends e = f ⊕ r for its
 * whole filter ({@link #sendChoices}), which the other party, the sender, takes in while it still
 * reads its table ({@link #receiveChoices}, on {@link PrefilterPrefetch}'s stream). Once the
 * sender's filter is ready it answers each e with w = f ⊕ n_{1⊕e}; the chooser computes c = f · (w
 * ⊕ m_r) = x · y and sends it, and the sender checks c ⊆ f ({@link #run}, on the exchange's
 * stream). So once the later filter is ready, one filter's worth of bits crosses each way at the
 * same time.
 *
 * <p>A chooses with the helper's (r, m_r) = (σ, m_σ) and answers with (n0, n1) = (m_σ, m_σ ⊕ σ); B
 * chooses with (m0 ⊕ m1, m0) and answers with (m0, m1) ({@link DealtAnd}: a random OT reversed is a
 * random OT). Every frame from the peer is checked (type, order, length; c against the sender's
 * filter). Not thread-safe.
 */
final class FilterAnd {
  /** Frame types: the chooser's e (on the choices' stream), the sender's w, the chooser's c. */
  static final byte E = 1;

  static final byte W = 2;
  static final byte C = 3;

  private static final String[] NAMES = {"", "e", "w", "c"};

  /**
   * The sender's w frames sent before it reads the c of the first of them. The chooser answers
   * every w at once, so up to AHEAD + 1 of its c frames wait for the sender: no more than the
   * stream's inbound window holds (ClientStream.INBOUND_WINDOW), so the chooser never blocks on
   * them while the sender is still sending.
   */
  static final int AHEAD = 3;

  private final long[] filter;
  private final int filterBits;
  private final Role role;
  private final boolean chooser;
  private final int chunks;
  private final CorrelationStreams streams;
  private final IntFunction<long[]> mSigma;

  private int done;
  private long sent;
  private long received;

  /**
   * @param filter this party's filter, complete; becomes x · y
   * @param chooser the party that chooses ({@link PrefilterPlan#chooser})
   * @param dealt this party's seed from the helper
   * @param mSigma at A, chunk c of m_σ (handed over: this class may change it); unused at B
   */
  FilterAnd(
      long[] filter,
      int filterBits,
      Role role,
      Role chooser,
      HelperClient.Dealt dealt,
      IntFunction<long[]> mSigma) {
    this.filter = filter;
    this.filterBits = filterBits;
    this.role = role;
    this.chooser = role.equals(chooser);
    this.chunks = HelperClient.chunks(filterBits);
    this.streams = dealt.streams();
    this.mSigma = mSigma;
  }

  /** The chunks done so far. */
  int done() {
    return done;
  }

  /** Frame bytes sent to and received from the peer (type byte and words), on both streams. */
  long sent() {
    return sent;
  }

  long received() {
    return received;
  }

  /** Whether this party chooses (sends e and c) rather than answers (w). */
  boolean chooses() {
    return chooser;
  }

  /** The chooser: e = f ⊕ r of every chunk. */
  void sendChoices(SealedBinStream stream) throws BridgeException {
    if (!chooser) {
      throw new IllegalStateException("only the chooser sends choices");
    }
    for (int c = 0; c < chunks; c++) {
      int len = HelperClient.chunkWords(filterBits, c);
      long[] e = choice(c, len);
      DealtAnd.maskChoice(e, slice(c, len), len); // e = f ⊕ r
      sent += send(stream, E, e, len);
    }
  }

  /**
   * The sender: the chooser's e of every chunk (2^L bits), waiting up to {@code waits} idle
   * timeouts for the first while the chooser still reads its table.
   */
  static long[][] receiveChoices(SealedBinStream stream, int filterBits, Role role, int waits)
      throws BridgeException, PeerProtocolException {
    long[][] choices = new long[HelperClient.chunks(filterBits)][];
    for (int c = 0; c < choices.length; c++) {
      choices[c] = read(stream, E, c, filterBits, role, c == 0 ? waits : 1);
    }
    return choices;
  }

  /**
   * The rest once this party's filter is complete: the chooser reads each w and sends c = f · (w ⊕
   * m_r); the sender answers each of {@code choices} with w and checks each c ⊆ f, {@link #AHEAD}
   * chunks behind.
   *
   * @param choices the chooser's e ({@link #receiveChoices}) at the sender; null at the chooser
   */
  void run(SealedBinStream stream, long[][] choices) throws BridgeException, PeerProtocolException {
    if (chooser != (choices == null)) {
      throw new IllegalStateException("the sender answers the choices; the chooser has none");
    }
    if (chooser) {
      for (int c = 0; c < chunks; c++) {
        int len = HelperClient.chunkWords(filterBits, c);
        long[] w = read(stream, W, c, 1);
        DealtAnd.open(w, slice(c, len), chosen(c, len), len); // w = c = f · (w ⊕ m_r)
        sent += send(stream, C, w, len);
        System.arraycopy(w, 0, filter, c * HelperClient.CHUNK_WORDS, len);
        done++;
      }
      return;
    }
    for (long[] e : choices) {
      received += 1 + 8L * e.length; // taken in earlier, on the choices' stream
    }
    for (int c = 0; c < chunks; c++) {
      int len = HelperClient.chunkWords(filterBits, c);
      long[][] n = messages(c, len);
      long[] w = choices[c];
      choices[c] = null;
      DealtAnd.answer(w, slice(c, len), n[0], n[1], len); // w = f ⊕ n_{1⊕e}
      sent += send(stream, W, w, len);
      if (c >= AHEAD) {
        check(stream, c - AHEAD);
      }
    }
    while (done < chunks) {
      check(stream, done);
    }
  }

  /** The sender: c of chunk {@code c} must lie within this party's filter; f becomes c. */
  private void check(SealedBinStream stream, int c) throws BridgeException, PeerProtocolException {
    int len = HelperClient.chunkWords(filterBits, c);
    long[] words = read(stream, C, c, 1);
    int bad = DealtAnd.firstOutside(words, slice(c, len), len);
    if (bad >= 0) {
      throw new PeerProtocolException(
          "party "
              + role.peer().label()
              + "'s AND of chunk "
              + c
              + " sets bits that "
              + role.label()
              + "'s filter does not have (word "
              + bad
              + "): not x AND y");
    }
    System.arraycopy(words, 0, filter, c * HelperClient.CHUNK_WORDS, len);
    done++;
  }

  /** A copy of chunk c of the filter. */
  private long[] slice(int c, int len) {
    long[] s = new long[len];
    System.arraycopy(filter, c * HelperClient.CHUNK_WORDS, s, 0, len);
    return s;
  }

  private long[] read(SealedBinStream stream, byte type, int c, int waits)
      throws BridgeException, PeerProtocolException {
    long[] words = read(stream, type, c, filterBits, role, waits);
    received += 1 + 8L * words.length;
    return words;
  }

  private static int send(SealedBinStream stream, byte type, long[] words, int len)
      throws BridgeException {
    byte[] body = new byte[1 + 8 * len];
    body[0] = type;
    ByteBuffer.wrap(body, 1, 8 * len)
        .order(ByteOrder.LITTLE_ENDIAN)
        .asLongBuffer()
        .put(words, 0, len);
    stream.send(body);
    return body.length;
  }

  /** The peer's frame of {@code type} for chunk c, waiting up to {@code waits} idle timeouts. */
  private static long[] read(
      SealedBinStream stream, byte type, int c, int filterBits, Role role, int waits)
      throws BridgeException, PeerProtocolException {
    int len = HelperClient.chunkWords(filterBits, c);
    String what = NAMES[type] + " of chunk " + c;
    byte[] f;
    for (int wait = 1; ; wait++) {
      try {
        f = stream.receive();
        break;
      } catch (BridgeTimeoutException e) {
        if (wait >= waits) {
          throw e;
        }
      }
    }
    if (f == null) {
      throw new PeerProtocolException(
          "party " + role.peer().label() + " ended the prefilter stream before its " + what);
    }
    if (f.length == 0 || f[0] != type || f.length != 1 + 8 * len) {
      throw new PeerProtocolException(
          "party "
              + role.peer().label()
              + " sent a frame of type "
              + (f.length > 0 ? f[0] : -1)
              + " and "
              + Math.max(0, f.length - 1)
              + " bytes where its "
              + what
              + " ("
              + 8 * len
              + " bytes) belongs");
    }
    long[] words = new long[len];
    ByteBuffer.wrap(f, 1, 8 * len).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(words);
    return words;
  }

  // ---- this party's strings of the dealt OTs, per chunk ---------------------------------------

  private long[] expand(int stream, int c, int len) {
    long[] out = new long[len];
    streams.expand(stream, (long) c * HelperClient.CHUNK_WORDS, out, len);
    return out;
  }

  /** The chooser's r: σ at A, m0 ⊕ m1 at B. */
  private long[] choice(int c, int len) {
    if (role.equals(Role.A)) {
      return expand(CorrelationStreams.SIGMA, c, len);
    }
    long[] r = expand(CorrelationStreams.M1, c, len);
    DealtAnd.reverseChooser(expand(CorrelationStreams.M0, c, len), r, len);
    return r;
  }

  /** The chooser's m_r: m_σ at A, m0 at B. */
  private long[] chosen(int c, int len) {
    return role.equals(Role.A) ? dealt(c, len) : expand(CorrelationStreams.M0, c, len);
  }

  /** The sender's (n0, n1): (m_σ, m_σ ⊕ σ) at A, (m0, m1) at B. */
  private long[][] messages(int c, int len) {
    if (role.equals(Role.A)) {
      long[] n0 = dealt(c, len);
      long[] n1 = expand(CorrelationStreams.SIGMA, c, len);
      DealtAnd.reverseSender(n0, n1, len);
      return new long[][] {n0, n1};
    }
    return new long[][] {
      expand(CorrelationStreams.M0, c, len), expand(CorrelationStreams.M1, c, len)
    };
  }

  private long[] dealt(int c, int len) {
    long[] words = mSigma.apply(c);
    if (words == null || words.length < len) {
      throw new IllegalStateException("chunk " + c + " of m_σ is missing");
    }
    return words;
  }
}
