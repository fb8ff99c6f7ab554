package io.psiflink.jobs.bin;

import io.psiflink.api.Role;
import io.psiflink.connectors.row.Varint;
import io.psiflink.jobs.token.Tokens;
import io.psiflink.nativepsi.RandomBytes;
import java.util.Arrays;
import java.util.List;

/**
 * One bin's rows, as this party collected them: the distinct tokens (the set fed to PSI) and, for
 * each, the encoded rows that carry it (for the reverse lookup). Built from the chunks the bin kept
 * in keyed state; each chunk is a run of records {@code hi(8) lo(8) varint len, row bytes}.
 *
 * <p>Distinct tokens are numbered in token order (unsigned, hi then lo), and a token's rows are
 * kept together in arrival order: the payload step walks the intersecting tokens in token order on
 * both sides (B sends its columns so), and then reads this table's arrays front to back instead of
 * once per key at a random place in a table far larger than the caches. The numbering is local:
 * every protocol sends its elements in a secret random order, whatever the input order.
 */
public final class BinTable {
  private final List<byte[]> chunks;
  private final int records;
  // the rows in token order: record k lies at rowOff[k], rowLen[k] of chunk chunkOf[k]
  private final int[] chunkOf;
  private final int[] rowOff;
  private final int[] rowLen;
  private final long[] uniqueHi;
  private final long[] uniqueLo;
  private final int[] first; // the records of distinct token u: first[u] .. first[u + 1] - 1
  private final int unique;

  public BinTable(List<byte[]> chunks) {
    this.chunks = chunks;
    int n = 0;
    for (byte[] c : chunks) {
      for (int q = 0; q < c.length; n++) {
        long row = rowAt(c, q);
        q = Varint.next(row) + Varint.value(row);
      }
    }
    records = n;
    long[] hi = new long[n];
    long[] lo = new long[n];
    int[] chunkIn = new int[n];
    int[] offIn = new int[n];
    int[] lenIn = new int[n];
    int r = 0;
    for (int c = 0; c < chunks.size(); c++) {
      byte[] b = chunks.get(c);
      for (int q = 0; q < b.length; r++) {
        long row = rowAt(b, q);
        hi[r] = Tokens.hiAt(b, q);
        lo[r] = Tokens.loAt(b, q);
        chunkIn[r] = c;
        offIn[r] = Varint.next(row);
        lenIn[r] = Varint.value(row);
        q = offIn[r] + lenIn[r];
      }
    }
    int[] order = sortByToken(hi, lo);
    chunkOf = new int[n];
    rowOff = new int[n];
    rowLen = new int[n];
    long[] uHi = new long[n];
    long[] uLo = new long[n];
    int[] starts = new int[n + 1];
    int u = 0;
    for (int k = 0; k < n; k++) {
      int i = order[k];
      chunkOf[k] = chunkIn[i];
      rowOff[k] = offIn[i];
      rowLen[k] = lenIn[i];
      if (u == 0 || hi[i] != uHi[u - 1] || lo[i] != uLo[u - 1]) {
        uHi[u] = hi[i];
        uLo[u] = lo[i];
        starts[u++] = k;
      }
    }
    starts[u] = n;
    unique = u;
    uniqueHi = u == n ? uHi : Arrays.copyOf(uHi, u);
    uniqueLo = u == n ? uLo : Arrays.copyOf(uLo, u);
    first = u == n ? starts : Arrays.copyOf(starts, u + 1);
  }

