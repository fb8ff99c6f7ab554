package io.psiflink.tools.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.psiflink.connectors.TableContents;
import io.psiflink.connectors.TableFormat;
import io.psiflink.connectors.TableReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each join kind and key expressions through the real job (two party JVMs over the bridge), checked
 * against DuckDB running the same SQL on the same rows: duplicates and NULL keys on both sides,
 * strings SQL tells apart (precomposed and decomposed é, trailing and leading spaces, case, the
 * empty string, characters outside the BMP), WHERE on both sides, every output format.
 */
class JoinKindsTest {
  @TempDir Path dir;

  /** Keys SQL compares as different strings, though some look or normalise alike. */
  static final String[] KEYS = {
    "\u00e9", // é precomposed
    "e\u0301", // e + combining acute
    "abc",
    "abc ",
    " abc",
    "ABC",
    "",
    "\ud83d\ude00", // an emoji, outside the BMP
    "x\ud83d\ude00y",
    "Stra\u00dfe",
    "k1",
    "k2",
    "k3",
    "k4",
    "k5",
    "onlyA",
    "onlyB"
  };

  static final String[] EMAILS = {
    "Ann@X.org",
    "ann@x.org ",
    " ann@x.org",
    "bob@y.org",
    "BOB@Y.ORG",
    "\u00e9@z.org",
    "e\u0301@z.org",
    "",
    "carl@w.org",
    "dora@v.org"
  };

  static final String[] COUNTRIES = {"DE", "FR", "NL", null};

  record RowA(long id, String k, String email, Long x) {}

  record RowB(long id, String k, String mail, String country, Double v) {}

  static Stream<Arguments> queries() {
    return Stream.of(
        // inner join on exact strings, WHERE on both sides
        Arguments.of(
            "SELECT a.id, a.k, b.id AS bid, b.v FROM a JOIN b ON a.k = b.k"
                + " WHERE a.x > 1 AND b.country <> 'FR'",
            "avro"),
        // LEFT JOIN on a key expression, b's condition in ON, a's in WHERE
        Arguments.of(
            "SELECT a.id, a.email, b.id AS bid, b.country FROM a LEFT JOIN b"
                + " ON LOWER(TRIM(a.email)) = LOWER(TRIM(b.mail)) AND b.country = 'DE'"
                + " WHERE a.x <> 3",
            "parquet"),
        // semi-join on NFC-normalised keys (DuckDB's nfc_normalize): the two é now match
        Arguments.of(
            "SELECT a.id, a.x FROM a WHERE EXISTS (SELECT 1 FROM b WHERE NFC(b.k) = NFC(a.k)"
                + " AND b.v > 0.5) AND a.x < 9",
            "csv"),
        // anti-join: NOT EXISTS (a's NULL keys included)
        Arguments.of(
            "SELECT a.id, a.k, a.x FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k"
                + " AND b.country <> 'NL') AND a.x < 8",
            "avro"));
  }

  /** More forms of the same kinds: each run costs two party JVMs, so these wait for --large. */
  static Stream<Arguments> largeQueries() {
    return Stream.of(
        // LEFT JOIN with a two-column key whose WHERE rejects b's NULLs: an inner join
        Arguments.of(
            "SELECT a.id, b.id AS bid FROM a LEFT JOIN b ON a.k = b.k AND UPPER(a.email) ="
                + " UPPER(b.mail) WHERE b.v > 0.3",
            "csv"),
        // semi-join by row-value IN with an expression
        Arguments.of(
            "SELECT a.id, a.k FROM a WHERE (a.k, LOWER(a.email)) IN (SELECT b.k, LOWER(b.mail)"
                + " FROM b WHERE b.country IS NOT NULL)",
            "parquet"),
        // anti-join: LEFT JOIN ... WHERE b.k IS NULL
        Arguments.of(
            "SELECT a.id, a.email FROM a LEFT JOIN b ON a.k = b.k WHERE b.k IS NULL", "avro"),
        // anti-join: NOT IN where neither key can be NULL
        Arguments.of(
            "SELECT a.id FROM a WHERE a.k IS NOT NULL AND a.k NOT IN (SELECT b.k FROM b WHERE"
                + " b.k IS NOT NULL)",
            "csv"));
  }

  @ParameterizedTest(name = "{1}: {0}")
  @MethodSource("queries")
  void privateJoinEqualsDuckDb(String sql, String format) throws Exception {
    privateJoinEqualsDuckDb(sql, format, Map.of());
  }

