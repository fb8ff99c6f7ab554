package io.psiflink.jobs.payload;

import io.psiflink.api.PartyOptions;
import io.psiflink.connectors.row.Varint;
import io.psiflink.jobs.bin.BinTable;
import io.psiflink.jobs.psi.PeerProtocolException;

/**
 * The payload of a labeled run: B's rows of each of its keys travel as that key's label in the PSI
 * ({@code output=labels}), so B never learns which keys A holds. A label is {@code varint rows ‖
 * (varint len ‖ encoded row)*}, zero-padded to the public label size: every label of the session
 * has that size, and B labels its dummies too (all zeros), so nothing of B's rows outside the join
 * shows in a size. All rows of one key travel in one label; a key whose rows do not fit fails the
 * bin, naming {@code --label-bytes}.
 */
public final class BinLabels {
  private BinLabels() {}

  /** A key's rows do not fit in one label; retrying does not help, so the job fails. */
  public static final class LabelOverflowException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    LabelOverflowException(int bin, int rows, long needed, int labelBytes) {
      super(
          String.format(
              java.util.Locale.ROOT,
              "bin %d: a key of this party has %,d rows that need a %,d-byte label, above the "
                  + "session's %s %,d (the public size of every key's label in the labeled mode); "
                  + "agree a larger %s with the peer",
              bin,
              rows,
              needed,
              PartyOptions.LABEL_BYTES.flagName(),
              labelBytes,
              PartyOptions.LABEL_BYTES.flagName()));
    }
  }

  /**
   * Party B: the labels of the bin's {@code count} elements (its keys in table order, then
   * dummies), {@code labelBytes} each, back to back: the order of {@link BinTable#elements}.
   */
  public static byte[] encode(BinTable table, long count, int labelBytes, int bin) {
    if (count < table.distinct() || count * labelBytes > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          count + " labels of " + labelBytes + " bytes for " + table.distinct() + " keys");
    }
    byte[] out = new byte[(int) (count * labelBytes)];
    for (int u = 0; u < table.distinct(); u++) {
      int base = u * labelBytes;
      int rows = table.rowCount(u);
      long[] needed = {Varint.size(rows)};
      table.forEachRow(u, (buf, off, len) -> needed[0] += Varint.size(len) + len);
      if (needed[0] > labelBytes) {
        throw new LabelOverflowException(bin, rows, needed[0], labelBytes);
      }
      int[] p = {Varint.put(out, base, rows)};
      table.forEachRow(
          u,
          (buf, off, len) -> {
            p[0] = Varint.put(out, p[0], len);
            System.arraycopy(buf, off, out, p[0], len);
            p[0] += len;
          });
    }
    return out;
  }

  /**
   * Party A: joins its rows of the intersecting elements {@code indices} (ascending, all below
   * {@code table.distinct()}) with B's rows in their labels ({@code labels}: one label of {@code
   * labelBytes} per index, in that order). Every label is checked (row count, well-formed rows,
   * zero padding) before anything is emitted.
   */
  public static BinOutput decode(
      BinPayload payload, BinTable table, long[] indices, byte[] labels, int labelBytes)
      throws PeerProtocolException {
    if ((long) indices.length * labelBytes != labels.length) {
      throw new PeerProtocolException(
          "PSI gave " + labels.length + " label bytes for " + indices.length + " matches");
    }
    // a row takes arity + 1 bytes or more with its length prefix
    int maxRows = labels.length / (payload.peerArity() + 1);
    BinPayload.PeerRowsReader reader = payload.reader(labels, table.distinct(), maxRows);
    int[] keys = new int[indices.length];
    try {
      for (int i = 0; i < indices.length; i++) {
        int u = (int) indices[i];
        keys[i] = u;
        int base = i * labelBytes;
        int end = base + labelBytes;
        long r = Varint.read(labels, base, end);
        int p = reader.read(u, Varint.value(r), Varint.next(r), end);
        for (; p < end; p++) {
          if (labels[p] != 0) {
            throw new PeerProtocolException("a label's padding is not zero");
          }
        }
      }
    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
      throw new PeerProtocolException("peer's label is malformed: " + e.getMessage());
    }
    return payload.join(table, keys, reader.done());
  }
}
