package io.psiflink.it.cluster;

import io.psiflink.api.Role;
import io.psiflink.tools.bench.GeneratorSpec;
import io.psiflink.tools.bench.TableGenerator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.types.Row;

/**
 * The expected answer of the end-to-end query, computed without the job: the generator's typed rows
 * (not the CSV the job parses), the WHERE conjuncts as Java predicates and an inner hash join in
 * plain Java.
 */
public final class JoinOracle {
  /** The query both parties run (columns of the generator's tables a and b). */
  public static final String SQL =
      "SELECT a.id, a.spend, b.email_domain, b.country FROM a JOIN b "
          + "ON a.card = b.card AND a.zip = b.zip WHERE a.spend > 50 AND b.country <> 'DE'";

  /** The output's column names. */
  public static final List<String> COLUMNS = List.of("id", "spend", "email_domain", "country");

  private JoinOracle() {}

  /** Expected output rows ({@link #line}) with their multiplicities. */
  public static Map<String, Integer> expected(GeneratorSpec spec) {
    // b side: (card, zip) -> rows passing b.country <> 'DE' (SQL: a NULL country is not <> 'DE')
    Map<List<Object>, List<Row>> index = new HashMap<>();
    TableGenerator.forEachRow(
        spec,
        Role.B,
        r -> {
          List<Object> k = key(r);
          Object country = r.getField(3);
          if (k != null && country != null && !country.equals("DE")) {
            index.computeIfAbsent(k, x -> new ArrayList<>()).add(r);
          }
        });
    Map<String, Integer> out = new HashMap<>();
    TableGenerator.forEachRow(
        spec,
        Role.A,
        r -> {
          List<Object> k = key(r);
          Object spend = r.getField(3);
          if (k == null || spend == null || !((Double) spend > 50)) {
            return;
          }
          for (Row b : index.getOrDefault(k, List.of())) {
            out.merge(
                line(
                    List.of(
                        r.getField(0), spend, nullable(b.getField(4)), nullable(b.getField(3)))),
                1,
                Integer::sum);
          }
        });
    return out;
  }

  private static Object nullable(Object o) {
    return o == null ? NULL : o;
  }

  private static final Object NULL =
      new Object() {
        @Override
        public String toString() {
          return "\\N";
        }
      };

  private static List<Object> key(Row r) {
    Object card = r.getField(1);
    Object zip = r.getField(2);
    return card == null || zip == null ? null : List.of(card, zip);
  }

  /** One row as a comparable line: values' string forms, NULL as \N, separated by U+0001. */
  public static String line(List<Object> values) {
    StringBuilder b = new StringBuilder();
    for (Object v : values) {
      if (b.length() > 0) {
        b.append('\u0001');
      }
      b.append(Objects.toString(v, "\\N"));
    }
    return b.toString();
  }
}
