package io.psiflink.jobs.psi;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.jobs.bin.BinOverflowException;
import io.psiflink.jobs.bin.BinPlan;
import io.psiflink.jobs.bin.BinTable;
import io.psiflink.jobs.control.v1.BinHello;
import io.psiflink.jobs.control.v1.Done;
import io.psiflink.jobs.control.v1.Reveal;
import io.psiflink.jobs.payload.BinLabels;
import io.psiflink.jobs.payload.BinOutput;
import io.psiflink.jobs.payload.BinPayload;
import io.psiflink.jobs.payload.JoinKindOutput;
import io.psiflink.jobs.session.BinKeys;
import io.psiflink.nativepsi.ProtocolInfo;
import io.psiflink.nativepsi.PsiParams;
import io.psiflink.nativepsi.PsiPhase;
import io.psiflink.nativepsi.PsiRole;
import io.psiflink.nativepsi.PsiSession;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.function.Consumer;

/**
 * One attempt at one bin, on one bridge stream, every frame sealed end to end ({@link
 * SealedBinStream}):
 *
 * <ol>
 *   <li>HELLO both ways ({@code BinHello} of control.proto): role, bin, bin count, σ, this party's
 *       n and padded bound, and a commitment to a fresh 32-byte nonce; once both HELLOs arrived,
 *       REVEAL both ways: the nonce, checked against its commitment. The protocol instance is the
 *       SHA-256 of both nonces and the stream's context, so it is fresh on every attempt and after
 *       task restarts (it is the PRG nonce under the shared setup), and neither party can choose it
 *       after seeing the other's nonce; the frames after REVEAL are sealed under keys bound to the
 *       instance;
 *   <li>the PSI protocol on the padded sets (its setup rounds too, for a protocol whose setup is
 *       the sender's set), both parties learning which of their own elements intersect, or, for a
 *       count-only query, A learning only how many;
 *   <li>the payload step ({@link BinPayload}): party B sends, for every intersecting token in token
 *       order its row count and its revealed columns; party A checks them and joins them with its
 *       own rows (a count-only query skips this step: A's output is the count);
 *   <li>A sends DONE once it has everything: only then B counts the bin as done.
 * </ol>
 *
 * {@link #exchange} does the network part and returns what the bin gives to emit ({@link
 * BinOutput}), so the operator can run it off its mailbox thread and emit on it. Anything
 * unexpected from the peer is a {@link PeerProtocolException}; the caller aborts the stream and may
 * retry the bin with a new attempt.
 */
