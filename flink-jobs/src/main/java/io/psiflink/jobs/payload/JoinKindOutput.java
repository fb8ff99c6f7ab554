package io.psiflink.jobs.payload;

import io.psiflink.connectors.row.RowCodec;
import io.psiflink.jobs.bin.BinTable;
import io.psiflink.query.JoinKind;
import java.util.function.Consumer;

/**
 * What party A emits for one bin by the query's {@link JoinKind}, from what A holds after the PSI
 * whichever way B's columns arrived (PAYLOAD frames, or the PSI's labels): A's own rows of the bin,
 * which of its keys matched, and the matched rows joined with B's columns.
 *
 * <ul>
 *   <li>INNER: the matched rows;
 *   <li>LEFT: the matched rows, then every own row of a key that did not match, B's columns NULL;
 *   <li>SEMI: every own row of a key that matched, once (B sent no columns);
 *   <li>ANTI: every own row of a key that did not match (B sent no columns).
 * </ul>
 *
 * A's rows whose key is NULL never reach a bin: for LEFT and ANTI the tokenizer emits them with
 * {@link #ownRow} (SQL: no match exists for them).
 */
public final class JoinKindOutput {
  private JoinKindOutput() {}

  /**
   * @param ownCodec the encoding of A's kept columns (the rows of {@code table})
   * @param output per output column: {@code i >= 0} A's kept column i, negative B's column (NULL
   *     here; in {@code matched} B's value)
   * @param table A's rows of the bin
   * @param matchedKeys the distinct-key indices of {@code table} that matched, each once
   * @param matched the inner join's rows of the bin for INNER and LEFT (ignored for SEMI, ANTI)
   */
  public static BinOutput of(
      JoinKind kind,
      RowCodec ownCodec,
      int[] output,
      BinTable table,
      int[] matchedKeys,
      BinOutput matched) {
    return switch (kind) {
      case INNER -> matched;
      case LEFT -> concat(matched, ownRows(ownCodec, output, table, unmatched(table, matchedKeys)));
      case SEMI -> ownRows(ownCodec, output, table, matchedKeys.clone());
      case ANTI -> ownRows(ownCodec, output, table, unmatched(table, matchedKeys));
    };
  }

  /** The distinct-key indices of {@code table} not in {@code matched}, ascending. */
  static int[] unmatched(BinTable table, int[] matched) {
    boolean[] hit = new boolean[table.distinct()];
    for (int u : matched) {
      if (u < 0 || u >= hit.length || hit[u]) {
        throw new IllegalArgumentException("matched key " + u + " is not a distinct key, once");
      }
      hit[u] = true;
    }
    int[] out = new int[hit.length - matched.length];
    int n = 0;
    for (int u = 0; u < hit.length; u++) {
      if (!hit[u]) {
        out[n++] = u;
      }
    }
    return out;
  }

  /** Every row of the given keys, A's columns as kept and B's NULL. */
  private static BinOutput ownRows(RowCodec ownCodec, int[] output, BinTable table, int[] keys) {
    long rows = 0;
    for (int u : keys) {
      rows += table.rowCount(u);
    }
    long total = rows;
    int[] out = output.clone();
    return new BinOutput() {
      @Override
      public long rows() {
        return total;
      }

      @Override
      public void emitTo(Consumer<byte[]> sink) {
        int[] starts = new int[ownCodec.arity() + 1];
        for (int u : keys) {
          table.forEachRow(
              u, (buf, off, len) -> sink.accept(ownRow(ownCodec, out, buf, off, len, starts)));
        }
      }
    };
  }

  /**
   * One output row from one of A's encoded kept rows ({@code buf[off, off+len)}), every column of B
   * NULL.
   *
   * @param starts scratch space of {@code ownCodec.arity() + 1} ints
   */
  public static byte[] ownRow(
      RowCodec ownCodec, int[] output, byte[] buf, int off, int len, int[] starts) {
    ownCodec.columns(buf, off, len, starts, 0, false);
    int size = 0;
    for (int s : output) {
      size += s >= 0 ? starts[s + 1] - starts[s] : 1;
    }
    byte[] row = new byte[size];
    int p = 0;
    for (int s : output) {
      if (s >= 0) {
        int n = starts[s + 1] - starts[s];
        System.arraycopy(buf, starts[s], row, p, n);
        p += n;
      } else {
        row[p++] = 0; // the presence byte of a NULL (RowCodec)
      }
    }
    return row;
  }

  private static BinOutput concat(BinOutput first, BinOutput second) {
    return new BinOutput() {
      @Override
      public long rows() {
        return first.rows() + second.rows();
      }

      @Override
      public void emitTo(Consumer<byte[]> out) {
        first.emitTo(out);
        second.emitTo(out);
      }
    };
  }
}
