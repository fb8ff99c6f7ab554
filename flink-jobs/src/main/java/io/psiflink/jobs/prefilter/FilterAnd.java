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
 * "Pre-filtering with a helper"). A: per chunk send e = x ⊕ σ (needs only σ's seed, so up to {@link
 * #AHEAD} chunks ahead), and per chunk of m_σ ({@link #chunk}) read w, compute c = x · (w ⊕ m_σ)
 * and send it. B: once its seed is known ({@link #seed}), answer each e with w = y ⊕ m_{1⊕e} and
 * check each c ⊆ y, in the order they come. Sending ahead keeps the link busy both ways instead of
 * one round trip per chunk. Every frame from the peer is checked (type, order, length; c against
 * y); a failure is thrown as {@link Failure}, unchecked, because these run as the helper client's
 * callbacks. Not thread-safe.
 */
final class FilterAnd {
  /** Frame types of the stream: A's e, B's w, A's c (each one chunk of words). */
  static final byte E = 1;

  static final byte W = 2;
  static final byte C = 3;

  private static final String[] NAMES = {"", "e", "w", "c"};

  /**
   * A's e frames sent before it reads the w of the first of them. B answers every e at once, so up
   * to AHEAD + 1 of its w frames wait for A: no more than the stream's inbound window holds
   * (ClientStream.INBOUND_WINDOW), so B never blocks on them while A is still sending.
   */
  static final int AHEAD = 3;

  private final SealedBinStream stream;
  private final long[] filter;
  private final int filterBits;
  private final Role role;
  private final long[] a = new long[HelperClient.CHUNK_WORDS];
  private final long[] b = new long[HelperClient.CHUNK_WORDS];
  private CorrelationStreams streams;
  private final int chunks;
  private int done;
  private int eDone;
  private long sent;
  private long received;

  FilterAnd(SealedBinStream stream, long[] filter, int filterBits, Role role) {
    this.stream = stream;
    this.filter = filter;
    this.filterBits = filterBits;
    this.role = role;
    this.chunks = HelperClient.chunks(filterBits);
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

  /** This party's dealt seed: A sends its first e frames; B runs its whole side now. */
  void seed(HelperClient.Dealt dealt) {
    streams = dealt.streams();
    try {
      if (role.equals(Role.B)) {
        runB();
      } else {
        sendE(Math.min(chunks, AHEAD));
      }
    } catch (BridgeException | PeerProtocolException e) {
      throw new Failure(e);
    }
  }

  /** A, chunk c of m_σ: read w, compute c = x · (w ⊕ m_σ), send it; x becomes c. */
  void chunk(int c, long[] mSigma) {
    try {
      int len = HelperClient.chunkWords(filterBits, c);
      int off = c * HelperClient.CHUNK_WORDS;
      if (streams == null || c != done || mSigma.length < len || !role.equals(Role.A)) {
        throw new IllegalStateException("chunk " + c + " of m_σ came out of order");
      }
      sendE(Math.min(chunks, c + 1 + AHEAD));
      long[] w = read(W, c, len);
      long[] x = slice(off, len);
      DealtAnd.open(w, x, mSigma, len); // w = c = x · (w ⊕ m_σ)
      send(C, w, len);
      System.arraycopy(w, 0, filter, off, len);
      done++;
    } catch (BridgeException | PeerProtocolException e) {
      throw new Failure(e);
    }
  }

  /** A: sends e = x ⊕ σ of the chunks before {@code upTo} not yet sent. */
  private void sendE(int upTo) throws BridgeException {
    for (; eDone < upTo; eDone++) {
      int len = HelperClient.chunkWords(filterBits, eDone);
      int off = eDone * HelperClient.CHUNK_WORDS;
      streams.expand(CorrelationStreams.SIGMA, off, a, len);
      DealtAnd.maskChoice(a, slice(off, len), len); // a = e = x ⊕ σ
      send(E, a, len);
    }
  }

  /**
   * B: answers each e with w and checks each c ⊆ y (y becomes c), in A's order: c of a chunk only
   * after its e, each kind in chunk order.
   */
  private void runB() throws BridgeException, PeerProtocolException {
    while (done < chunks) {
      byte[] f = stream.receive();
      boolean e = f != null && f.length > 0 && f[0] == E && eDone < chunks;
      boolean c = f != null && f.length > 0 && f[0] == C && done < eDone;
      int chunk = e ? eDone : done;
      int len = HelperClient.chunkWords(filterBits, chunk);
      if (!(e || c) || f.length != 1 + 8 * len) {
        String expected =
            done == eDone
                ? NAMES[E] + " of chunk " + eDone
                : NAMES[C]
                    + " of chunk "
                    + done
                    + (eDone < chunks ? " (or e of chunk " + eDone + ")" : "");
        throw new PeerProtocolException(
            f == null
                ? "party A ended the prefilter stream before its " + expected
                : "party A sent a frame of type "
                    + (f.length > 0 ? f[0] : -1)
                    + " and "
                    + Math.max(0, f.length - 1)
                    + " bytes where its "
                    + (e || c
                        ? NAMES[f[0]] + " of chunk " + chunk + " (" + 8 * len + " bytes)"
                        : expected)
                    + " belongs");
      }
      received += f.length;
      long[] words = words(f, len);
      int off = chunk * HelperClient.CHUNK_WORDS;
      long[] y = slice(off, len);
      if (e) {
        streams.expand(CorrelationStreams.M0, off, a, len);
        streams.expand(CorrelationStreams.M1, off, b, len);
        DealtAnd.answer(words, y, a, b, len); // words = w
        send(W, words, len);
        eDone++;
      } else {
        int bad = DealtAnd.firstOutside(words, y, len);
        if (bad >= 0) {
          throw new PeerProtocolException(
              "party A's AND of chunk "
                  + chunk
                  + " sets bits that B's filter does not have (word "
                  + bad
                  + "): not x AND y");
        }
        System.arraycopy(words, 0, filter, off, len);
        done++;
      }
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
    return words(f, len);
  }

  private static long[] words(byte[] f, int len) {
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