public final class BinExchange {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BinExchange.class);
  private static final String COMMIT_LABEL = "psi-flink bin nonce commitment v1";
  private static final String INSTANCE_LABEL = "psi-flink instance v2";
  private static final int NONCE_BYTES = 32;
  private static final int COMMITMENT_BYTES = 32;

  private final BinContext ctx;
  private final Role self;
  private final BinKeys binKeys;
  private final SecureRandom random;
  private final BinPayload payload;

  public BinExchange(BinContext ctx, BinKeys keys, SecureRandom random) {
    this.ctx = ctx;
    this.self = ctx.role();
    this.binKeys = keys;
    this.random = random;
    this.payload = new BinPayload(ctx);
  }

  /** Counters of one completed bin. */
  public record BinStats(
      long intersecting,
      long rowsOut,
      long bytesSent,
      long bytesReceived,
      long psiNanos,
      long payloadNanos) {}

  /** A completed bin: its counters, and what it gives this party to emit. */
  public record BinResult(BinStats stats, BinOutput output) {}

  /**
   * Runs the bin to completion on {@code stream} and emits its rows to {@code out}: {@link
   * #exchange}, then {@link BinOutput#emitTo}, on the calling thread.
   *
   * @param ownRows this party's n: rows that reached tokenization, over all bins
   */
  public BinStats run(BridgeStream raw, int bin, BinTable table, long ownRows, Consumer<byte[]> out)
      throws BridgeException, PeerProtocolException {
    BinResult r = exchange(raw, bin, table, ownRows);
    r.output().emitTo(out);
    return r.stats();
  }

  /**
   * Runs the bin's network exchange to completion on {@code stream}. The output party's rows are in
   * the result, all checked; nothing is emitted here, so this may run on any thread.
   *
   * @param ownRows this party's n: rows that reached tokenization, over all bins
   */
  public BinResult exchange(BridgeStream raw, int bin, BinTable table, long ownRows)
      throws BridgeException, PeerProtocolException {
    try (SealedBinStream stream = new SealedBinStream(raw, binKeys.frameKey(), bin, self)) {
      return exchange(stream, bin, table, ownRows);
    }
  }

  private BinResult exchange(SealedBinStream stream, int bin, BinTable table, long ownRows)
      throws BridgeException, PeerProtocolException {
    long started = System.nanoTime();
    BridgeStream raw = stream.raw();
    long ownBound = BinPlan.bound(ownRows, ctx.bins(), ctx.sigma());
    if (table.distinct() > ownBound) {
      // The peer learns that the bin overflowed (the job stops anyway), never by how much.
      raw.abort("bin " + bin + " of party " + ctx.party() + " is over the public bound");
      throw new BinOverflowException(
          bin, table.distinct(), ownBound, ownRows, ctx.bins(), ctx.sigma());
    }
    Agreed agreed = hello(stream, bin, ownRows, ownBound);

    // A is the PSI's receiver and gets the columns; B is its sender and sends them
    boolean receiver = ctx.psiRole() == PsiRole.RECEIVER;
    PsiParams params =
        PsiParams.parse(ctx.protocolParams()).toBuilder()
            .receiverSize(receiver ? ownBound : agreed.peerBound())
            .senderSize(receiver ? agreed.peerBound() : ownBound)
            .instance(agreed.instance())
            .output(ProtocolChoice.output(ctx.cardinality(), ctx.mode(), ctx.kind().peerColumns()))
            .build();
    if (ctx.labeled()) {
      params = params.toBuilder().label(ctx.labelBytes()).build();
    }
    // B's labels before anything is sent: a key whose rows do not fit fails the bin up front
    byte[] labels = null;
    if (ctx.labeled() && !receiver) {
      try {
        labels = BinLabels.encode(table, ownBound, ctx.labelBytes(), bin);
      } catch (BinLabels.LabelOverflowException e) {
        // the peer learns that the job stopped, not why: the reason is about this party's rows
        raw.abort("party " + ctx.party() + " stopped at bin " + bin);
        throw e;
      }
    }
    long[] mine;
    long cardinality;
    byte[] peerLabels = null;
    try (PsiSession s = PsiSession.create(ctx.protocol(), ctx.psiRole(), params)) {
      // the input first: a per-bin setup (ECDH) is made of the sender's set
      s.setInput(table.elements(ownBound, self), ownBound, 16);
      if (labels != null) {
        s.setLabels(labels, ownBound, ctx.labelBytes());
        java.util.Arrays.fill(labels, (byte) 0);
      }
      if (ProtocolInfo.byName(ctx.protocol()).setupNeedsSenderSet()) {
        StreamRounds.run(s, PsiPhase.SETUP, stream);
      } else {
        s.importSetup(binKeys.setup());
      }
      StreamRounds.run(s, PsiPhase.ONLINE, stream);
      // the sender of a labeled run learns nothing: it has no result to ask for
      boolean learns = ctx.learnsIntersection();
      cardinality = ctx.cardinality() ? s.resultSize() : -1;
      mine = ctx.cardinality() || !learns ? new long[0] : s.resultIndices();
      if (ctx.labeled() && receiver) {
        peerLabels = s.resultLabels();
      }
    }
    if (cardinality > table.distinct()) {
      throw new PeerProtocolException(
          "PSI counted "
              + cardinality
              + " common keys, but this "
              + "party holds only "
              + table.distinct()
              + " in the bin");
    }
    for (long i : mine) {
      if (i >= table.distinct()) {
        throw new PeerProtocolException(
            "PSI reported padding element " + i + " as intersecting; dummies cannot match");
      }
    }
    long psiDone = System.nanoTime();
    BinOutput output;
    long rowsOut;
    if (ctx.cardinality()) {
      // no columns are exchanged: A's output is the count, B learned nothing
      output = receiver ? BinOutput.count(cardinality) : BinOutput.NONE;
      rowsOut = output.rows();
    } else if (ctx.labeled()) {
      // B's columns came with the PSI; B learned nothing and sends nothing more
      output =
          receiver
              ? JoinKindOutput.of(
                  ctx.kind(),
                  ctx.ownCodec(),
                  ctx.output(),
                  table,
                  java.util.Arrays.stream(mine).mapToInt(i -> (int) i).toArray(),
                  BinLabels.decode(payload, table, mine, peerLabels, ctx.labelBytes()))
              : BinOutput.NONE;
      rowsOut = output.rows();
    } else {
      // Both parties take the intersecting keys in token order, so A pairs B's columns with its
      // own keys in one pass.
      int[] keys = table.byToken(mine);
      // a semi- or anti-join needs no columns of B: B sends none (not even its row counts)
      boolean columns = ctx.kind().peerColumns();
      if (columns) {
        // marks the phase in the log (fault drills stop a party here); says nothing of the result
        LOG.info(
            "party {} bin {}: PSI done in {} ms, payload next ({} B's columns)",
            ctx.party(),
            bin,
            (psiDone - started) / 1_000_000,
            receiver ? "receiving" : "sending");
      }
      if (receiver) {
        BinOutput matched = columns ? payload.receive(stream, table, keys) : BinOutput.NONE;
        output = JoinKindOutput.of(ctx.kind(), ctx.ownCodec(), ctx.output(), table, keys, matched);
        rowsOut = output.rows();
      } else {
        output = BinOutput.NONE;
        rowsOut = columns ? BinPayload.send(stream, table, keys) : 0;
      }
    }
    done(stream, ctx.psiRole() == PsiRole.RECEIVER);
    // B of a labeled run does not know how many keys intersect: it counts none
    long intersecting = ctx.cardinality() ? Math.max(cardinality, 0) : mine.length;
    return new BinResult(
        new BinStats(
            intersecting,
            rowsOut,
            raw.bytesSent(),
            raw.bytesReceived(),
            psiDone - started,
            System.nanoTime() - psiDone),
        output);
  }

  /** What both HELLOs and REVEALs fixed: the peer's bound and the bin's protocol instance. */
  private record Agreed(long peerBound, byte[] instance) {}

  /**
   * HELLO both ways, then REVEAL both ways; checks the peer's and moves the stream to keys bound to
   * the instance and both HELLOs.
   */
  private Agreed hello(SealedBinStream stream, int bin, long ownRows, long ownBound)
      throws BridgeException, PeerProtocolException {
    BridgeStream raw = stream.raw();
    byte[] nonce = new byte[NONCE_BYTES];
    random.nextBytes(nonce);
    byte[] ownHello =
        Frames.of(
            Frames.HELLO,
            BinHello.newBuilder()
                .setRole(ControlMessages.roleId(self))
                .setBin(bin)
                .setBins(ctx.bins())
                .setSigma(ctx.sigma())
                .setRows(ownRows)
                .setBound(ownBound)
                .setCommitment(
                    com.google.protobuf.ByteString.copyFrom(commitment(raw, bin, self, nonce)))
                .build());
    stream.send(ownHello);
    byte[] peerHello = stream.receive();
    BinHello peer = parseHello(Frames.body(peerHello, Frames.HELLO, "waiting for HELLO"), bin);
    long peerBound = BinPlan.bound(peer.getRows(), ctx.bins(), ctx.sigma());
    if (peer.getBound() != peerBound) {
      throw new PeerProtocolException(
          "peer's bound "
              + peer.getBound()
              + " for n="
              + peer.getRows()
              + " disagrees with "
              + peerBound);
    }
    // Only now, with the peer committed, this party reveals its nonce.
    stream.send(
        Frames.REVEAL,
        Reveal.newBuilder().setNonce(com.google.protobuf.ByteString.copyFrom(nonce)).build());
    Reveal reveal =
        ControlMessages.parse(
            Reveal.parser(),
            Frames.body(stream.receive(), Frames.REVEAL, "waiting for the peer's nonce"),
            "the peer's REVEAL");
    byte[] peerNonce = reveal.getNonce().toByteArray();
    if (peerNonce.length != NONCE_BYTES
        || !MessageDigest.isEqual(
            peer.getCommitment().toByteArray(), commitment(raw, bin, self.peer(), peerNonce))) {
      throw new PeerProtocolException(
          "peer's revealed nonce does not match the commitment in its HELLO");
    }
    boolean a = self.equals(Role.A);
    byte[] instance = instance(raw, bin, a ? nonce : peerNonce, a ? peerNonce : nonce);
    // the frames as they travelled (type byte included), A's first
    stream.rekey(instance, sha256(a ? ownHello : peerHello, a ? peerHello : ownHello));
    return new Agreed(peerBound, instance);
  }

  /**
   * Ends the bin: the output party sends DONE once it has everything (its output checked); the
   * other waits for it. No failure after DONE may retry the bin, or the output party's rows would
   * be emitted twice (and the peer, done, would not come back); the peer needs nothing more.
   */
  public static void done(SealedBinStream stream, boolean outputParty)
      throws BridgeException, PeerProtocolException {
    if (outputParty) {
      stream.send(Frames.DONE, Done.getDefaultInstance());
      stream.finish();
    } else {
      ControlMessages.parse(
          Done.parser(),
          Frames.body(stream.receive(), Frames.DONE, "waiting for the output party's DONE"),
          "the peer's DONE");
      try {
        stream.finish();
      } catch (BridgeException e) {
        LOG.warn(
            "could not close {} cleanly after the bin was complete: {}",
            stream.raw().channel(),
            e.getMessage());
      }
    }
    awaitPeerEnd(stream);
  }

  /** After DONE the bin is complete for both parties; a missing goodbye is only logged. */
  private static void awaitPeerEnd(SealedBinStream stream) {
    try {
      if (stream.raw().receive() != null) {
        LOG.warn("peer sent frames after the bin was complete on {}", stream.raw().channel());
      }
    } catch (BridgeException e) {
      LOG.warn(
          "peer did not close {} cleanly after the bin was complete: {}",
          stream.raw().channel(),
          e.getMessage());
    }
  }

  /** Checks every field of the peer's HELLO against this party's view of the bin. */
  private BinHello parseHello(byte[] body, int bin) throws PeerProtocolException {
    BinHello h = ControlMessages.parse(BinHello.parser(), body, "the peer's HELLO");
    if (!h.hasRole()) {
      throw new PeerProtocolException("the peer's HELLO names no role");
    }
    Role role = ControlMessages.role(h.getRole(), "the peer's HELLO");
    if (!role.equals(self.peer())) {
      throw new PeerProtocolException(
          "peer plays "
              + role.label()
              + ", expected "
              + self.peer().label()
              + (role.equals(self) ? " (the same role as this party)" : ""));
    }
    if (h.getBin() != bin || h.getBins() != ctx.bins() || h.getSigma() != ctx.sigma()) {
      throw new PeerProtocolException(
          "peer is at bin "
              + Integer.toUnsignedString(h.getBin())
              + " of "
              + Integer.toUnsignedString(h.getBins())
              + " with sigma "
              + Integer.toUnsignedString(h.getSigma())
              + ", this party at bin "
              + bin
              + " of "
              + ctx.bins()
              + " with sigma "
              + ctx.sigma());
    }
    if (h.getRows() < 0 || h.getBound() < 0 || h.getBound() > BinPlan.MAX_BIN_ELEMENTS) {
      throw new PeerProtocolException(
          "peer's HELLO has n="
              + Long.toUnsignedString(h.getRows())
              + ", bound="
              + Long.toUnsignedString(h.getBound()));
    }
    if (h.getCommitment().size() != COMMITMENT_BYTES) {
      throw new PeerProtocolException(
          "peer's HELLO has a commitment of "
              + h.getCommitment().size()
              + " bytes, expected "
              + COMMITMENT_BYTES);
    }
    return h;
  }

  /**
   * SHA-256(label ‖ u16 len ‖ session ‖ i32 bin ‖ i32 attempt ‖ u8 party index ‖ nonce): binds the
   * nonce to this stream and to the party that chose it, so a commitment cannot be echoed back.
   */
  static byte[] commitment(BridgeStream stream, int bin, Role committer, byte[] nonce) {
    MessageDigest d = sha256();
    d.update(COMMIT_LABEL.getBytes(StandardCharsets.US_ASCII));
    d.update(SealedBinStream.context(stream, bin));
    d.update((byte) committer.index());
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