  @ParameterizedTest(name = "{1}: {0}")
  @MethodSource("largeQueries")
  @EnabledIfSystemProperty(named = "psi.large", matches = "true")
  void moreFormsEqualDuckDb(String sql, String format) throws Exception {
    privateJoinEqualsDuckDb(sql, format, Map.of());
  }

  /** The labeled mode, where A gets B's columns from the PSI's labels: the kinds emit the same. */
  private static final Map<String, String> LABELED =
      Map.of("mode", "labeled", "label-bytes", "1024");

  @Test
  void labeledLeftJoinEqualsDuckDb() throws Exception {
    privateJoinEqualsDuckDb(
        "SELECT a.id, a.email, b.id AS bid, b.country FROM a LEFT JOIN b"
            + " ON LOWER(TRIM(a.email)) = LOWER(TRIM(b.mail)) AND b.country = 'DE'"
            + " WHERE a.x <> 3",
        "avro",
        LABELED);
  }

  /** A labeled anti-join runs without labels (output=receiver). */
  @Test
  @EnabledIfSystemProperty(named = "psi.large", matches = "true")
  void labeledAntiJoinEqualsDuckDb() throws Exception {
    privateJoinEqualsDuckDb(
        "SELECT a.id, a.k, a.x FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k"
            + " AND b.country <> 'NL') AND a.x < 8",
        "parquet",
        LABELED);
  }

  /**
   * With the prefilter, a LEFT join's output is the same: A's rows that are no candidates reach the
   * output as unmatched rows (and its NULL keys as before).
   */
  @Test
  void prefilteredLeftJoinEqualsDuckDb() throws Exception {
    privateJoinEqualsDuckDb(
        "SELECT a.id, a.k, b.id AS bid, b.v FROM a LEFT JOIN b ON a.k = b.k WHERE a.x <> 3",
        "avro",
        Map.of("prefilter", "helper", "filter-bits", "16"));
  }

  private void privateJoinEqualsDuckDb(String sql, String format, Map<String, String> extra)
      throws Exception {
    List<RowA> a = new ArrayList<>();
    List<RowB> b = new ArrayList<>();
    generate(a, b, 11);
    Path aFile = dir.resolve("a.avro");
    Path bFile = dir.resolve("b.avro");
    writeA(a, aFile);
    writeB(b, bFile);
    List<String> expected = duckDb(a, b, sql);
    assertFalse(expected.isEmpty(), "the oracle's answer is empty: the test would prove little");

    Map<String, String> opts = new HashMap<>();
    opts.put("a", aFile.toString());
    opts.put("b", bFile.toString());
    opts.put("sql", sql);
    opts.put("out", dir.resolve("out").toString());
    opts.put("format", format);
    opts.put("bins", "2");
    opts.put("parallelism", "2");
    opts.put("party-heap", "512m");
    opts.put("work", dir.resolve("work").toString());
    opts.put("max-bad-rows", "100%"); // b's NULL keys are quarantined, as before
    opts.putAll(extra);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    try (PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      LocalJoin.run(opts, ps);
    } catch (Exception e) {
      System.err.println(log.toString(StandardCharsets.UTF_8));
      throw e;
    }
    TableContents out =
        TableReader.readAll(
            dir.resolve("out").toString(), TableFormat.valueOf(format.toUpperCase()));
    List<String> actual = new ArrayList<>();
    for (Row r : out.rows()) {
      List<String> vals = new ArrayList<>();
      for (int i = 0; i < r.getArity(); i++) {
        vals.add(render(r.getField(i)));
      }
      actual.add(String.join("|", vals));
    }
    actual.sort(null);
    assertEquals(expected, actual, sql);
  }

  /**
   * Rows drawing keys from small pools: duplicates, matches, near-misses and NULLs on both sides.
   */
  static void generate(List<RowA> a, List<RowB> b, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    for (int i = 0; i < 160; i++) {
      String k = r.nextInt(12) == 0 ? null : KEYS[r.nextInt(KEYS.length - 1)]; // no "onlyB"
      String email = r.nextInt(15) == 0 ? null : EMAILS[r.nextInt(EMAILS.length)];
      Long x = r.nextInt(10) == 0 ? null : (long) r.nextInt(10);
      a.add(new RowA(i, k, email, x));
    }
    for (int i = 0; i < 140; i++) {
      String k = r.nextInt(12) == 0 ? null : KEYS[r.nextInt(KEYS.length - 3) + 2]; // some of a's
      if (k != null && k.equals("onlyA")) {
        k = "onlyB";
      }
      String mail = r.nextInt(15) == 0 ? null : EMAILS[r.nextInt(EMAILS.length)];
      Double v = r.nextInt(10) == 0 ? null : Math.round(r.nextDouble() * 100) / 100.0;
      b.add(new RowB(1000 + i, k, mail, COUNTRIES[r.nextInt(COUNTRIES.length)], v));
    }
    // the decomposed é only at b, the precomposed one at both: equal only under NFC
    b.add(new RowB(2000, "e\u0301", "x@x", "DE", 1.0));
    a.add(new RowA(500, "\u00e9", "x@x", 1L));
  }

