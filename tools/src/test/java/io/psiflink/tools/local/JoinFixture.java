package io.psiflink.tools.local;

import io.psiflink.connectors.TableFiles;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;

/**
 * Two small generated tables, written as CSV, and the plaintext SQL join of them computed here in
 * plain Java: the oracle the private join is checked against.
 *
 * <p>a(id BIGINT, card BIGINT, zip STRING, spend DOUBLE, name STRING) and b(id BIGINT, card BIGINT,
 * zip STRING, country STRING, email STRING), joined on (card, zip).
 */
final class JoinFixture {
  static final String SQL =
      "SELECT a.id, a.spend, b.email, b.id AS bid FROM a JOIN b "
          + "ON a.card = b.card AND a.zip = b.zip WHERE a.spend > 20 AND b.country <> 'FR'";

  record RowA(long id, Long card, String zip, Double spend, String name) {}

  record RowB(long id, Long card, String zip, String country, String email) {}

  final List<RowA> a = new ArrayList<>();
  final List<RowB> b = new ArrayList<>();

  /**
   * @param overlap fraction of a's distinct keys that b also has
   * @param dup probability that a row repeats an earlier key of its table
   * @param nulls probability that a row's card or zip is NULL
   */
  static JoinFixture generate(
      int rowsA, int rowsB, double overlap, double dup, double nulls, long seed) {
    JoinFixture f = new JoinFixture();
    SplittableRandom r = new SplittableRandom(seed);
    List<Object[]> keysA = new ArrayList<>();
    List<Object[]> keysB = new ArrayList<>();
    String[] countries = {"DE", "FR", "NL", null};
    for (int i = 0; i < rowsA; i++) {
      Object[] k =
          !keysA.isEmpty() && r.nextDouble() < dup
              ? keysA.get(r.nextInt(keysA.size()))
              : new Object[] {1_000_000L + i, "z" + (i % 97)};
      keysA.add(k);
      Object[] kk = maybeNull(k, nulls, r);
      f.a.add(
          new RowA(
              i,
              (Long) kk[0],
              (String) kk[1],
              r.nextInt(10) == 0 ? null : Math.round(r.nextDouble() * 10000) / 100.0,
              "n\u00e4me, \"" + i + "\""));
    }
    List<Object[]> distinctA = keysA.stream().distinct().toList();
    for (int i = 0; i < rowsB; i++) {
      Object[] k;
      if (!keysB.isEmpty() && r.nextDouble() < dup) {
        k = keysB.get(r.nextInt(keysB.size()));
      } else if (!distinctA.isEmpty() && r.nextDouble() < overlap) {
        k = distinctA.get(r.nextInt(distinctA.size()));
      } else {
        k = new Object[] {5_000_000L + i, "z" + (i % 89)};
      }
      keysB.add(k);
      Object[] kk = maybeNull(k, nulls, r);
      f.b.add(
          new RowB(
              i,
              (Long) kk[0],
              (String) kk[1],
              countries[r.nextInt(countries.length)],
              "user" + i + "@example.org"));
    }
    return f;
  }

  private static Object[] maybeNull(Object[] k, double nulls, SplittableRandom r) {
    if (r.nextDouble() >= nulls) {
      return k;
    }
    return r.nextBoolean() ? new Object[] {null, k[1]} : new Object[] {k[0], null};
  }

  /** Writes a as CSV and b as CSV or, when {@code bFile} ends in .avro, as Avro. */
  void write(Path aCsv, Path bFile) throws IOException {
    try (Writer w = Files.newBufferedWriter(aCsv, StandardCharsets.UTF_8)) {
      w.write("id,card,zip,spend,name\n");
      for (RowA x : a) {
        w.write(
            x.id
                + ","
                + str(x.card)
                + ","
                + str(x.zip)
                + ","
                + str(x.spend)
                + ","
                + quote(x.name)
                + "\n");
      }
    }
    if (bFile.toString().endsWith(".avro")) {
      writeAvroB(bFile);
      return;
    }
    try (Writer w = Files.newBufferedWriter(bFile, StandardCharsets.UTF_8)) {
      w.write("id,card,zip,country,email\n");
      for (RowB x : b) {
        w.write(
            x.id
                + ","
                + str(x.card)
                + ","
                + str(x.zip)
                + ","
                + str(x.country)
                + ","
                + x.email
                + "\n");
      }
    }
  }

