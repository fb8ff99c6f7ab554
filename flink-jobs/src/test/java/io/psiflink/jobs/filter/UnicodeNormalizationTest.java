package io.psiflink.jobs.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;

/** NFC, NFD, NFKC and NFKD as Flink SQL evaluates them, against Unicode's own examples. */
class UnicodeNormalizationTest {
  @Test
  void theFourFormsGiveUnicodesExamples() throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    env.setParallelism(1);
    StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
    UnicodeNormalization.register(tEnv);
    UnicodeNormalization.register(tEnv); // a second registration changes nothing
    // UAX #15, figure 6: the ligature "ﬁ" is compatibility-equivalent to "fi" only; "é" and
    // "e" + U+0301 are canonically equivalent; U+212B (angstrom sign) is canonically "Å"
    String in = "'e\u0301\ufb01\u212b'";
    List<Row> rows = new ArrayList<>();
    try (CloseableIterator<Row> it =
        tEnv.sqlQuery(
                "SELECT NFC("
                    + in
                    + "), nfd("
                    + in
                    + "), NFKC("
                    + in
                    + "), NFKD("
                    + in
                    + "), NFC(CAST(NULL AS STRING))")
            .execute()
            .collect()) {
      it.forEachRemaining(rows::add);
    }
    assertEquals(1, rows.size());
    Row r = rows.get(0);
    assertEquals("\u00e9\ufb01\u00c5", r.getField(0));
    assertEquals("e\u0301\ufb01A\u030a", r.getField(1));
    assertEquals("\u00e9fi\u00c5", r.getField(2));
    assertEquals("e\u0301fiA\u030a", r.getField(3));
    assertEquals(null, r.getField(4));
  }
}
