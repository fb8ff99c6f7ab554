package io.psiflink.jobs.psi;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.connectors.row.RowCodec;
import io.psiflink.connectors.row.Varint;
import io.psiflink.jobs.bin.BinPlan;
import io.psiflink.jobs.token.Tokens;
import io.psiflink.nativepsi.ProtocolInfo;
import io.psiflink.nativepsi.PsiParams;
import io.psiflink.nativepsi.PsiPhase;
import io.psiflink.nativepsi.PsiSession;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * One attempt at one bin, on one bridge stream, every frame sealed end to end ({@link
 * SealedBinStream}):
 * <ol>
 *   <li>HELLO both ways: bin, bin count, σ, this party's n and padded bound, and a commitment to a
 *       fresh 32-byte nonce; once both HELLOs arrived, REVEAL both ways: the nonce, checked against
 *       its commitment. The protocol instance is the SHA-256 of both nonces and the stream's
 *       context, so it is fresh on every attempt and after task restarts (it is the PRG nonce
 *       under the shared setup), and neither party can choose it after seeing the other's nonce;
 *       the frames after REVEAL are sealed under keys bound to the instance;</li>
 *   <li>the PSI protocol on the padded sets (its setup rounds too, for a protocol whose setup is
 *       the sender's set), both parties learning which of their own elements intersect, or, for a
 *       count-only query, A learning only how many;</li>
 *   <li>party B sends, for every intersecting token in token order its row count and its
 *       revealed columns; party A joins them with its own rows and emits the joined rows (a
 *       count-only query skips this step: A emits the count);</li>
 *   <li>A sends DONE once it has everything: only then B counts the bin as done.</li>
 * </ol>
 * Anything unexpected from the peer is a {@link PeerProtocolException}; the caller aborts the
 * stream and may retry the bin with a new attempt.
 */
public final class BinExchange {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BinExchange.class);
  private static final byte[] MAGIC = "PSIB".getBytes(StandardCharsets.US_ASCII);
  private static final int VERSION = 3;
  private static final String COMMIT_LABEL = "psi-flink bin nonce commitment v1";
  private static final String INSTANCE_LABEL = "psi-flink instance v2";
  private static final int NONCE_BYTES = 32;
  /** The output row of a cardinality-only query: the count. */
  private static final RowCodec COUNT_CODEC =
      new RowCodec(java.util.List.of(io.psiflink.api.ColumnType.BIGINT));
  private static final int HELLO_BYTES = 4 + 1 + 1 + 4 + 4 + 1 + 8 + 8 + 32;
  private static final int PAYLOAD_FRAME_BYTES = 256 * 1024;
  /** A payload record starts with the token and the peer's row count for it. */
  private static final int KEY_HEADER_BYTES = Tokens.BYTES + 4;

  private final BinContext ctx;
  private final BinKeys binKeys;
  private final SecureRandom random;

  public BinExchange(BinContext ctx, BinKeys keys, SecureRandom random) {
    this.ctx = ctx;
    this.binKeys = keys;
    this.random = random;
  }

  /** Counters of one completed bin. */
  public record BinStats(long intersecting, long rowsOut, long bytesSent, long bytesReceived,
      long psiNanos, long payloadNanos) {}

  /**
   * Runs the bin to completion on {@code stream}. The output party's joined rows go to {@code out}
   * only once everything for the bin has arrived and checked out.
   *
   * @param ownRows this party's n: rows that reached tokenization, over all bins
   */
  public BinStats run(BridgeStream raw, int bin, BinTable table, long ownRows, Consumer<byte[]> out)
      throws BridgeException, PeerProtocolException {
    try (SealedBinStream stream = new SealedBinStream(raw, binKeys.frameKey(), bin, ctx.partyB())) {
      return run(stream, bin, table, ownRows, out);
    }
  }

  private BinStats run(SealedBinStream stream, int bin, BinTable table, long ownRows,
      Consumer<byte[]> out) throws BridgeException, PeerProtocolException {
    long started = System.nanoTime();
    BridgeStream raw = stream.raw();
    long ownBound = BinPlan.bound(ownRows, ctx.bins(), ctx.sigma());
    if (table.distinct() > ownBound) {
      // The peer learns that the bin overflowed (the job stops anyway), never by how much.
      raw.abort("bin " + bin + " of party " + ctx.party() + " is over the public bound");
      throw new BinOverflowException(bin, table.distinct(), ownBound, ownRows, ctx.bins(),
          ctx.sigma());
    }
    byte[] nonce = new byte[NONCE_BYTES];
    random.nextBytes(nonce);
    byte[] ownHello = hello(bin, ownRows, ownBound, commitment(raw, bin, ctx.partyB(), nonce));
    stream.send(Frames.HELLO, ownHello);
    byte[] peerHello = Frames.body(stream.receive(), Frames.HELLO, "waiting for HELLO");
    Hello peer = parseHello(peerHello, bin);
    long peerBound = BinPlan.bound(peer.rows, ctx.bins(), ctx.sigma());
    if (peer.bound != peerBound) {
      throw new PeerProtocolException("peer's bound " + peer.bound + " for n=" + peer.rows
          + " disagrees with " + peerBound);
    }
    // Only now, with the peer committed, this party reveals its nonce.
    stream.send(Frames.REVEAL, nonce);
    byte[] peerNonce = Frames.body(stream.receive(), Frames.REVEAL,
        "waiting for the peer's nonce");
    if (peerNonce.length != NONCE_BYTES || !MessageDigest.isEqual(peer.commitment,
        commitment(raw, bin, !ctx.partyB(), peerNonce))) {
      throw new PeerProtocolException("peer's revealed nonce does not match the commitment in "
          + "its HELLO");
    }
    byte[] instance = instance(raw, bin, ctx.partyB() ? peerNonce : nonce,
        ctx.partyB() ? nonce : peerNonce);
    stream.rekey(instance, sha256(ctx.partyB() ? peerHello : ownHello,
        ctx.partyB() ? ownHello : peerHello));

    long receiverSize = ctx.partyB() ? peerBound : ownBound;
    long senderSize = ctx.partyB() ? ownBound : peerBound;
    PsiParams params = PsiParams.parse(ctx.protocolParams()).toBuilder()
        .receiverSize(receiverSize).senderSize(senderSize).instance(instance)
        .output(ProtocolChoice.output(ctx.cardinality())).build();
    long[] mine;
    long cardinality;
    ProtocolInfo protocol = ProtocolInfo.byName(ctx.protocol());
    try (PsiSession s = PsiSession.create(ctx.protocol(),
        ProtocolRoles.of(ctx.partyB() ? Role.B : Role.A, protocol), params)) {
      // the input first: a per-bin setup (ECDH) is made of the sender's set
      s.setInput(table.elements(ownBound, ctx.partyB(), random), ownBound, 16);
      if (protocol.setupNeedsSenderSet()) {
        StreamRounds.run(s, PsiPhase.SETUP, stream);
      } else {
        s.importSetup(binKeys.setup());
      }
      StreamRounds.run(s, PsiPhase.ONLINE, stream);
      cardinality = ctx.cardinality() ? s.resultSize() : -1;
      mine = ctx.cardinality() ? new long[0] : s.resultIndices();
    }
    if (cardinality > table.distinct()) {
      throw new PeerProtocolException("PSI counted " + cardinality + " common keys, but this "
          + "party holds only " + table.distinct() + " in the bin");
    }
    for (long i : mine) {
      if (i >= table.distinct()) {
        throw new PeerProtocolException("PSI reported padding element " + i
            + " as intersecting; dummies cannot match");
      }
    }
    long psiDone = System.nanoTime();
    if (ctx.cardinality()) {
      long rows = countOnly(stream, cardinality, out);
      return new BinStats(Math.max(cardinality, 0), rows, raw.bytesSent(),
          raw.bytesReceived(), psiDone - started, System.nanoTime() - psiDone);
    }
    // Both parties take the intersecting keys in token order, so A pairs B's columns with its own
    // keys in one pass.
    int[] keys = table.byToken(mine);
    // The columns are sealed once, by the stream, like every other frame.
    long rowsOut = ctx.partyB()
        ? sendPayload(stream, table, keys)
        : receiveAndJoin(stream, table, keys, out);
    long sent = raw.bytesSent();
    long received = raw.bytesReceived();
    return new BinStats(mine.length, rowsOut, sent, received, psiDone - started,
        System.nanoTime() - psiDone);
  }

  /**
   * Ends a cardinality-only bin: no columns are exchanged. A emits the count as the bin's one
   * output row and sends DONE; B, which learned nothing, waits for it.
   */
  private long countOnly(SealedBinStream stream, long cardinality, Consumer<byte[]> out)
      throws BridgeException, PeerProtocolException {
    if (ctx.partyB()) {
      Frames.body(stream.receive(), Frames.DONE, "waiting for the output party's DONE");
      stream.finish();
      awaitPeerEnd(stream);
      return 0;
    }
    stream.send(Frames.DONE, new byte[0]);
    stream.finish();
    awaitPeerEnd(stream);
    out.accept(COUNT_CODEC.encode(org.apache.flink.types.Row.of(cardinality), new int[] {0}));
    return 1;
  }

  private long sendPayload(SealedBinStream stream, BinTable table, int[] keys)
      throws BridgeException, PeerProtocolException {
    ByteArrayOutputStream plain = new ByteArrayOutputStream(PAYLOAD_FRAME_BYTES + 4096);
    long rows = 0;
    for (int u : keys) {
      byte[] head = new byte[KEY_HEADER_BYTES];
      Tokens.put(head, 0, table.hi(u), table.lo(u));
      int count = table.rowCount(u);
      ByteBuffer.wrap(head, Tokens.BYTES, 4).putInt(count);
      plain.write(head, 0, head.length);
      rows += count;
      table.forEachRow(u, (buf, off, len) -> {
        Varint.write(plain, len);
        plain.write(buf, off, len);
      });
      if (plain.size() >= PAYLOAD_FRAME_BYTES) {
        sendFrame(stream, Frames.PAYLOAD, plain);
      }
    }
    if (plain.size() > 0) {
      sendFrame(stream, Frames.PAYLOAD, plain);
    }
    plain.write(ByteBuffer.allocate(16).putLong(keys.length).putLong(rows).array(), 0, 16);
    sendFrame(stream, Frames.PAYLOAD_END, plain);
    Frames.body(stream.receive(), Frames.DONE, "waiting for the output party's DONE");
    try {
      stream.finish();
    } catch (BridgeException e) {
      LOG.warn("could not close {} cleanly after the bin was complete: {}", stream.raw().channel(),
          e.getMessage());
    }
    awaitPeerEnd(stream);
    return rows;
  }

  private static void sendFrame(SealedBinStream stream, byte type, ByteArrayOutputStream plain)
      throws BridgeException {
    byte[] p = plain.toByteArray();
    plain.reset();
    stream.send(type, p);
  }

  private long receiveAndJoin(SealedBinStream stream, BinTable table, int[] keys,
      Consumer<byte[]> out) throws BridgeException, PeerProtocolException {
    ByteArrayOutputStream plain = new ByteArrayOutputStream();
    byte[] summary;
    while (true) {
      byte[] f = stream.receive();
      if (f == null) {
        throw new PeerProtocolException("peer ended the stream before PAYLOAD_END");
      }
      byte t = Frames.type(f);
      if (t != Frames.PAYLOAD && t != Frames.PAYLOAD_END) {
        throw new PeerProtocolException("expected PAYLOAD, got frame type " + t);
      }
      if (t == Frames.PAYLOAD_END) {
        summary = Arrays.copyOfRange(f, 1, f.length);
        break;
      }
      plain.write(f, 1, f.length - 1);
    }
    if (summary.length != 16) {
      throw new PeerProtocolException("PAYLOAD_END summary has " + summary.length + " bytes");
    }
    long tokens = ByteBuffer.wrap(summary).getLong();
    if (tokens != keys.length) {
      throw new PeerProtocolException("peer sent columns for " + tokens
          + " intersecting keys, this party found " + keys.length);
    }
    // Decode and check everything before emitting anything: a failed attempt emits no rows.
    PeerRows peerRows = decodePayload(plain.toByteArray(), table, keys, tokens,
        ByteBuffer.wrap(summary).getLong(8));
    // Everything checked out: tell the peer, then emit. No failure after DONE may retry the bin,
    // or its rows would be emitted twice; the peer needs nothing more.
    stream.send(Frames.DONE, new byte[0]);
    stream.finish();
    awaitPeerEnd(stream);
    return emitJoin(table, keys, peerRows, out);
  }

  /** After DONE the bin is complete for both parties; a missing goodbye is only logged. */
  private static void awaitPeerEnd(SealedBinStream stream) {
    try {
      if (stream.raw().receive() != null) {
        LOG.warn("peer sent frames after the bin was complete on {}", stream.raw().channel());
      }
    } catch (BridgeException e) {
      LOG.warn("peer did not close {} cleanly after the bin was complete: {}",
          stream.raw().channel(), e.getMessage());
    }
  }

  /**
   * The peer's rows of one bin, checked but not decoded: column c of row r is {@code
   * payload[columns[r·(k+1)+c], columns[r·(k+1)+c+1])} for a peer arity k; the rows of key u are
   * {@code first[u]} on, {@code count[u]} of them.
   */
  private record PeerRows(byte[] payload, int arity, int[] columns, int[] first, int[] count) {}

  /**
   * Checks the peer's payload: it must hold exactly this party's intersecting keys, in token order,
   * each with at least one well-formed row (strings valid UTF-8: they go to the output as they
   * are), and the totals must match the peer's summary.
   */
  private PeerRows decodePayload(byte[] b, BinTable table, int[] keys, long tokens,
      long peerRows) throws PeerProtocolException {
    int arity = ctx.peerCodec().arity();
    if (peerRows < 0 || peerRows > b.length / (arity + 1)) { // a row takes arity + 1 bytes or more
      throw new PeerProtocolException("peer's summary claims " + peerRows + " rows in "
          + b.length + " bytes");
    }
    int[] columns = new int[(int) peerRows * (arity + 1)];
    int[] first = new int[table.distinct()];
    int[] count = new int[table.distinct()];
    int rows = 0;
    long seenTokens = 0;
    try {
      for (int p = 0; p < b.length; seenTokens++) {
        if (b.length - p < KEY_HEADER_BYTES) {
          throw new PeerProtocolException("payload truncated in a key header");
        }
        int u = seenTokens < keys.length ? keys[(int) seenTokens] : -1;
        if (u < 0 || Tokens.hiAt(b, p) != table.hi(u) || Tokens.loAt(b, p) != table.lo(u)) {
          throw new PeerProtocolException("peer sent columns for a key that is not the next "
              + "intersecting key in token order");
        }
        int n = ByteBuffer.wrap(b, p + Tokens.BYTES, 4).getInt();
        if (n <= 0 || n > peerRows - rows) {
          throw new PeerProtocolException("peer sent " + n + " rows for an intersecting key");
        }
        p += KEY_HEADER_BYTES;
        first[u] = rows;
        count[u] = n;
        for (int i = 0; i < n; i++, rows++) {
          long r = Varint.read(b, p, b.length);
          int len = Varint.value(r);
          p = Varint.next(r);
          if (len > b.length - p) {
            throw new PeerProtocolException("payload truncated in a row");
          }
          ctx.peerCodec().columns(b, p, len, columns, rows * (arity + 1), true);
          p += len;
        }
      }
    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
      throw new PeerProtocolException("peer's payload is malformed: " + e.getMessage());
    }
    if (seenTokens != tokens || rows != peerRows) {
      throw new PeerProtocolException("payload holds " + seenTokens + " keys and " + rows
          + " rows, its summary says " + tokens + " and " + peerRows);
    }
    return new PeerRows(b, arity, columns, first, count);
  }

  /**
   * The rows of the join for this bin: for every intersecting key, own rows × peer rows, each the
   * output columns copied as encoded ({@link RowCodec}) from the own and the peer's rows.
   */
  private long emitJoin(BinTable table, int[] keys, PeerRows peer, Consumer<byte[]> out) {
    int[] output = ctx.output();
    int ownArity = ctx.ownCodec().arity();
    int[] own = new int[ownArity + 1];
    int stride = peer.arity() + 1;
    int[] pc = peer.columns();
    byte[] pb = peer.payload();
    long[] emitted = {0};
    for (int u : keys) {
      table.forEachRow(u, (buf, off, len) -> {
        ctx.ownCodec().columns(buf, off, len, own, 0, false);
        for (int r = peer.first()[u], end = r + peer.count()[u]; r < end; r++) {
          int base = r * stride;
          int size = 0;
          for (int s : output) {
            size += s >= 0 ? own[s + 1] - own[s] : pc[base - s] - pc[base - 1 - s];
          }
          byte[] row = new byte[size];
          int p = 0;
          for (int s : output) {
            if (s >= 0) {
              int n = own[s + 1] - own[s];
              System.arraycopy(buf, own[s], row, p, n);
              p += n;
            } else {
              int from = pc[base - 1 - s];
              int n = pc[base - s] - from;
              System.arraycopy(pb, from, row, p, n);
              p += n;
            }
          }
          out.accept(row);
          emitted[0]++;
        }
      });
    }
    return emitted[0];
  }

  private byte[] hello(int bin, long rows, long bound, byte[] commitment) {
    return ByteBuffer.allocate(HELLO_BYTES).put(MAGIC).put((byte) VERSION)
        .put((byte) (ctx.partyB() ? 1 : 0)).putInt(bin).putInt(ctx.bins()).put((byte) ctx.sigma())
        .putLong(rows).putLong(bound).put(commitment).array();
  }

  private record Hello(long rows, long bound, byte[] commitment) {}

  private Hello parseHello(byte[] body, int bin) throws PeerProtocolException {
    if (body.length != HELLO_BYTES) {
      throw new PeerProtocolException("peer's HELLO has " + body.length + " bytes, expected "
          + HELLO_BYTES);
    }
    ByteBuffer bb = ByteBuffer.wrap(body);
    byte[] magic = new byte[4];
    bb.get(magic);
    int version = bb.get();
    int role = bb.get();
    int peerBin = bb.getInt();
    int bins = bb.getInt();
    int sigma = bb.get() & 0xff;
    long rows = bb.getLong();
    long bound = bb.getLong();
    byte[] commitment = new byte[32];
    bb.get(commitment);
    if (!Arrays.equals(magic, MAGIC) || version != VERSION) {
      throw new PeerProtocolException("peer's HELLO is not a psi-flink v" + VERSION + " bin HELLO");
    }
    if (role != (ctx.partyB() ? 0 : 1)) {
      throw new PeerProtocolException("peer plays the same role (" + ctx.party() + ")");
    }
    if (peerBin != bin || bins != ctx.bins() || sigma != ctx.sigma()) {
      throw new PeerProtocolException("peer is at bin " + peerBin + " of " + bins + " with sigma "
          + sigma + ", this party at bin " + bin + " of " + ctx.bins() + " with sigma "
          + ctx.sigma());
    }
    if (rows < 0 || bound < 0 || bound > BinPlan.MAX_BIN_ELEMENTS) {
      throw new PeerProtocolException("peer's HELLO has n=" + rows + ", bound=" + bound);
    }
    return new Hello(rows, bound, commitment);
  }

  /**
   * SHA-256(label ‖ u16 len ‖ session ‖ i32 bin ‖ i32 attempt ‖ u8 role ‖ nonce): binds the nonce
   * to this stream and to the party that chose it, so a commitment cannot be echoed back.
   */
  static byte[] commitment(BridgeStream stream, int bin, boolean partyB, byte[] nonce) {
    MessageDigest d = sha256();
    d.update(COMMIT_LABEL.getBytes(StandardCharsets.US_ASCII));
    d.update(SealedBinStream.context(stream, bin));
    d.update((byte) (partyB ? 1 : 0));
    d.update(nonce);
    return d.digest();
  }

  /** The 32-byte protocol instance: SHA-256(label ‖ context ‖ nonce A ‖ nonce B). */
  static byte[] instance(BridgeStream stream, int bin, byte[] nonceA, byte[] nonceB) {
    MessageDigest d = sha256();
    d.update(INSTANCE_LABEL.getBytes(StandardCharsets.US_ASCII));
    d.update(SealedBinStream.context(stream, bin));
    d.update(nonceA);
    d.update(nonceB);
    return d.digest();
  }

  private static byte[] sha256(byte[] a, byte[] b) {
    MessageDigest d = sha256();
    d.update(a);
    d.update(b);
    return d.digest();
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