  /**
   * Writes the tables into {@code dir} (a as CSV, b as {@code b.<bFormat>}) and returns the options
   * of a {@link LocalJoin} of {@link #SQL} on them, writing to {@code dir/out}, parallelism 2.
   */
  Map<String, String> localJoinOptions(Path dir, String bFormat, String bins, String heap)
      throws IOException {
    Path a = dir.resolve("a.csv");
    Path b = dir.resolve("b." + bFormat);
    write(a, b);
    Map<String, String> opts = new HashMap<>();
    opts.put("a", a.toString());
    opts.put("b", b.toString());
    opts.put("sql", SQL);
    opts.put("out", dir.resolve("out").toString());
    opts.put("bins", bins);
    opts.put("parallelism", "2");
    opts.put("party-heap", heap);
    opts.put("work", dir.resolve("work").toString());
    // the fixtures have NULL keys on purpose (up to 10% of the rows); they are quarantined
    opts.put("max-bad-rows", "100%");
    return opts;
  }

  /** b as Avro: its schema travels in the file, so even an empty b has typed columns. */
  private void writeAvroB(Path file) throws IOException {
    Schema schema =
        SchemaBuilder.record("b")
            .fields()
            .requiredLong("id")
            .optionalLong("card")
            .optionalString("zip")
            .optionalString("country")
            .requiredString("email")
            .endRecord();
    try (DataFileWriter<GenericRecord> w = new DataFileWriter<>(new GenericDatumWriter<>(schema))) {
      w.create(schema, file.toFile());
      for (RowB x : b) {
        GenericRecord rec = new GenericData.Record(schema);
        rec.put("id", x.id);
        rec.put("card", x.card);
        rec.put("zip", x.zip);
        rec.put("country", x.country);
        rec.put("email", x.email);
        w.append(rec);
      }
    }
  }

  /** The plaintext join of {@link #SQL}, each row rendered as "id|spend|email|bid", sorted. */
  List<String> expected() {
    return expected(
        x -> x.spend != null && x.spend > 20, y -> y.country != null && !y.country.equals("FR"));
  }

  /** The same join under another WHERE: {@code whereA} and {@code whereB} as in SQL. */
  List<String> expected(
      java.util.function.Predicate<RowA> whereA, java.util.function.Predicate<RowB> whereB) {
    Map<String, List<RowB>> byKey = new HashMap<>();
    for (RowB x : b) {
      if (x.card != null && x.zip != null && whereB.test(x)) {
        byKey.computeIfAbsent(x.card + "|" + x.zip, k -> new ArrayList<>()).add(x);
      }
    }
    List<String> out = new ArrayList<>();
    for (RowA x : a) {
      if (x.card == null || x.zip == null || !whereA.test(x)) {
        continue;
      }
      for (RowB y : byKey.getOrDefault(x.card + "|" + x.zip, List.of())) {
        out.add(x.id + "|" + x.spend + "|" + y.email + "|" + y.id);
      }
    }
    out.sort(null);
    return out;
  }

  /**
   * The number of distinct (card, zip) keys both filtered tables hold: the answer of {@code SELECT
   * COUNT(DISTINCT a.card, a.zip)} with {@link #SQL}'s ON and WHERE.
   */
  long expectedKeyCount() {
    java.util.Set<String> inB = new java.util.HashSet<>();
    for (RowB x : b) {
      if (x.card != null && x.zip != null && x.country != null && !x.country.equals("FR")) {
        inB.add(x.card + "|" + x.zip);
      }
    }
    java.util.Set<String> both = new java.util.HashSet<>();
    for (RowA x : a) {
      if (x.card != null
          && x.zip != null
          && x.spend != null
          && x.spend > 20
          && inB.contains(x.card + "|" + x.zip)) {
        both.add(x.card + "|" + x.zip);
      }
    }
    return both.size();
  }

  /** Reads every visible Avro part file of {@code dir} with the plain Avro library. */
  static List<String> readAvro(Path dir, List<String> fields) throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.filter(p -> TableFiles.isVisible(p.getFileName().toString())).toList()) {
        try (DataFileReader<GenericRecord> r =
            new DataFileReader<>(p.toFile(), new GenericDatumReader<>())) {
          for (GenericRecord rec : r) {
            List<String> vals = new ArrayList<>();
            for (String f : fields) {
              vals.add(Objects.toString(rec.get(f), "null"));
            }
            out.add(String.join("|", vals));
          }
        }
      }
    }
    out.sort(null);
    return out;
  }

  private static String str(Object o) {
    return o == null ? "" : o.toString();
  }

  private static String quote(String s) {
    return "\"" + s.replace("\"", "\"\"") + "\"";
  }
}
