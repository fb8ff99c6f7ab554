package io.psiflink.jobs.bin;

import io.psiflink.connectors.row.Varint;
import io.psiflink.jobs.token.Tokens;
import java.io.ByteArrayOutputStream;

/** Builds bin chunks for tests, written from the record format BinTable documents. */
public final class BinChunks {
  private BinChunks() {}

  /** Appends one record: the 16-byte token, the varint length of the row, the row. */
  public static void append(ByteArrayOutputStream chunk, long hi, long lo, byte[] row) {
    byte[] t = new byte[Tokens.BYTES];
    Tokens.put(t, 0, hi, lo);
    chunk.write(t, 0, t.length);
    Varint.write(chunk, row.length);
    chunk.write(row, 0, row.length);
  }
}
