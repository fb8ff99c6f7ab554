package io.psiflink.tools.bench;

import io.psiflink.api.TableSchema;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import org.apache.flink.types.Row;

/**
 * The test oracle: CSV → typed rows with {@link SimpleCsv}, and an inner equi-join in plain Java.
 */
final class JavaJoin {
  private JavaJoin() {}

  /** Typed rows of a bench CSV file; checks the header and the field count of every record. */
  static List<Row> readTyped(Path csv, TableSchema schema) throws IOException {
    List<List<String>> recs = SimpleCsv.read(csv);
    if (!recs.get(0).equals(schema.names())) {
      throw new AssertionError("header " + recs.get(0) + " != " + schema.names());
    }
    List<Row> rows = new ArrayList<>(recs.size() - 1);
    for (int r = 1; r < recs.size(); r++) {
      List<String> f = recs.get(r);
      if (f.size() != schema.size()) {
        throw new AssertionError("record " + r + " has " + f.size() + " fields: " + f);
      }
      Row row = new Row(schema.size());
      for (int i = 0; i < schema.size(); i++) {
        String s = f.get(i);
        row.setField(
            i,
            s == null
                ? null
                : switch (schema.column(i).type()) {
                  case BIGINT -> Long.parseLong(s);
                  case DOUBLE -> Double.parseDouble(s);
                  case STRING -> s;
                  default -> throw new AssertionError("type " + schema.column(i).type());
                });
      }
      rows.add(row);
    }
    return rows;
  }

  /** (card, zip) of a bench row, or null if either is NULL. */
  static List<Object> key(Row r) {
    Object card = r.getField(1);
    Object zip = r.getField(2);
    return card == null || zip == null ? null : List.of(card, zip);
  }

  /** Inner join on (card, zip) with per-side filters, projecting each pair. */
  static List<Row> join(
      List<Row> a,
      List<Row> b,
      Predicate<Row> whereA,
      Predicate<Row> whereB,
      BiFunction<Row, Row, Row> select) {
    Map<List<Object>, List<Row>> index = new HashMap<>();
    for (Row rb : b) {
      List<Object> k = key(rb);
      if (k != null && whereB.test(rb)) {
        index.computeIfAbsent(k, x -> new ArrayList<>()).add(rb);
      }
    }
    List<Row> out = new ArrayList<>();
    for (Row ra : a) {
      List<Object> k = key(ra);
      if (k == null || !whereA.test(ra)) {
        continue;
      }
      for (Row rb : index.getOrDefault(k, List.of())) {
        out.add(select.apply(ra, rb));
      }
    }
    return out;
  }

  /** The default bench query's projection: a.id, a.spend, b.email_domain, b.country. */
  static Row defaultSelect(Row a, Row b) {
    return Row.of(a.getField(0), a.getField(3), b.getField(4), b.getField(3));
  }
}
