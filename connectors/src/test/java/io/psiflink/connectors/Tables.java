package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/** Test helpers: draining results, multiset comparison of rows. */
final class Tables {
  private Tables() {}

  static <T> List<T> drain(CloseableIterator<T> it) throws Exception {
    List<T> out = new ArrayList<>();
    try (it) {
      it.forEachRemaining(out::add);
    }
    return out;
  }

  /** Asserts equal multisets (Row equality is deep: byte[] by content, RowKind included). */
  static void assertSameRows(Collection<Row> expected, Collection<Row> actual) {
    Map<Row, Integer> counts = new HashMap<>();
    for (Row r : expected) {
      counts.merge(copy(r), 1, Integer::sum);
    }
    List<Row> unexpected = new ArrayList<>();
    for (Row r : actual) {
      Row key = copy(r);
      Integer n = counts.get(key);
      if (n == null) {
        unexpected.add(r);
      } else if (n == 1) {
        counts.remove(key);
      } else {
        counts.put(key, n - 1);
      }
    }
    if (!unexpected.isEmpty() || !counts.isEmpty()) {
      fail(
          "rows differ\n  missing:    "
              + describe(counts.keySet())
              + "\n  unexpected: "
              + describe(unexpected));
    }
  }

  /** A positional copy, so rows deserialized with field names compare like Row.of rows. */
  private static Row copy(Row r) {
    Row c = new Row(r.getKind(), r.getArity());
    for (int i = 0; i < r.getArity(); i++) {
      c.setField(i, r.getField(i));
    }
    return c;
  }

  private static String describe(Collection<Row> rows) {
    StringBuilder sb = new StringBuilder("[");
    Iterator<Row> it = rows.iterator();
    while (it.hasNext()) {
      Row r = it.next();
      sb.append(r.getKind().shortString()).append('(');
      for (int i = 0; i < r.getArity(); i++) {
        Object v = r.getField(i);
        sb.append(i == 0 ? "" : ", ")
            .append(
                v instanceof byte[] b
                    ? java.util.Arrays.toString(b)
                    : v == null ? "null" : v + " :" + v.getClass().getSimpleName());
      }
      sb.append(')').append(it.hasNext() ? ", " : "");
    }
    return sb.append(']').toString();
  }
}
