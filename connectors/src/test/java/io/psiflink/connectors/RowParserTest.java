package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import io.psiflink.connectors.row.RecordView;
import io.psiflink.connectors.row.RowView;
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
    RowParser<Row> parser =
        new RowParser<>(
            "t",
            FieldDecoder.PASS_THROUGH,
            QUARANTINE,
            new int[] {0},
            new String[] {"k"},
            new ColumnType[] {ColumnType.STRING},
            new RowView());
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

  private static final TableSchema ALL_TYPES =
      new TableSchema(
          List.of(
              new Column("b", ColumnType.BOOLEAN, true),
              new Column("i", ColumnType.INT, true),
              new Column("l", ColumnType.BIGINT, true),
              new Column("f", ColumnType.FLOAT, true),
              new Column("d", ColumnType.DOUBLE, true),
              new Column("s", ColumnType.STRING, true),
              new Column("y", ColumnType.BYTES, true),
              new Column("n", ColumnType.BIGINT, false)));

  /**
   * The packed path against the rows: random CSV records, good and bad, of every type (NULL, quoted
   * empty, NaN and NULL keys, numbers out of range, bad Base64, wrong field counts) pass and fail
   * alike with the same reasons, and every column of a passing record encodes to the same bytes
   * read from the row and from the packed record.
   */
  @Test
  void packedRecordsPassAndFailAsRowsAndReadTheSameValues() throws Exception {
    String[][] values = {
      {"true", "FALSE", "yes", "", "\"\""},
      {"7", "-2147483648", "2147483648", "x", "", "\"\"", "007"},
      {"0", "-9223372036854775808", "9223372036854775808", "12345678901234567", "1.5", ""},
      {"1.5", "NaN", "-Infinity", "1e39", "-0.0", "", ".5", "abc", "\"\""},
      {"-0.0", "0.1", "1e400", "NaN", "123456789012345678", "2e-3", "", "x", "\"\""},
      {"\"a,b\"", "\"\"", "abc", "", "é\uD83D\uDE00", "\"say \"\"hi\"\"\""},
      {"AAEC", "", "\"\"", "!!", "YQ=="},
      {"1", "2", "", "\"\"", "z"}
    }; // the first two of each column are good values (and keys), drawn more often
    java.util.SplittableRandom r = new java.util.SplittableRandom(5);
    StringBuilder text = new StringBuilder(String.join(",", ALL_TYPES.names())).append('\n');
    for (int line = 0; line < 3000; line++) {
      int fields = r.nextInt(40) == 0 ? values.length - 1 : values.length;
      for (int i = 0; i < fields; i++) {
        int v = r.nextInt(3) == 0 ? r.nextInt(values[i].length) : r.nextInt(2);
        text.append(i == 0 ? "" : ",").append(values[i][v]);
      }
      text.append('\n');
    }
    List<Row> records = new java.util.ArrayList<>();
    try (CsvRecordReader reader =
        new CsvRecordReader(
            new java.io.ByteArrayInputStream(
                text.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)),
            CsvOptions.DEFAULT,
            true)) {
      reader.next(); // the header
      for (CsvRecord c; (c = reader.next()) != null; ) {
        records.add(SourceRecord.good("f", c.line(), null, c.packed()));
      }
    }
    int[] keys = {2, 4, 5};
    String[] keyNames = {"l", "d", "s"};
    ColumnType[] keyTypes = {ColumnType.BIGINT, ColumnType.DOUBLE, ColumnType.STRING};
    CsvFieldDecoder decoder = new CsvFieldDecoder(ALL_TYPES);
    RowParser<Row> rows =
        new RowParser<>("t", decoder, QUARANTINE, keys, keyNames, keyTypes, new RowView());
    RowParser<byte[]> packed =
        new RowParser<>("t", decoder, QUARANTINE, keys, keyNames, keyTypes, decoder.view());
    try (OneInputStreamOperatorTestHarness<Row, Row> hr =
            new OneInputStreamOperatorTestHarness<>(new ProcessOperator<>(rows));
        OneInputStreamOperatorTestHarness<Row, byte[]> hp =
            new OneInputStreamOperatorTestHarness<>(new ProcessOperator<>(packed))) {
      hr.open();
      hp.open();
      for (Row rec : records) {
        byte[] p = (byte[]) SourceRecord.payload(rec);
        hr.processElement(new StreamRecord<>(SourceRecord.good("f", 0, null, p.clone())));
        hp.processElement(new StreamRecord<>(SourceRecord.good("f", 0, null, p.clone())));
      }
      List<String> badRows = reasons(hr.getSideOutput(QUARANTINE));
      assertEquals(badRows, reasons(hp.getSideOutput(QUARANTINE)));
      List<Row> good = hr.extractOutputValues();
      List<byte[]> goodPacked = hp.extractOutputValues();
      assertEquals(good.size(), goodPacked.size());
      assertEquals(records.size(), good.size() + badRows.size());
      assertTrue(good.size() > 100 && badRows.size() > 100, good.size() + " / " + badRows.size());
      io.psiflink.connectors.row.RowCodec codec =
          new io.psiflink.connectors.row.RowCodec(
              ALL_TYPES.columns().stream().map(Column::type).toList());
      int[] all = {0, 1, 2, 3, 4, 5, 6, 7};
      CsvRecordView view = decoder.view();
      for (int k = 0; k < good.size(); k++) {
        io.psiflink.connectors.row.RowCodec.Out a = new io.psiflink.connectors.row.RowCodec.Out();
        io.psiflink.connectors.row.RowCodec.Out b = new io.psiflink.connectors.row.RowCodec.Out();
        codec.encode(good.get(k), all, a);
        codec.encode(view.set(goodPacked.get(k)), all, b, new RecordView.Bytes());
        org.junit.jupiter.api.Assertions.assertArrayEquals(
            a.toByteArray(), b.toByteArray(), good.get(k).toString());
        for (int f = 0; f < all.length; f++) {
          assertEquals(good.get(k).getField(f) == null, view.isNull(f));
        }
      }
    }
  }

  private static List<String> reasons(
      java.util.concurrent.ConcurrentLinkedQueue<StreamRecord<BadRow>> bad) {
    return bad.stream().map(b -> b.getValue().reason() + " | " + b.getValue().raw()).toList();
  }
}
