package io.psiflink.jobs.payload;

import io.psiflink.bridge.BridgeException;
import io.psiflink.connectors.row.RowCodec;
import io.psiflink.connectors.row.Varint;
import io.psiflink.jobs.bin.BinTable;
import io.psiflink.jobs.control.v1.PayloadEnd;
import io.psiflink.jobs.psi.BinContext;
import io.psiflink.jobs.psi.BinExchange;
import io.psiflink.jobs.psi.ControlMessages;
import io.psiflink.jobs.psi.Frames;
import io.psiflink.jobs.psi.PeerProtocolException;
import io.psiflink.jobs.psi.SealedBinStream;
import io.psiflink.jobs.token.Tokens;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * The payload step of a bin, after its PSI: party B sends, for every intersecting token in token
 * order, its row count and its revealed columns; party A checks them against its own intersecting
 * keys and joins them with its own rows. The frames travel on the bin's sealed stream; the exchange
 * around this step (HELLO/REVEAL, the PSI, DONE) is {@link BinExchange}'s.
 *
 * <p>PAYLOAD frames carry chunks of records {@code token ‖ i32 rows ‖ (varint len ‖ encoded row)*}
 * (opaque to control.proto); a {@code PayloadEnd} gives the totals.
 */
public final class BinPayload {
  private static final int PAYLOAD_FRAME_BYTES = 256 * 1024;

  /** A payload record starts with the token and the peer's row count for it. */
  private static final int KEY_HEADER_BYTES = Tokens.BYTES + 4;

  private final BinContext ctx;

  public BinPayload(BinContext ctx) {
    this.ctx = ctx;
  }

  /**
   * Party B: sends the columns of {@code keys} (intersecting, in token order); returns the rows
   * sent.
   */
  public static long send(SealedBinStream stream, BinTable table, int[] keys)
      throws BridgeException {
    ByteArrayOutputStream plain = new ByteArrayOutputStream(PAYLOAD_FRAME_BYTES + 4096);
    byte[] head = new byte[KEY_HEADER_BYTES];
    long rows = 0;
    BinTable.RowVisitor write =
        (buf, off, len) -> {
          Varint.write(plain, len);
          plain.write(buf, off, len);
        };
    for (int u : keys) {
      Tokens.put(head, 0, table.hi(u), table.lo(u));
      int count = table.rowCount(u);
      ByteBuffer.wrap(head, Tokens.BYTES, 4).putInt(count);
      plain.write(head, 0, head.length);
      rows += count;
      table.forEachRow(u, write);
      if (plain.size() >= PAYLOAD_FRAME_BYTES) {
        sendChunk(stream, plain);
      }
    }
    if (plain.size() > 0) {
      sendChunk(stream, plain);
    }
    stream.send(
        Frames.PAYLOAD_END, PayloadEnd.newBuilder().setKeys(keys.length).setRows(rows).build());
    return rows;
  }

  private static void sendChunk(SealedBinStream stream, ByteArrayOutputStream plain)
      throws BridgeException {
    byte[] p = plain.toByteArray();
    plain.reset();
    stream.send(Frames.PAYLOAD, p);
  }

  /**
   * Party A: receives the peer's columns up to PAYLOAD_END and checks all of them before anything
   * is emitted: a failed attempt emits no rows.
   */
  public BinOutput receive(SealedBinStream stream, BinTable table, int[] keys)
      throws BridgeException, PeerProtocolException {
    return join(table, keys, receiveRows(stream, table, keys, ctx.peerCodec()));
  }

  /**
   * Receives a peer's columns (rows of {@code peerCodec}) up to PAYLOAD_END and checks all of them
   * ({@link #decode}): the rows of the n-party join's output party come from every other party this
   * way.
   */
  public static PeerRows receiveRows(
      SealedBinStream stream, BinTable table, int[] keys, RowCodec peerCodec)
      throws BridgeException, PeerProtocolException {
    ByteArrayOutputStream plain = new ByteArrayOutputStream();
    PayloadEnd end;
    while (true) {
      byte[] f = stream.receive();
      if (f == null) {
        throw new PeerProtocolException("peer ended the stream before PAYLOAD_END");
      }
      byte t = Frames.type(f);
      if (t == Frames.PAYLOAD_END) {
        end =
            ControlMessages.parse(
                PayloadEnd.parser(),
                Frames.body(f, t, "reading PAYLOAD_END"),
                "the peer's PAYLOAD_END");
        break;
      }
      if (t != Frames.PAYLOAD) {
        throw new PeerProtocolException("expected PAYLOAD, got " + Frames.name(t));
      }
      plain.write(f, 1, f.length - 1);
    }
    if (end.getKeys() != keys.length) {
      throw new PeerProtocolException(
          "peer sent columns for "
              + Long.toUnsignedString(end.getKeys())
              + " intersecting keys, this party found "
              + keys.length);
    }
    return decode(plain.toByteArray(), table, keys, end.getKeys(), end.getRows(), peerCodec);
  }

