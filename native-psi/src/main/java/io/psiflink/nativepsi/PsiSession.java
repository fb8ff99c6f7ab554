package io.psiflink.nativepsi;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Objects;

/**
 * One native PSI session: one party's side of one protocol run (one bin), or of the setup shared by
 * many bins.
 *
 * <p>Round semantics (see {@code psi_native.h}): each round of a phase belongs to exactly one party
 * ({@link #isMine}). The owner of round {@code r} feeds the message the peer emitted in round
 * {@code r-1} — any number of {@code feed(..., last=false)} calls followed by exactly one {@code
 * feed(..., last=true)}; for {@code r == 0} only that last call, with length 0 — and then emits the
 * message for round {@code r+1} with {@link #emit} until {@link EmitResult#done()}. The last round
 * emits an empty message. The test kit {@code RoundDriver} does this for two sessions in one JVM.
 *
 * <pre>{@code
 * try (PsiSession s = PsiSession.create("kkrt", PsiRole.RECEIVER, params)) {
 *   s.setInput(tokens, count, 16);
 *   ... feed / emit the rounds ...
 *   long[] mine = s.resultIndices();
 * }
 * }</pre>
 *
 * <p>Every native status other than OK throws {@link PsiException} carrying the status and the
 * native explanation. After any status other than {@link PsiStatus#ARGUMENT} the native session is
 * failed: close it and start a new attempt. Calls after {@link #close()} throw {@link
 * IllegalStateException}.
 *
 * <p><b>Not thread-safe</b>: use a session from one thread at a time. Different sessions may be
 * used concurrently from different threads. Feed and emit go through one native transfer buffer per
 * session (at most {@value #MAX_TRANSFER_BYTES} bytes, allocated on first use), so the byte[] paths
 * do not allocate per call; the {@link ByteBuffer} paths with direct buffers copy nothing.
 */
public final class PsiSession implements AutoCloseable {
  /** Length of the randomness seed the native API takes. */
  public static final int SEED_BYTES = 32;

  /** Largest native transfer buffer; longer byte[] feeds and emits are split into pieces. */
  public static final int MAX_TRANSFER_BYTES = 1 << 20;

  private static final int MIN_TRANSFER_BYTES = 4096;
  private static final int ERROR_BUFFER_BYTES = 1024;
  private final String protocol;
  private final PsiRole role;
  private final PsiParams params;
  // The native session; null once closed. No Cleaner: a cleaner could free the session while a
  // native call on it is still running once the Java object looks unreachable. Close it.
  private Pointer session;
  // Out-parameters of native calls: 8 bytes for size_t/uint64 and 4 bytes for uint32/int.
  private final Memory scratch = new Memory(16);
  private final Pointer out64 = scratch.share(0, 8);
  private final Pointer out32 = scratch.share(8, 4);
  private Memory transfer;
  private boolean setupImported;

  private PsiSession(String protocol, PsiRole role, PsiParams params, Pointer session) {
    this.protocol = protocol;
    this.role = role;
    this.params = params;
    this.session = session;
  }

  /** Creates a session seeded from a fresh {@link SecureRandom}. */
  public static PsiSession create(String protocol, PsiRole role, PsiParams params) {
    byte[] seed = new byte[SEED_BYTES];
    new SecureRandom().nextBytes(seed);
    return create(protocol, role, params, seed);
  }

  /**
   * Creates a session.
   *
   * @param protocol a protocol name of {@link ProtocolInfo#all()}, e.g. {@code "kkrt"}
   * @param role this party's role
   * @param params protocol parameters
   * @param seed {@value #SEED_BYTES} bytes of fresh randomness; all of the session's randomness is
   *     derived from it (tests pass fixed seeds to be reproducible)
   * @throws PsiException with {@link PsiStatus#ARGUMENT} for an unknown protocol, role or parameter
   */
  public static PsiSession create(String protocol, PsiRole role, PsiParams params, byte[] seed) {
    Objects.requireNonNull(protocol, "protocol");
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(params, "params");
    Objects.requireNonNull(seed, "seed");
    PointerByReference out = new PointerByReference();
    byte[] err = new byte[ERROR_BUFFER_BYTES];
    int rc =
        PsiNative.psi_session_create(
            protocol, role.code(), params.toString(), seed, seed.length, out, err, err.length);
    if (rc != 0) {
      throw new PsiException(statusOf(rc), cString(err));
    }
    Pointer session = out.getValue();
    if (session == null) {
      throw new PsiException(PsiStatus.INTERNAL, "psi_session_create returned OK and no session");
    }
    return new PsiSession(protocol, role, params, session);
  }

