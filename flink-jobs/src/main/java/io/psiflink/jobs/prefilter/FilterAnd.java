package io.psiflink.jobs.prefilter;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeException;
import io.psiflink.helper.CorrelationStreams;
import io.psiflink.helper.DealtAnd;
import io.psiflink.helper.HelperClient;
import io.psiflink.jobs.psi.PeerProtocolException;
import io.psiflink.jobs.psi.SealedBinStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One party's side of the pre-filter's AND over its stream with the peer's job, chunk by chunk of
 * {@link HelperClient#CHUNK_WORDS} words, the filter changed in place to x · y (docs/security.md,
 * "Pre-filtering with a helper"). A: per chunk of m_σ ({@link #chunk}) send e = x ⊕ σ, read w,
 * compute c = x · (w ⊕ m_σ) and send it. B: once its seed is known ({@link #seed}), per chunk read
 * e, send w = y ⊕ m_{1⊕e}, read c and check c ⊆ y. Every frame from the peer is checked (type,
 * length; c against y); a failure is thrown as {@link Failure}, unchecked, because these run as the
 * helper client's callbacks. Not thread-safe.
 */
final class FilterAnd {
  /** Frame types of the stream: A's e, B's w, A's c (each one chunk of words). */
  static final byte E = 1;

  static final byte W = 2;
  static final byte C = 3;

  private static final String[] NAMES = {"", "e", "w", "c"};

  private final SealedBinStream stream;
  private final long[] filter;
  private final int filterBits;
  private final Role role;
  private final long[] a = new long[HelperClient.CHUNK_WORDS];
  private final long[] b = new long[HelperClient.CHUNK_WORDS];
  private CorrelationStreams streams;
  private int done;
  private long sent;
  private long received;

  FilterAnd(SealedBinStream stream, long[] filter, int filterBits, Role role) {
    this.stream = stream;
    this.filter = filter;
    this.filterBits = filterBits;
    this.role = role;
  }

  /** The chunks done so far. */
  int done() {
    return done;
  }

  /** Frame bytes sent to and received from the peer (type byte and words). */
  long sent() {
    return sent;
  }

  long received() {
    return received;
  }

  /** This party's dealt seed: A keeps σ's expansion; B runs its whole side now. */
  void seed(HelperClient.Dealt dealt) {
    streams = dealt.streams();
    if (role.equals(Role.B)) {
      runB();
    }
  }

  /** A, chunk c of m_σ: send e, read w, compute c = x · (w ⊕ m_σ), send it; x becomes c. */
  void chunk(int c, long[] mSigma) {
    try {
      int len = HelperClient.chunkWords(filterBits, c);
      int off = c * HelperClient.CHUNK_WORDS;
      if (streams == null || c != done || mSigma.length < len || !role.equals(Role.A)) {
        throw new IllegalStateException("chunk " + c + " of m_σ came out of order");
      }
      long[] x = slice(off, len);
      streams.expand(CorrelationStreams.SIGMA, off, a, len);
      DealtAnd.maskChoice(a, x, len); // a = e = x ⊕ σ
      send(E, a, len);
      long[] w = read(W, c, len);
      DealtAnd.open(w, x, mSigma, len); // w = c = x · (w ⊕ m_σ)
      send(C, w, len);
      System.arraycopy(w, 0, filter, off, len);
      done++;
    } catch (BridgeException | PeerProtocolException e) {
      throw new Failure(e);
    }
  }

  /** B: per chunk read e, answer w, read c and check c ⊆ y; y becomes c. */
  private void runB() {
    try {
      for (int c = 0; c < HelperClient.chunks(filterBits); c++) {
        int len = HelperClient.chunkWords(filterBits, c);
        int off = c * HelperClient.CHUNK_WORDS;
        long[] y = slice(off, len);
        long[] e = read(E, c, len);
        streams.expand(CorrelationStreams.M0, off, a, len);
        streams.expand(CorrelationStreams.M1, off, b, len);
        DealtAnd.answer(e, y, a, b, len); // e = w
        send(W, e, len);
        long[] and = read(C, c, len);
        int bad = DealtAnd.firstOutside(and, y, len);
        if (bad >= 0) {
          throw new PeerProtocolException(
              "party A's AND of chunk "
                  + c
                  + " sets bits that B's filter does not have (word "
                  + bad
                  + "): not x AND y");
        }
        System.arraycopy(and, 0, filter, off, len);
        done++;
      }
    } catch (BridgeException | PeerProtocolException e) {
      throw new Failure(e);
    }
  }

  /** A copy of the filter's words [off, off + len). */
  private long[] slice(int off, int len) {
    long[] s = new long[len];
    System.arraycopy(filter, off, s, 0, len);
    return s;
  }

  private void send(byte type, long[] words, int len) throws BridgeException {
    byte[] body = new byte[1 + 8 * len];
    body[0] = type;
    ByteBuffer.wrap(body, 1, 8 * len)
        .order(ByteOrder.LITTLE_ENDIAN)
        .asLongBuffer()
        .put(words, 0, len);
    stream.send(body);
    sent += body.length;
  }

  private long[] read(byte type, int c, int len) throws BridgeException, PeerProtocolException {
    byte[] f = stream.receive();
    String what = NAMES[type] + " of chunk " + c;
    if (f == null) {
      throw new PeerProtocolException(
          "party " + role.peer().label() + " ended the prefilter stream before its " + what);
    }
    if (f[0] != type || f.length != 1 + 8 * len) {
      throw new PeerProtocolException(
          "party "
              + role.peer().label()
              + " sent a frame of type "
              + f[0]
              + " and "
              + (f.length - 1)
              + " bytes where its "
              + what
              + " ("
              + 8 * len
              + " bytes) belongs");
    }
    received += f.length;
    long[] words = new long[len];
    ByteBuffer.wrap(f, 1, 8 * len).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(words);
    return words;
  }

  /** A failure inside a callback of the helper's client, carried out of it unchecked. */
  static final class Failure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Failure(Exception cause) {
      super(cause.getMessage(), cause);
    }
  }
}