  /**
   * The record indices ordered by token, equal tokens in index order. Tokens are uniform (PRF
   * outputs), so one counting pass on their top bits leaves buckets of one or two records, sorted
   * in place; a bucket that holds many (one key on many rows) is sorted in full unless in order.
   */
  static int[] sortByToken(long[] hi, long[] lo) {
    int n = hi.length;
    int bits = Math.max(1, Math.min(24, 31 - Integer.numberOfLeadingZeros(Math.max(1, n))));
    int shift = 64 - bits;
    int[] end = new int[(1 << bits) + 1];
    for (int i = 0; i < n; i++) {
      end[(int) (hi[i] >>> shift) + 1]++;
    }
    for (int b = 0; b < 1 << bits; b++) {
      end[b + 1] += end[b];
    }
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[end[(int) (hi[i] >>> shift)]++] = i; // afterwards end[b] is where bucket b ends
    }
    for (int b = 0, from = 0; b < 1 << bits; from = end[b++]) {
      int to = end[b];
      if (to - from < 2) {
        continue;
      }
      if (to - from <= 32) {
        for (int k = from + 1; k < to; k++) { // insertion sort: stable, buckets are tiny
          int x = order[k];
          int j = k - 1;
          while (j >= from && compare(hi, lo, order[j], x) > 0) {
            order[j + 1] = order[j];
            j--;
          }
          order[j + 1] = x;
        }
      } else if (!sorted(hi, lo, order, from, to)) {
        int[] run =
            Arrays.stream(order, from, to)
                .boxed()
                .sorted((x, y) -> compare(hi, lo, x, y))
                .mapToInt(Integer::intValue)
                .toArray();
        System.arraycopy(run, 0, order, from, run.length);
      }
    }
    return order;
  }

  private static boolean sorted(long[] hi, long[] lo, int[] order, int from, int to) {
    for (int k = from + 1; k < to; k++) {
      if (compare(hi, lo, order[k - 1], order[k]) > 0) {
        return false;
      }
    }
    return true;
  }

  /** Token order (unsigned), then index: a total order, so sorting by it is stable. */
  private static int compare(long[] hi, long[] lo, int a, int b) {
    int c = Long.compareUnsigned(hi[a], hi[b]);
    if (c == 0) {
      c = Long.compareUnsigned(lo[a], lo[b]);
    }
    return c != 0 ? c : Integer.compare(a, b);
  }

  /** The row of the record at {@code p}: its length and offset, packed as {@link Varint#read}. */
  private static long rowAt(byte[] chunk, int p) {
    return Varint.read(chunk, p + Tokens.BYTES, chunk.length);
  }

  /**
   * The given distinct-token indices ordered by token, ascending: the order in which B sends the
   * columns of the intersecting keys. Indices are numbered in token order, so this is their
   * ascending order.
   */
  public int[] byToken(long[] indices) {
    int[] order = new int[indices.length];
    for (int k = 0; k < order.length; k++) {
      order[k] = Math.toIntExact(indices[k]);
    }
    Arrays.sort(order); // results come ascending: the sort finds one run
    return order;
  }

  /** Rows in the bin. */
  public int rows() {
    return records;
  }

  /** Distinct tokens in the bin. */
  public int distinct() {
    return unique;
  }

  public long hi(int u) {
    return uniqueHi[u];
  }

  public long lo(int u) {
    return uniqueLo[u];
  }

  /**
   * The PSI input: the distinct tokens, 16 bytes each, then dummies up to {@code bound} elements,
   * drawn at random ({@link RandomBytes}) in this party's half of the dummy domain ({@link
   * Tokens}). Call once per bin attempt: every call draws new dummies.
   *
   * @param self whose dummies to make, {@link Role#A}'s or {@link Role#B}'s (they never collide)
   */
  public byte[] elements(long bound, Role self) {
    if (unique > bound) {
      throw new IllegalStateException("more distinct tokens than the bound");
    }
    byte[] e = new byte[Math.toIntExact(bound * Tokens.BYTES)];
    for (int u = 0; u < unique; u++) {
      Tokens.put(e, u * Tokens.BYTES, uniqueHi[u], uniqueLo[u]);
    }
    int first = unique * Tokens.BYTES;
    byte[] r = new byte[e.length - first];
    RandomBytes.fill(r);
    System.arraycopy(r, 0, e, first, r.length);
    for (int p = first; p < e.length; p += Tokens.BYTES) {
      Tokens.put(e, p, Tokens.dummyHi(self, Tokens.hiAt(e, p)), Tokens.loAt(e, p));
    }
    return e;
  }

  /** Calls {@code visitor} for every row carrying distinct token {@code u}, in arrival order. */
  public void forEachRow(int u, RowVisitor visitor) {
    for (int k = first[u], end = first[u + 1]; k < end; k++) {
      visitor.visit(chunks.get(chunkOf[k]), rowOff[k], rowLen[k]);
    }
  }

  /** Number of rows carrying distinct token {@code u}. */
  public int rowCount(int u) {
    return first[u + 1] - first[u];
  }

  /** Receives one encoded row: {@code len} bytes at {@code off} of {@code buf}. */
  @FunctionalInterface
  public interface RowVisitor {
    void visit(byte[] buf, int off, int len);
  }
}