  /** The native library's version string, e.g. {@code "psi-native 0.1.0 (abi 1)"}. */
  public static String libraryVersion() {
    return PsiNative.psi_version();
  }

  /** The protocol name this session was created with. */
  public String protocol() {
    return protocol;
  }

  /** This party's role. */
  public PsiRole role() {
    return role;
  }

  /** The parameters this session was created with. */
  public PsiParams params() {
    return params;
  }

  /** Whether {@link #importSetup} succeeded, so the setup rounds are skipped. */
  public boolean isSetupImported() {
    return setupImported;
  }

  /** Whether {@link #close()} was called. */
  public boolean isClosed() {
    return session == null;
  }

  /** Number of rounds of a phase (the same for both parties). */
  public int roundCount(PsiPhase phase) {
    check(PsiNative.psi_round_count(open(), phase.code(), out32));
    int count = out32.getInt(0);
    if (count < 0) {
      throw new PsiException(
          PsiStatus.INTERNAL, "round count out of range: " + Integer.toUnsignedString(count));
    }
    return count;
  }

  /** Whether this party owns (feeds and emits) round {@code round} of {@code phase}. */
  public boolean isMine(PsiPhase phase, int round) {
    check(PsiNative.psi_round_is_mine(open(), phase.code(), round, out32));
    return out32.getInt(0) != 0;
  }

  /**
   * Sets this party's elements: {@code count} elements of {@code elementLen} bytes each, back to
   * back. Results are indices into this array.
   *
   * @throws IllegalArgumentException if {@code contiguous.length != count * elementLen}
   * @throws PsiException {@link PsiStatus#INPUT} for a wrong count or duplicate elements
   */
  public void setInput(byte[] contiguous, long count, int elementLen) {
    Objects.requireNonNull(contiguous, "contiguous");
    long bytes = inputBytes(count, elementLen, contiguous.length);
    Pointer s = open();
    // Copy through native memory (wiped afterwards) rather than a pinned array: one call per bin.
    try (Memory m = new Memory(Math.max(1, bytes))) {
      m.write(0, contiguous, 0, (int) bytes);
      try {
        check(PsiNative.psi_set_input(s, m, count, elementLen));
      } finally {
        m.clear();
      }
    }
  }

  /**
   * Sets this party's elements from a direct buffer: its remaining bytes are {@code count} elements
   * of {@code elementLen} bytes each. The buffer's position is not changed.
   *
   * @throws IllegalArgumentException if the buffer is not direct or its remaining size is not
   *     {@code count * elementLen}
   */
  public void setInput(ByteBuffer contiguous, long count, int elementLen) {
    Objects.requireNonNull(contiguous, "contiguous");
    if (!contiguous.isDirect()) {
      throw new IllegalArgumentException("setInput(ByteBuffer) needs a direct buffer");
    }
    inputBytes(count, elementLen, contiguous.remaining());
    check(PsiNative.psi_set_input(open(), addressOf(contiguous), count, elementLen));
    Reference.reachabilityFence(contiguous); // a direct buffer's memory lives as long as the object
  }

  /**
   * Feeds {@code len} bytes of the peer's message to round {@code round}. Pass {@code last=true}
   * exactly once per round, on the final piece (its length may be 0).
   */
  public void feed(PsiPhase phase, int round, byte[] buf, int off, int len, boolean last) {
    Objects.requireNonNull(phase, "phase");
    feedPieces(
        buf,
        off,
        len,
        last,
        (s, t, piece, lastPiece) ->
            PsiNative.psi_round_feed(s, phase.code(), round, t, piece, lastPiece));
  }