  /**
   * Checks the peer's payload: it must hold exactly this party's intersecting keys, in token order,
   * each with at least one well-formed row (strings valid UTF-8: they go to the output as they
   * are), and the totals must match the peer's summary.
   */
  private static PeerRows decode(
      byte[] b, BinTable table, int[] keys, long tokens, long peerRows, RowCodec peerCodec)
      throws PeerProtocolException {
    int arity = peerCodec.arity();
    if (peerRows < 0 || peerRows > b.length / (arity + 1)) { // a row takes arity + 1 bytes or more
      throw new PeerProtocolException(
          "peer's summary claims "
              + Long.toUnsignedString(peerRows)
              + " rows in "
              + b.length
              + " bytes");
    }
    PeerRowsReader reader = new PeerRowsReader(peerCodec, b, table.distinct(), (int) peerRows);
    long seenTokens = 0;
    try {
      for (int p = 0; p < b.length; seenTokens++) {
        if (b.length - p < KEY_HEADER_BYTES) {
          throw new PeerProtocolException("payload truncated in a key header");
        }
        int u = seenTokens < keys.length ? keys[(int) seenTokens] : -1;
        if (u < 0 || Tokens.hiAt(b, p) != table.hi(u) || Tokens.loAt(b, p) != table.lo(u)) {
          throw new PeerProtocolException(
              "peer sent columns for a key that is not the next "
                  + "intersecting key in token order");
        }
        int n = ByteBuffer.wrap(b, p + Tokens.BYTES, 4).getInt();
        p = reader.read(u, n, p + KEY_HEADER_BYTES, b.length);
      }
    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
      throw new PeerProtocolException("peer's payload is malformed: " + e.getMessage());
    }
    if (seenTokens != tokens || reader.rows() != peerRows) {
      throw new PeerProtocolException(
          "payload holds "
              + seenTokens
              + " keys and "
              + reader.rows()
              + " rows, its summary says "
              + tokens
              + " and "
              + peerRows);
    }
    return reader.done();
  }

  /** The arity of the peer's revealed rows. */
  int peerArity() {
    return ctx.peerCodec().arity();
  }

  /** A reader of the peer's rows in {@code b}; see {@link PeerRowsReader}. */
  PeerRowsReader reader(byte[] b, int distinct, int maxRows) {
    return new PeerRowsReader(ctx.peerCodec(), b, distinct, maxRows);
  }

  /** The join of this party's rows of {@code keys} with the peer's rows of each. */
  Join join(BinTable table, int[] keys, PeerRows peer) {
    long out = 0;
    for (int u : keys) {
      out += (long) table.rowCount(u) * peer.count()[u];
    }
    return new Join(table, keys, peer, out);
  }

  /**
   * Reads and checks the peer's rows of one key after another out of one buffer (the payload, or
   * the labels of a labeled run), recording where each column lies: nothing is copied.
   */
  static final class PeerRowsReader {
    private final RowCodec codec;
    private final byte[] b;
    private final int arity;
    private final int maxRows;
    private final int[] columns;
    private final int[] first;
    private final int[] count;
    private int rows;

    /**
     * @param distinct the keys of this party's bin (indices u range over them)
     * @param maxRows the most rows the buffer can hold, which bounds what is allocated
     */
    PeerRowsReader(RowCodec codec, byte[] b, int distinct, int maxRows) {
      this.codec = codec;
      this.b = b;
      this.arity = codec.arity();
      this.maxRows = maxRows;
      this.columns = new int[maxRows * (arity + 1)];
      this.first = new int[distinct];
      this.count = new int[distinct];
    }

    /**
     * Reads the {@code n} rows of key {@code u} (each {@code varint len ‖ encoded row}) from {@code
     * p} on, not past {@code end}; returns where they end.
     */
    int read(int u, int n, int p, int end) throws PeerProtocolException {
      if (n <= 0 || n > maxRows - rows) {
        throw new PeerProtocolException("peer sent " + n + " rows for an intersecting key");
      }
      first[u] = rows;
      count[u] = n;
      for (int i = 0; i < n; i++, rows++) {
        long r = Varint.read(b, p, end);
        int len = Varint.value(r);
        p = Varint.next(r);
        if (len > end - p) {
          throw new PeerProtocolException("peer's rows truncated in a row");
        }
        codec.columns(b, p, len, columns, rows * (arity + 1), true);
        p += len;
      }
      return p;
    }

    int rows() {
      return rows;
    }

    PeerRows done() {
      return new PeerRows(b, arity, columns, first, count);
    }
  }

  /**
   * The peer's rows of one bin, checked but not decoded: column c of row r is {@code
   * payload[columns[r·(k+1)+c], columns[r·(k+1)+c+1])} for a peer arity k; the rows of key u are
   * {@code first[u]} on, {@code count[u]} of them.
   */
  public record PeerRows(byte[] payload, int arity, int[] columns, int[] first, int[] count) {}

  /**
   * The rows of the join for one bin: for every intersecting key, own rows × peer rows, each the
   * output columns copied as encoded ({@link RowCodec}) from the own and the peer's rows.
   */
  final class Join implements BinOutput {
    private final BinTable table;
    private final int[] keys;
    private final PeerRows peer;
    private final long rows;

    Join(BinTable table, int[] keys, PeerRows peer, long rows) {
      this.table = table;
      this.keys = keys;
      this.peer = peer;
      this.rows = rows;
    }

    @Override
    public long rows() {
      return rows;
    }

    @Override
    public void emitTo(Consumer<byte[]> out) {
      int[] output = ctx.output();
      RowCodec ownCodec = ctx.ownCodec();
      int[] own = new int[ownCodec.arity() + 1];
      int stride = peer.arity() + 1;
      int[] pc = peer.columns();
      byte[] pb = peer.payload();
      // one visitor for all keys, told the key: a lambda capturing the key, made per key, cost
      // C1-compiled code a method handle's allocation each
      int[] key = new int[1];
      BinTable.RowVisitor join =
          (buf, off, len) -> {
            int u = key[0];
            ownCodec.columns(buf, off, len, own, 0, false);
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
            }
          };
      for (int u : keys) {
        key[0] = u;
        table.forEachRow(u, join);
      }
    }
  }
}
