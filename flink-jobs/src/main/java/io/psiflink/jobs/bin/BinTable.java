package io.psiflink.jobs.bin;

import io.psiflink.api.Role;
import io.psiflink.connectors.row.Varint;
import io.psiflink.jobs.token.Tokens;
import java.util.Arrays;
import java.util.List;

/**
 * One bin's rows, as this party collected them: the distinct tokens (the set fed to PSI) and, for
 * each, the chain of encoded rows that carry it (for the reverse lookup). Built from the chunks the
 * bin kept in keyed state; each chunk is a run of records {@code hi(8) lo(8) varint len, row
 * bytes}.
 */
public final class BinTable {
  private final List<byte[]> chunks;
  private final int records;
  private final int[] chunkOf;
  private final int[] rowOff;
  private final int[] rowLen;
  private final int[] next; // next record with the same token, or -1
  private final long[] uniqueHi;
  private final long[] uniqueLo;
  private final int[] head; // first record of each distinct token
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
    chunkOf = new int[n];
    rowOff = new int[n];
    rowLen = new int[n];
    next = new int[n];
    long[] hi = new long[n];
    long[] lo = new long[n];
    int r = 0;
    for (int c = 0; c < chunks.size(); c++) {
      byte[] b = chunks.get(c);
      for (int q = 0; q < b.length; r++) {
        long row = rowAt(b, q);
        hi[r] = Tokens.hiAt(b, q);
        lo[r] = Tokens.loAt(b, q);
        chunkOf[r] = c;
        rowOff[r] = Varint.next(row);
        rowLen[r] = Varint.value(row);
        q = rowOff[r] + rowLen[r];
      }
    }
    // Open addressing over the distinct tokens; chains link the records of one token.
    int cap = Integer.highestOneBit(Math.max(4, n * 2 - 1)) << 1;
    int[] slots = new int[cap]; // distinct-token index per slot, or -1
    Arrays.fill(slots, -1);
    int[] lastOf = new int[n];
    long[] uHi = new long[n];
    long[] uLo = new long[n];
    int[] heads = new int[n];
    int u = 0;
    for (int i = 0; i < n; i++) {
      next[i] = -1;
      int s = (int) (mix(hi[i], lo[i]) & (cap - 1));
      while (true) {
        int k = slots[s];
        if (k < 0) {
          slots[s] = u;
          uHi[u] = hi[i];
          uLo[u] = lo[i];
          heads[u] = i;
          lastOf[u] = i;
          u++;
          break;
        }
        if (uHi[k] == hi[i] && uLo[k] == lo[i]) {
          next[lastOf[k]] = i;
          lastOf[k] = i;
          break;
        }
        s = (s + 1) & (cap - 1);
      }
    }
    unique = u;
    uniqueHi = Arrays.copyOf(uHi, u);
    uniqueLo = Arrays.copyOf(uLo, u);
    head = Arrays.copyOf(heads, u);
  }

  /** The row of the record at {@code p}: its length and offset, packed as {@link Varint#read}. */
  private static long rowAt(byte[] chunk, int p) {
    return Varint.read(chunk, p + Tokens.BYTES, chunk.length);
  }

  private static long mix(long a, long b) {
    long h = a * 0x9E3779B97F4A7C15L ^ b;
    h ^= h >>> 32;
    return h * 0xD6E8FEB86659FD93L;
  }

  /**
   * The given distinct-token indices ordered by token, ascending: the order in which B sends the
   * columns of the intersecting keys, so that A matches them to its own keys by walking both lists
   * instead of looking each token up in a table far larger than the caches.
   */
  public int[] byToken(long[] indices) {
    int n = indices.length;
    if (n > 0 && Integer.highestOneBit(unique) >= 1 << INDEX_BITS) {
      return Arrays.stream(indices)
          .mapToInt(i -> (int) i)
          .boxed()
          .sorted(this::compareTokens)
          .mapToInt(Integer::intValue)
          .toArray();
    }
    // Sort (top bits of hi, index) packed in one long with the JDK's primitive sort; real
    // tokens have hi >= 0. Equal top bits are rare and are put in full token order after.
    long[] packed = new long[n];
    for (int k = 0; k < n; k++) {
      int u = (int) indices[k];
      packed[k] = (uniqueHi[u] & ~INDEX_MASK) | u;
    }
    Arrays.sort(packed);
    int[] order = new int[n];
    for (int k = 0; k < n; k++) {
      order[k] = (int) (packed[k] & INDEX_MASK);
    }
    for (int k = 1; k < n; k++) { // insertion sort fixes the runs of equal prefixes
      int u = order[k];
      int j = k - 1;
      while (j >= 0
          && (packed[j] & ~INDEX_MASK) == (uniqueHi[u] & ~INDEX_MASK)
          && compareTokens(order[j], u) > 0) {
        order[j + 1] = order[j];
        packed[j + 1] = packed[j];
        j--;
      }
      order[j + 1] = u;
      packed[j + 1] = (uniqueHi[u] & ~INDEX_MASK) | u;
    }
    return order;
  }

  private static final int INDEX_BITS = 26;
  private static final long INDEX_MASK = (1L << INDEX_BITS) - 1;

  private int compareTokens(int a, int b) {
    int c = Long.compareUnsigned(uniqueHi[a], uniqueHi[b]);
    return c != 0 ? c : Long.compareUnsigned(uniqueLo[a], uniqueLo[b]);
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
   * drawn at random in this party's half of the dummy domain ({@link Tokens}). Call once per bin
   * attempt: every call draws new dummies.
   *
   * @param self whose dummies to make, {@link Role#A}'s or {@link Role#B}'s (they never collide)
   */
  public byte[] elements(long bound, Role self, java.security.SecureRandom random) {
    if (unique > bound) {
      throw new IllegalStateException("more distinct tokens than the bound");
    }
    byte[] e = new byte[Math.toIntExact(bound * Tokens.BYTES)];
    for (int u = 0; u < unique; u++) {
      Tokens.put(e, u * Tokens.BYTES, uniqueHi[u], uniqueLo[u]);
    }
    int first = unique * Tokens.BYTES;
    byte[] r = new byte[e.length - first];
    random.nextBytes(r);
    System.arraycopy(r, 0, e, first, r.length);
    for (int p = first; p < e.length; p += Tokens.BYTES) {
      Tokens.put(e, p, Tokens.dummyHi(self, Tokens.hiAt(e, p)), Tokens.loAt(e, p));
    }
    return e;
  }

  /** Calls {@code visitor} for every row carrying distinct token {@code u}. */
  public void forEachRow(int u, RowVisitor visitor) {
    for (int r = head[u]; r >= 0; r = next[r]) {
      visitor.visit(chunks.get(chunkOf[r]), rowOff[r], rowLen[r]);
    }
  }

  /** Number of rows carrying distinct token {@code u}. */
  public int rowCount(int u) {
    int c = 0;
    for (int r = head[u]; r >= 0; r = next[r]) {
      c++;
    }
    return c;
  }

  /** Receives one encoded row: {@code len} bytes at {@code off} of {@code buf}. */
  @FunctionalInterface
  public interface RowVisitor {
    void visit(byte[] buf, int off, int len);
  }
}