  /** One native feed call: (session, transfer buffer, bytes in it, last piece 0/1) -> status. */
  @FunctionalInterface
  private interface FeedCall {
    int feed(Pointer session, Memory transfer, int piece, int last);
  }

  /** Copies buf[off, off+len) through the transfer buffer, one native call per piece. */
  private void feedPieces(byte[] buf, int off, int len, boolean last, FeedCall call) {
    Objects.requireNonNull(buf, "buf");
    Objects.checkFromIndexSize(off, len, buf.length);
    Pointer s = open();
    Memory t = transferBuffer(len);
    int cap = (int) t.size();
    do {
      int piece = Math.min(len, cap);
      if (piece > 0) {
        t.write(0, buf, off, piece);
      }
      off += piece;
      len -= piece;
      check(call.feed(s, t, piece, last && len == 0 ? 1 : 0));
    } while (len > 0);
    Reference.reachabilityFence(t); // native code used its address; keep it alive until here
  }

  /**
   * Multiparty protocols, on the provider's session: feeds {@code len} bytes of party {@code
   * peer}'s message to round {@code round} ({@code psi_round_feed_from}). The parties' messages may
   * come in any order, interleaved by pieces; pass {@code last=true} once per party, on its final
   * piece. The round's {@link #emit} may start when every party's message is complete, and its
   * message goes unchanged to every party.
   */
  public void feedFrom(
      PsiPhase phase, int round, int peer, byte[] buf, int off, int len, boolean last) {
    Objects.requireNonNull(phase, "phase");
    feedPieces(
        buf,
        off,
        len,
        last,
        (s, t, piece, lastPiece) ->
            PsiNative.psi_round_feed_from(s, phase.code(), round, peer, t, piece, lastPiece));
  }

  /**
   * Multiparty protocols, on a party's session: the 32-byte secret the parties of a run share with
   * each other and with nobody else, never with the provider ({@code psi_set_group_secret}); before
   * the first online round.
   */
  public void setGroupSecret(byte[] secret) {
    Objects.requireNonNull(secret, "secret");
    check(PsiNative.psi_set_group_secret(open(), secret, secret.length));
  }

  /** Feeds a whole array; see {@link #feed(PsiPhase, int, byte[], int, int, boolean)}. */
  public void feed(PsiPhase phase, int round, byte[] buf, boolean last) {
    feed(phase, round, buf, 0, buf.length, last);
  }

  /**
   * Feeds the remaining bytes of {@code src} and advances its position. Direct buffers go to the
   * native side without a copy.
   */
  public void feed(PsiPhase phase, int round, ByteBuffer src, boolean last) {
    Objects.requireNonNull(src, "src");
    if (!src.isDirect()) {
      feedHeap(phase, round, src, last);
      return;
    }
    int len = src.remaining();
    check(PsiNative.psi_round_feed(open(), phase.code(), round, addressOf(src), len, last ? 1 : 0));
    Reference.reachabilityFence(src);
    src.position(src.position() + len);
  }

  /**
   * Emits the next piece of the message round {@code round} produces, at most {@code len} bytes
   * into {@code buf} from {@code off}. Call until {@link EmitResult#done()}; the call that reports
   * done may also write bytes.
   */
  public EmitResult emit(PsiPhase phase, int round, byte[] buf, int off, int len) {
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(buf, "buf");
    Objects.checkFromIndexSize(off, len, buf.length);
    Pointer s = open();
    Memory t = transferBuffer(len);
    int cap = (int) Math.min(len, t.size());
    check(PsiNative.psi_round_emit(s, phase.code(), round, t, cap, out64, out32));
    long written = out64.getLong(0);
    boolean done = out32.getInt(0) != 0;
    if (written < 0 || written > cap) {
      throw new PsiException(
          PsiStatus.INTERNAL,
          "psi_round_emit wrote " + Long.toUnsignedString(written) + " bytes into " + cap);
    }
    if (written > 0) {
      t.read(0, buf, off, (int) written);
    }
    Reference.reachabilityFence(t);
    return new EmitResult((int) written, done);
  }

  /** Emits into the whole array; see {@link #emit(PsiPhase, int, byte[], int, int)}. */
  public EmitResult emit(PsiPhase phase, int round, byte[] buf) {
    return emit(phase, round, buf, 0, buf.length);
  }