  /** The same SQL on the same rows in DuckDB, each row rendered as the job's output is. */
  static List<String> duckDb(List<RowA> a, List<RowB> b, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:")) {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE MACRO nfc(s) AS nfc_normalize(s)"); // the jobs' NFC under its name
        s.execute("CREATE TABLE a (id BIGINT, k VARCHAR, email VARCHAR, x BIGINT)");
        s.execute("CREATE TABLE b (id BIGINT, k VARCHAR, mail VARCHAR, country VARCHAR, v DOUBLE)");
      }
      try (PreparedStatement p = c.prepareStatement("INSERT INTO a VALUES (?, ?, ?, ?)")) {
        for (RowA x : a) {
          p.setLong(1, x.id());
          p.setObject(2, x.k());
          p.setObject(3, x.email());
          p.setObject(4, x.x());
          p.addBatch();
        }
        p.executeBatch();
      }
      try (PreparedStatement p = c.prepareStatement("INSERT INTO b VALUES (?, ?, ?, ?, ?)")) {
        for (RowB x : b) {
          p.setLong(1, x.id());
          p.setObject(2, x.k());
          p.setObject(3, x.mail());
          p.setObject(4, x.country());
          p.setObject(5, x.v());
          p.addBatch();
        }
        p.executeBatch();
      }
      // the inserted strings must be the ones written to the files, byte for byte: the two é
      // must stay two keys in DuckDB too
      for (String e : List.of("\u00e9", "e\u0301")) {
        try (PreparedStatement p =
            c.prepareStatement("SELECT count(*) FROM a WHERE k = ? AND strlen(k) = ?")) {
          p.setString(1, e);
          p.setLong(2, e.getBytes(StandardCharsets.UTF_8).length);
          try (ResultSet rs = p.executeQuery()) {
            rs.next();
            assertEquals(
                a.stream().filter(x -> e.equals(x.k())).count(),
                rs.getLong(1),
                "DuckDB must keep the strings as they are");
          }
        }
      }
      List<String> out = new ArrayList<>();
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(sql)) {
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          List<String> vals = new ArrayList<>();
          for (int i = 1; i <= n; i++) {
            vals.add(render(rs.getObject(i)));
          }
          out.add(String.join("|", vals));
        }
      }
      out.sort(null);
      return out;
    }
  }

  static String render(Object v) {
    return v instanceof Integer i ? Long.toString(i) : Objects.toString(v, "NULL");
  }

  static void writeA(List<RowA> rows, Path file) throws IOException {
    Schema schema =
        SchemaBuilder.record("a")
            .fields()
            .requiredLong("id")
            .optionalString("k")
            .optionalString("email")
            .optionalLong("x")
            .endRecord();
    try (DataFileWriter<GenericRecord> w = new DataFileWriter<>(new GenericDatumWriter<>(schema))) {
      w.create(schema, file.toFile());
      for (RowA x : rows) {
        GenericRecord rec = new GenericData.Record(schema);
        rec.put("id", x.id());
        rec.put("k", x.k());
        rec.put("email", x.email());
        rec.put("x", x.x());
        w.append(rec);
      }
    }
  }

  static void writeB(List<RowB> rows, Path file) throws IOException {
    Schema schema =
        SchemaBuilder.record("b")
            .fields()
            .requiredLong("id")
            .optionalString("k")
            .optionalString("mail")
            .optionalString("country")
            .optionalDouble("v")
            .endRecord();
    try (DataFileWriter<GenericRecord> w = new DataFileWriter<>(new GenericDatumWriter<>(schema))) {
      w.create(schema, file.toFile());
      for (RowB x : rows) {
        GenericRecord rec = new GenericData.Record(schema);
        rec.put("id", x.id());
        rec.put("k", x.k());
        rec.put("mail", x.mail());
        rec.put("country", x.country());
        rec.put("v", x.v());
        w.append(rec);
      }
    }
  }
}
