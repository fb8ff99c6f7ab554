package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.types.Row;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.api.Test;

/** The reader's key checks, on the real operator in Flink's test harness. */
class RowParserTest {
  private static final OutputTag<BadRow> QUARANTINE = new OutputTag<>("bad") {};

  @Test
  void aKeyWithALoneSurrogateIsQuarantinedNamingTheColumnNotTokenizedAsQuestionMark()
      throws Exception {
    RowParser parser =
        new RowParser(
            "t", FieldDecoder.PASS_THROUGH, QUARANTINE, new int[] {0}, new String[] {"k"});
    try (OneInputStreamOperatorTestHarness<Row, Row> h =
        new OneInputStreamOperatorTestHarness<>(new ProcessOperator<>(parser))) {
      h.open();
      // two keys that differ only in a lone surrogate (a lenient encoder makes both "a?"), and a
      // proper surrogate pair, which is a good key
      h.processElement(new StreamRecord<>(SourceRecord.good("f", 1, null, Row.of("a\uD800", 1L))));
      h.processElement(new StreamRecord<>(SourceRecord.good("f", 2, null, Row.of("a\uDC00", 2L))));
      h.processElement(
          new StreamRecord<>(SourceRecord.good("f", 3, null, Row.of("a\uD83D\uDE00", 3L))));
      List<Row> good = h.extractOutputValues();
      assertEquals(List.of(Row.of("a\uD83D\uDE00", 3L)), good);
      List<String> reasons =
          h.getSideOutput(QUARANTINE).stream()
              .map(r -> r.getValue().line() + ": " + r.getValue().reason())
              .toList();
      assertEquals(
          List.of(
              "1: column 'k': unpaired UTF-16 surrogate at character 1 in a join key column (it has "
                  + "no exact encoding)",
              "2: column 'k': unpaired UTF-16 surrogate at character 1 in a join key column (it has "
                  + "no exact encoding)"),
          reasons);
      assertEquals(new ReadCounts(1, 2, 0), parser.counts());
    }
  }
}