  /**
   * Emits into the remaining space of {@code dst} and advances its position. Direct buffers are
   * written by the native side without a copy.
   */
  public EmitResult emit(PsiPhase phase, int round, ByteBuffer dst) {
    Objects.requireNonNull(dst, "dst");
    if (!dst.isDirect()) {
      return emitHeap(phase, round, dst);
    }
    int cap = dst.remaining();
    check(PsiNative.psi_round_emit(open(), phase.code(), round, addressOf(dst), cap, out64, out32));
    long written = out64.getLong(0);
    if (written < 0 || written > cap) {
      throw new PsiException(
          PsiStatus.INTERNAL,
          "psi_round_emit wrote " + Long.toUnsignedString(written) + " bytes into " + cap);
    }
    Reference.reachabilityFence(dst);
    dst.position(dst.position() + (int) written);
    return new EmitResult((int) written, out32.getInt(0) != 0);
  }

  /**
   * Serialises this party's completed setup. The bytes are secret key material: store them like a
   * key. {@link #importSetup} loads them into a fresh session of the same protocol and role.
   */
  public byte[] exportSetup() {
    Pointer s = open();
    check(PsiNative.psi_setup_export(s, null, 0, out64));
    long len = out64.getLong(0);
    if (len < 0 || len > Integer.MAX_VALUE - 8) {
      throw new PsiException(
          PsiStatus.INTERNAL, "setup export too large: " + Long.toUnsignedString(len));
    }
    byte[] out = new byte[(int) len];
    check(PsiNative.psi_setup_export(s, out, out.length, out64));
    if (out64.getLong(0) != len) {
      throw new PsiException(
          PsiStatus.INTERNAL,
          "setup export length changed from "
              + len
              + " to "
              + Long.toUnsignedString(out64.getLong(0)));
    }
    return out;
  }

  /**
   * Loads a setup exported by a session of the same protocol and role; the setup rounds are then
   * skipped.
   */
  public void importSetup(byte[] setup) {
    Objects.requireNonNull(setup, "setup");
    check(PsiNative.psi_setup_import(open(), setup, setup.length));
    setupImported = true;
  }

  /** After the last online round: how many of this party's elements are in the intersection. */
  public long resultSize() {
    check(PsiNative.psi_result_size(open(), out64));
    return out64.getLong(0);
  }

  /**
   * After the last online round: indices into this party's input of the intersecting elements,
   * ascending.
   */
  public long[] resultIndices() {
    long size = resultSize();
    if (size < 0 || size > Integer.MAX_VALUE - 8) {
      throw new PsiException(
          PsiStatus.INTERNAL, "result too large for a Java array: " + Long.toUnsignedString(size));
    }
    long[] out = new long[(int) size];
    check(PsiNative.psi_result_indices(open(), out, out.length, out64));
    if (out64.getLong(0) != size) {
      throw new PsiException(
          PsiStatus.INTERNAL,
          "psi_result_indices wrote "
              + Long.toUnsignedString(out64.getLong(0))
              + " of "
              + size
              + " indices");
    }
    return out;
  }

  /**
   * Sender of an {@code output=labels} run: one label per element of {@link #setInput}, in its
   * order, each exactly the {@value PsiParams#LABEL} parameter's bytes long, back to back. Call it
   * after {@link #setInput} and before the first round that carries labels (see psi_set_labels).
   *
   * @throws IllegalArgumentException if {@code contiguous.length != count * labelLen}
   * @throws PsiException {@link PsiStatus#INPUT} for a count or length the session does not expect
   */
  public void setLabels(byte[] contiguous, long count, int labelLen) {
    Objects.requireNonNull(contiguous, "contiguous");
    long bytes = inputBytes(count, labelLen, contiguous.length);
    Pointer s = open();
    try (Memory m = new Memory(Math.max(1, bytes))) {
      m.write(0, contiguous, 0, (int) bytes);
      try {
        check(PsiNative.psi_set_labels(s, m, count, labelLen));
      } finally {
        m.clear();
      }
    }
  }

