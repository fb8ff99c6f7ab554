package io.psiflink.jobs.payload;

import io.psiflink.connectors.row.RowCodec;
import io.psiflink.jobs.bin.BinTable;
import io.psiflink.jobs.payload.BinPayload.PeerRows;
import java.util.List;
import java.util.function.Consumer;

/**
 * The output party's rows of one bin of an n-party join: for every key all parties hold, the
 * product of its own rows and every other party's rows of that key (SQL's inner join of n tables),
 * each output column copied as encoded ({@link RowCodec}). The other parties' rows were checked
 * when they arrived ({@link BinPayload#receiveRows}).
 */
public final class GroupJoin implements BinOutput {
  private final BinTable table;
  private final int[] keys;
  private final RowCodec ownCodec;
  private final List<PeerRows> peers;
  private final int[] party;
  private final int[] column;
  private final long rows;

  /**
   * @param keys the intersecting keys of {@code table}, in the order the parties sent their rows
   * @param peers the rows of parties 1 … n−1 (index j−1 for party j)
   * @param party per output column the party supplying it (0: this one)
   * @param column per output column its index among that party's kept (revealed) columns
   */
  public GroupJoin(
      BinTable table,
      int[] keys,
      RowCodec ownCodec,
      List<PeerRows> peers,
      int[] party,
      int[] column) {
    if (party.length != column.length) {
      throw new IllegalArgumentException("one party and one column per output column");
    }
    this.table = table;
    this.keys = keys.clone();
    this.ownCodec = ownCodec;
    this.peers = List.copyOf(peers);
    this.party = party.clone();
    this.column = column.clone();
    long n = 0;
    for (int u : keys) {
      long product = table.rowCount(u);
      for (PeerRows p : peers) {
        product = Math.multiplyExact(product, p.count()[u]);
      }
      n = Math.addExact(n, product);
    }
    this.rows = n;
  }

  @Override
  public long rows() {
    return rows;
  }

  @Override
  public void emitTo(Consumer<byte[]> out) {
    int m = peers.size();
    int[] own = new int[ownCodec.arity() + 1];
    int[] at = new int[m]; // the row of each other party in the current combination
    for (int u : keys) {
      table.forEachRow(
          u,
          (buf, off, len) -> {
            ownCodec.columns(buf, off, len, own, 0, false);
            for (int j = 0; j < m; j++) {
              at[j] = peers.get(j).first()[u];
            }
            while (true) {
              out.accept(row(buf, own, at));
              // the next combination, the last party's rows counting fastest
              int j = m - 1;
              while (j >= 0) {
                PeerRows p = peers.get(j);
                if (++at[j] < p.first()[u] + p.count()[u]) {
                  break;
                }
                at[j] = p.first()[u];
                j--;
              }
              if (j < 0) {
                break;
              }
            }
          });
    }
  }

  /** One output row: the own row's columns in {@code buf} at {@code own}, the others' at rows. */
  private byte[] row(byte[] buf, int[] own, int[] at) {
    int size = 0;
    for (int i = 0; i < party.length; i++) {
      size += columnLength(own, at, i);
    }
    byte[] row = new byte[size];
    int p = 0;
    for (int i = 0; i < party.length; i++) {
      int c = column[i];
      int n = columnLength(own, at, i);
      if (party[i] == 0) {
        System.arraycopy(buf, own[c], row, p, n);
      } else {
        PeerRows peer = peers.get(party[i] - 1);
        System.arraycopy(
            peer.payload(), peer.columns()[at[party[i] - 1] * (peer.arity() + 1) + c], row, p, n);
      }
      p += n;
    }
    return row;
  }

  private int columnLength(int[] own, int[] at, int i) {
    int c = column[i];
    if (party[i] == 0) {
      return own[c + 1] - own[c];
    }
    PeerRows peer = peers.get(party[i] - 1);
    int base = at[party[i] - 1] * (peer.arity() + 1);
    return peer.columns()[base + c + 1] - peer.columns()[base + c];
  }
}
