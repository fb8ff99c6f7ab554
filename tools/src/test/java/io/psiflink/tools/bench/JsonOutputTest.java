package io.psiflink.tools.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.psiflink.tools.local.LocalJoin;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;

/**
 * The JSON the tools print through Jackson is, byte for byte, what their hand-written writers
 * printed before (the oracles below are those writers' format strings): ./psi, the docs and the
 * benchmark notes read these fields.
 */
class JsonOutputTest {
  @Test
  void generatedTablesPrintAsBefore() {
    GeneratedTables.SideStats sa = new GeneratedTables.SideStats(10, 1, 4, 3, 8, 1, 2, 1234);
    GeneratedTables.SideStats sb = new GeneratedTables.SideStats(12, 0, 5, 3, 11, 1, 0, 2345);
    GeneratorSpec spec = new GeneratorSpec(10, 12, 0.5, 0.1, 0.05, 7);
    GeneratedTables t =
        new GeneratedTables(
            Path.of("/tmp/a \"x\".csv"), Path.of("/tmp/b.csv"), 4, spec, sa, sb, 1.23456);
    String stats =
        "{\"rows\":%d,\"nullKeyRows\":%d,\"matchingRows\":%d,\"sharedKeys\":%d,"
            + "\"distinctKeys\":%d,\"duplicateRows\":%d,\"nearMissRows\":%d,\"bytes\":%d}";
    String expected =
        String.format(
            Locale.ROOT,
            "{\"a\":\"%s\",\"b\":\"%s\",\"expectedJoinRows\":%d,\"spec\":{\"rowsA\":%d,\"rowsB\":%d,"
                + "\"overlap\":%s,\"duplicateFraction\":%s,\"nullKeyFraction\":%s,\"seed\":%d},"
                + "\"statsA\":%s,\"statsB\":%s,\"seconds\":%.3f}",
            "/tmp/a \\\"x\\\".csv",
            "/tmp/b.csv",
            4L,
            10L,
            12L,
            0.5,
            0.1,
            0.05,
            7L,
            String.format(Locale.ROOT, stats, 10, 1, 4, 3, 8, 1, 2, 1234),
            String.format(Locale.ROOT, stats, 12, 0, 5, 3, 11, 1, 0, 2345),
            1.23456);
    assertEquals(expected, t.toJson());
  }

  @Test
  void insecureResultsPrintAsBefore() {
    Map<String, Double> phases = new LinkedHashMap<>();
    phases.put("prepare", 0.5);
    phases.put("sinceJvmStart", 12.0004);
    RowDigest digest = RowDigest.of(Row.of(1L, "x"));
    InsecureFlinkJoin.Result r =
        new InsecureFlinkJoin.Result(
            42,
            digest,
            3.14159,
            "HashJoin(joinType=[InnerJoin], where=[=(card, card0)])",
            phases,
            "plan");
    String expected =
        String.format(
            Locale.ROOT,
            "{\"rows\":%d,\"digest\":\"%s\",\"seconds\":%.3f,\"joinOperator\":\"%s\",\"phases\":"
                + "{\"prepare\":%.3f,\"sinceJvmStart\":%.3f}}",
            42L,
            digest,
            3.14159,
            "HashJoin(joinType=[InnerJoin], where=[=(card, card0)])",
            0.5,
            12.0004);
    assertEquals(expected, r.toJson());
  }

  @Test
  void localResultsEmbedTheJobsSummariesAsWritten() {
    String a = "{\"rows_out\":5,\"total_seconds\":1.500}";
    String b = "{\"rows_out\":0}";
    assertEquals(
        String.format(Locale.ROOT, "{\"total_seconds\":%.3f,\"a\":%s,\"b\":%s}", 2.0, a, b),
        new LocalJoin.Result(a, b, 2.0).toJson());
  }
}
