package io.psiflink.jobs.psi;

/**
 * One row after tokenization: its 128-bit token, its bin, and the encoded columns this party keeps
 * for the output (see {@link io.psiflink.jobs.row.RowCodec}). A Flink POJO (public fields, no-arg
 * constructor) so the shuffle to the bins uses Flink's POJO serializer.
 */
public class TokenizedRow {
  public long hi;
  public long lo;
  public int bin;
  public byte[] row;

  public TokenizedRow() {}

  public TokenizedRow(long hi, long lo, int bin, byte[] row) {
    this.hi = hi;
    this.lo = lo;
    this.bin = bin;
    this.row = row;
  }
}