  /**
   * Receiver of an {@code output=labels} run, after the last online round: the sender's labels of
   * the intersecting elements, back to back, in the order of {@link #resultIndices}.
   */
  public byte[] resultLabels() {
    Pointer s = open();
    check(PsiNative.psi_result_labels(s, null, 0, out64));
    long size = out64.getLong(0);
    if (size < 0 || size > Integer.MAX_VALUE - 8) {
      throw new PsiException(
          PsiStatus.INTERNAL, "labels too large for a Java array: " + Long.toUnsignedString(size));
    }
    byte[] out = new byte[(int) size];
    check(PsiNative.psi_result_labels(s, out, out.length, out64));
    if (out64.getLong(0) != size) {
      throw new PsiException(PsiStatus.INTERNAL, "psi_result_labels wrote a different length");
    }
    return out;
  }

  /** Frees the native session and wipes its secrets. Idempotent. */
  @Override
  public void close() {
    if (session != null) {
      Pointer s = session;
      session = null;
      PsiNative.psi_session_free(s);
    }
    if (transfer != null) {
      transfer.close();
      transfer = null;
    }
  }

  @Override
  public String toString() {
    return "PsiSession["
        + protocol
        + ", "
        + role
        + ", "
        + params
        + (isClosed() ? ", closed]" : "]");
  }

  private Pointer open() {
    if (session == null) {
      throw new IllegalStateException("PSI session is closed");
    }
    return session;
  }

  private void check(int rc) {
    if (rc != 0) {
      String message = PsiNative.psi_session_error(session);
      throw new PsiException(statusOf(rc), message == null ? "" : message);
    }
  }

  static PsiStatus statusOf(int rc) {
    try {
      return PsiStatus.fromCode(rc);
    } catch (IllegalArgumentException e) {
      return PsiStatus.INTERNAL; // an unknown code is a native bug; keep the message anyway
    }
  }

  /** The transfer buffer, grown (up to the maximum) to hold at least {@code wanted} bytes. */
  private Memory transferBuffer(int wanted) {
    int size = Math.max(MIN_TRANSFER_BYTES, Math.min(wanted, MAX_TRANSFER_BYTES));
    if (transfer == null || transfer.size() < size) {
      if (transfer != null) {
        transfer.close();
      }
      transfer = new Memory(size);
    }
    return transfer;
  }

  private void feedHeap(PsiPhase phase, int round, ByteBuffer src, boolean last) {
    int len = src.remaining();
    if (src.hasArray()) {
      feed(phase, round, src.array(), src.arrayOffset() + src.position(), len, last);
    } else {
      byte[] copy = new byte[len]; // read-only heap buffer: no array access
      src.duplicate().get(copy);
      feed(phase, round, copy, 0, len, last);
    }
    src.position(src.position() + len);
  }

  private EmitResult emitHeap(PsiPhase phase, int round, ByteBuffer dst) {
    if (dst.isReadOnly()) {
      throw new java.nio.ReadOnlyBufferException();
    }
    EmitResult r =
        emit(phase, round, dst.array(), dst.arrayOffset() + dst.position(), dst.remaining());
    dst.position(dst.position() + r.written());
    return r;
  }

  private static Pointer addressOf(ByteBuffer direct) {
    return Native.getDirectBufferPointer(direct).share(direct.position());
  }

  private static long inputBytes(long count, int elementLen, long available) {
    if (count < 0 || elementLen < 0) {
      throw new IllegalArgumentException(
          "negative count or element length: " + count + ", " + elementLen);
    }
    long bytes;
    try {
      bytes = Math.multiplyExact(count, (long) elementLen);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("count * elementLen overflows", e);
    }
    if (bytes != available) {
      throw new IllegalArgumentException(
          count
              + " elements of "
              + elementLen
              + " bytes need "
              + bytes
              + " bytes, the buffer holds "
              + available);
    }
    if (bytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("input larger than 2 GiB: " + bytes + " bytes");
    }
    return bytes;
  }

  private static String cString(byte[] buf) {
    int n = 0;
    while (n < buf.length && buf[n] != 0) {
      n++;
    }
    return new String(buf, 0, n, StandardCharsets.UTF_8);
  }
}
