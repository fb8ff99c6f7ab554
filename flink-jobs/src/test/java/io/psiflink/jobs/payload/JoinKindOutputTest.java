package io.psiflink.jobs.payload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.psiflink.api.ColumnType;
import io.psiflink.connectors.row.RowCodec;
import io.psiflink.jobs.bin.BinChunks;
import io.psiflink.jobs.bin.BinTable;
import io.psiflink.query.JoinKind;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;

/** What A emits per bin for each join kind, against the same rows selected in plain Java. */
class JoinKindOutputTest {
  /** A's kept columns: (id BIGINT, name STRING); output: id, B's column, name. */
  static final RowCodec OWN = new RowCodec(List.of(ColumnType.BIGINT, ColumnType.STRING));

  static final int[] OUTPUT = {0, -1, 1};

  @Test
  void eachKindEmitsWhatSqlSays() {
    SplittableRandom r = new SplittableRandom(3);
    ByteArrayOutputStream chunk = new ByteArrayOutputStream();
    Map<Long, List<Long>> idsByKey = new HashMap<>();
    for (long id = 0; id < 200; id++) {
      long key = r.nextInt(40); // duplicates
      String name = id % 7 == 0 ? null : "n" + id;
      BinChunks.append(chunk, key, 0, OWN.encode(Row.of(id, name), new int[] {0, 1}));
      idsByKey.computeIfAbsent(key, k -> new ArrayList<>()).add(id);
    }
    BinTable table = new BinTable(List.of(chunk.toByteArray()));
    // every third distinct key matched
    List<Integer> matchedList = new ArrayList<>();
    Set<Long> matchedTokens = new HashSet<>();
    for (int u = 0; u < table.distinct(); u += 3) {
      matchedList.add(u);
      matchedTokens.add(table.hi(u));
    }
    int[] matched = matchedList.stream().mapToInt(Integer::intValue).toArray();
    BinOutput inner = rows(List.of(new byte[] {42}));

    List<String> matchedRows = new ArrayList<>();
    List<String> unmatchedRows = new ArrayList<>();
    idsByKey.forEach(
        (key, ids) -> {
          for (long id : ids) {
            String row = id + "|null|" + (id % 7 == 0 ? "null" : "n" + id);
            (matchedTokens.contains(key) ? matchedRows : unmatchedRows).add(row);
          }
        });

    assertEquals(List.of("inner"), emitted(JoinKind.INNER, table, matched, inner));
    List<String> left = new ArrayList<>(unmatchedRows);
    left.add("inner");
    assertEquals(sorted(left), emitted(JoinKind.LEFT, table, matched, inner));
    assertEquals(sorted(matchedRows), emitted(JoinKind.SEMI, table, matched, BinOutput.NONE));
    assertEquals(sorted(unmatchedRows), emitted(JoinKind.ANTI, table, matched, BinOutput.NONE));
    assertEquals(
        unmatchedRows.size() + 1L,
        JoinKindOutput.of(JoinKind.LEFT, OWN, OUTPUT, table, matched, inner).rows());
    assertEquals(
        200L,
        JoinKindOutput.of(JoinKind.ANTI, OWN, OUTPUT, table, new int[0], BinOutput.NONE).rows());
  }

  @Test
  void aMatchedKeyOutsideTheTableOrTwiceIsRefused() {
    ByteArrayOutputStream chunk = new ByteArrayOutputStream();
    BinChunks.append(chunk, 1, 0, OWN.encode(Row.of(1L, "x"), new int[] {0, 1}));
    BinTable table = new BinTable(List.of(chunk.toByteArray()));
    assertThrows(
        IllegalArgumentException.class,
        () -> JoinKindOutput.of(JoinKind.ANTI, OWN, OUTPUT, table, new int[] {1}, BinOutput.NONE));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            JoinKindOutput.of(JoinKind.LEFT, OWN, OUTPUT, table, new int[] {0, 0}, BinOutput.NONE));
  }

  /** Emitted rows decoded as id|b|name ("inner" for the marker row of the inner join), sorted. */
  private static List<String> emitted(
      JoinKind kind, BinTable table, int[] matched, BinOutput inner) {
    RowCodec out = new RowCodec(List.of(ColumnType.BIGINT, ColumnType.STRING, ColumnType.STRING));
    List<String> rows = new ArrayList<>();
    JoinKindOutput.of(kind, OWN, OUTPUT, table, matched, inner)
        .emitTo(
            b -> {
              if (Arrays.equals(b, new byte[] {42})) {
                rows.add("inner");
                return;
              }
              Object[] v = new Object[3];
              out.decode(b, 0, b.length, v, 0);
              rows.add(v[0] + "|" + v[1] + "|" + v[2]);
            });
    return sorted(rows);
  }

  private static List<String> sorted(List<String> l) {
    List<String> s = new ArrayList<>(l);
    s.sort(null);
    return s;
  }

  private static BinOutput rows(List<byte[]> rows) {
    return new BinOutput() {
      @Override
      public long rows() {
        return rows.size();
      }

      @Override
      public void emitTo(java.util.function.Consumer<byte[]> out) {
        rows.forEach(out);
      }
    };
  }
}
