package io.psiflink.jobs.bin;

import io.psiflink.connectors.row.Varint;
import io.psiflink.jobs.token.Tokens;

/**
 * One tokenized row as it is shuffled to its bin: the bin (4 bytes, big-endian), then exactly the
 * record a bin stores ({@link BinTable}): the 16-byte token, the varint length of the row, and the
 * row's kept columns as {@link io.psiflink.connectors.row.RowCodec} encoded them. A plain byte[]
 * because Flink ships byte arrays with its cheapest serializer; a POJO cost a fifth of the tokenize
 * stage.
 */
public final class TokenRecord {
  /** The bin's bytes before the bin's record: {@code record[BIN_BYTES..]} is what a bin stores. */
  public static final int BIN_BYTES = 4;

  private TokenRecord() {}

  /** The record for the encoded row {@code row[off, off + len)}. */
  public static byte[] of(int bin, long hi, long lo, byte[] row, int off, int len) {
    byte[] r = new byte[BIN_BYTES + Tokens.BYTES + Varint.size(len) + len];
    r[0] = (byte) (bin >>> 24);
    r[1] = (byte) (bin >>> 16);
    r[2] = (byte) (bin >>> 8);
    r[3] = (byte) bin;
    Tokens.put(r, BIN_BYTES, hi, lo);
    int p = Varint.put(r, BIN_BYTES + Tokens.BYTES, len);
    System.arraycopy(row, off, r, p, len);
    return r;
  }

  public static int bin(byte[] record) {
    return (record[0] & 0xff) << 24
        | (record[1] & 0xff) << 16
        | (record[2] & 0xff) << 8
        | (record[3] & 0xff);
  }
}
