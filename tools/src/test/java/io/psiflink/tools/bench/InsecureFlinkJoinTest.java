package io.psiflink.tools.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.TableSchema;
import io.psiflink.connectors.SchemaDiscovery;
import io.psiflink.tools.bench.InsecureFlinkJoin.Options;
import io.psiflink.tools.bench.InsecureFlinkJoin.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InsecureFlinkJoinTest {

  @TempDir static Path tmp;
  static GeneratedTables tables;
  static List<Row> a;
  static List<Row> b;
  static final Options SMALL = new Options("256m", Map.of());

  @BeforeAll
  static void generate() throws Exception {
    tables =
        TableGenerator.generate(
            new GeneratorSpec(2000, 3000, 0.5, 0.2, 0.05, 11), tmp.resolve("in"));
    a = JavaJoin.readTyped(tables.a(), TableGenerator.SCHEMA_A);
    b = JavaJoin.readTyped(tables.b(), TableGenerator.SCHEMA_B);
  }

  @Test
  void defaultQueryMatchesPlainJavaJoin() throws Exception {
    List<Row> expected = JavaJoin.join(a, b, r -> true, r -> true, JavaJoin::defaultSelect);
    Result r =
        InsecureFlinkJoin.run(
            tables.a(),
            TableGenerator.SCHEMA_A,
            tables.b(),
            TableGenerator.SCHEMA_B,
            TableGenerator.DEFAULT_QUERY,
            2,
            Optional.empty(),
            SMALL);
    assertEquals(tables.expectedJoinRows(), r.rows());
    assertEquals(expected.size(), r.rows());
    assertEquals(RowDigest.of(expected), r.digest());
    assertTrue(
        r.joinOperator().matches("(HashJoin|SortMergeJoin|AdaptiveJoin)\\(.*"), r.joinOperator());
    assertTrue(
        r.seconds() > 0 && r.phases().keySet().containsAll(List.of("prepare", "plan", "execute")));
    assertTrue(r.toJson().contains("\"rows\":" + expected.size() + ","));
  }

  @Test
  void whereOnBothSidesAndCsvOutput() throws Exception {
    String sql =
        "SELECT a.id, a.name, a.zip, b.id AS bid, b.email_domain, b.country, a.spend "
            + "FROM a JOIN b ON a.card = b.card AND a.zip = b.zip "
            + "WHERE a.spend > 50 AND b.country = 'DE'";
    List<Row> expected =
        JavaJoin.join(
            a,
            b,
            ra -> ra.getField(3) != null && (Double) ra.getField(3) > 50,
            rb -> "DE".equals(rb.getField(3)),
            (ra, rb) ->
                Row.of(
                    ra.getField(0),
                    ra.getField(4),
                    ra.getField(2),
                    rb.getField(0),
                    rb.getField(4),
                    rb.getField(3),
                    ra.getField(3)));
    assertTrue(expected.size() > 50 && expected.size() < tables.expectedJoinRows());
    // the WHERE rows include names that needed quoting or are non-ASCII, and NULL names/domains
    assertTrue(expected.stream().anyMatch(r -> r.getField(1) == null || r.getField(4) == null));

    Path out = tmp.resolve("out");
    Result r =
        InsecureFlinkJoin.run(
            tables.a(),
            TableGenerator.SCHEMA_A,
            tables.b(),
            TableGenerator.SCHEMA_B,
            sql,
            2,
            Optional.of(out),
            SMALL);
    assertEquals(expected.size(), r.rows());
    assertEquals(RowDigest.of(expected), r.digest());

    // the Avro written holds the same rows, under the result's column names and types
    assertEquals(RowDigest.of(expected), JoinBenchmark.digestAvro(out));
    TableSchema outSchema =
        InsecureFlinkJoin.parseSchema(
            "id BIGINT, name STRING, zip STRING, bid BIGINT, email_domain STRING, country STRING, spend DOUBLE");
    try (Stream<Path> files = Files.list(out)) {
      Path part =
          files.filter(p -> p.getFileName().toString().endsWith(".avro")).findFirst().orElseThrow();
      TableSchema written = SchemaDiscovery.discover(part.toString());
      assertEquals(outSchema.names(), written.names());
      assertEquals(
          outSchema.columns().stream().map(Column::type).toList(),
          written.columns().stream().map(Column::type).toList());
    }
  }

  @Test
  void headerMustMatchSchema() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                InsecureFlinkJoin.run(
                    tables.b(),
                    TableGenerator.SCHEMA_A,
                    tables.a(),
                    TableGenerator.SCHEMA_B,
                    TableGenerator.DEFAULT_QUERY,
                    1,
                    Optional.empty(),
                    SMALL));
    assertTrue(e.getMessage().contains("header"), e.getMessage());
  }

  @Test
  void partsCutOnlyAtRecordBoundaries() throws Exception {
    StringBuilder sb = new StringBuilder("x,\"the \"\"y\"\"\"\n");
    for (int i = 0; i < 500; i++) {
      sb.append(Csv.record((long) i, i % 7 == 0 ? "multi\nline, \"quoted\"\n" + i : "v" + i));
    }
    Path csv = tmp.resolve("parts.csv");
    Files.writeString(csv, sb, StandardCharsets.UTF_8);
    CsvParts.Split split = CsvParts.split(csv, tmp.resolve("parts"), "p", 4);
    assertEquals(List.of("x", "the \"y\""), split.header());
    assertEquals(4, split.parts().size());
    StringBuilder joined = new StringBuilder();
    List<List<String>> recs = new ArrayList<>();
    for (Path p : split.parts()) {
      String part = Files.readString(p, StandardCharsets.UTF_8);
      assertTrue(part.length() > 0);
      recs.addAll(SimpleCsv.parse(part)); // every part parses on its own
      joined.append(part);
    }
    assertEquals(sb.substring(sb.indexOf("\n") + 1), joined.toString());
    assertEquals(500, recs.size());
    assertTrue(recs.stream().allMatch(r -> r.size() == 2));
    assertEquals("multi\nline, \"quoted\"\n490", recs.get(490).get(1));
    // a header-only file gives one empty part
    Files.writeString(tmp.resolve("empty.csv"), "id,card\n");
    CsvParts.Split e = CsvParts.split(tmp.resolve("empty.csv"), tmp.resolve("e"), "e", 3);
    assertEquals(List.of("id", "card"), e.header());
    assertEquals(1, e.parts().size());
    assertEquals(0, Files.size(e.parts().get(0)));
  }

  @Test
  void joinOperatorIsReadFromThePhysicalPlan() {
    String plan =
        "== Abstract Syntax Tree ==\nLogicalJoin(condition=[...])\n"
            + "== Optimized Physical Plan ==\nCalc(select=[id])\n"
            + "+- HashJoin(joinType=[InnerJoin], where=[AND(=(card, card0), =(zip, zip0))], "
            + "select=[id, card], isBroadcast=[true], build=[left])\n"
            + "== Optimized Execution Plan ==\nHashJoin(joinType=[InnerJoin])\n";
    assertEquals(
        "HashJoin(joinType=[InnerJoin], isBroadcast=[true], build=[left])",
        InsecureFlinkJoin.joinOperator(plan));
    assertEquals("none", InsecureFlinkJoin.joinOperator("== Optimized Physical Plan ==\nCalc()\n"));
    assertTrue(
        Objects.requireNonNull(
                InsecureFlinkJoin.createTable("a", TableGenerator.SCHEMA_A, Path.of("/x/it's")))
            .contains("`id` BIGINT NOT NULL"));
  }
}
