package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import io.psiflink.connectors.row.RowCodec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;

/** Known-answer output of the CSV writer, and that the tokenizer reads it back exactly. */
class CsvBulkWriterTest {
  private static final TableSchema SCHEMA =
      new TableSchema(
          List.of(
              new Column("id", ColumnType.BIGINT, false),
              new Column("text", ColumnType.STRING, true),
              new Column("blob", ColumnType.BYTES, true),
              new Column("x", ColumnType.DOUBLE, true),
              new Column("ok", ColumnType.BOOLEAN, true)));

  @Test
  void quotesOnlyWhereNeeded() throws IOException {
    String csv =
        write(
            Row.of(1L, "plain", new byte[] {1, 2, 3}, 1e10, true),
            Row.of(2L, "a,b", new byte[0], -0.0, false),
            Row.of(3L, "say \"hi\"", null, null, null),
            Row.of(4L, "", null, 0.1, null),
            Row.of(5L, null, null, null, null),
            Row.of(6L, " pad", null, null, null),
            Row.of(7L, "line1\nline2\r\n", null, null, null),
            Row.of(8L, "tab\t", null, null, null),
            Row.of(9L, "\u00fcber \u20ac", null, null, null));
    assertEquals(
        "id,text,blob,x,ok\n"
            + "1,plain,AQID,1.0E10,true\n"
            + "2,\"a,b\",\"\",-0.0,false\n"
            + "3,\"say \"\"hi\"\"\",,,\n"
            + "4,\"\",,0.1,\n"
            + "5,,,,\n"
            + "6,\" pad\",,,\n"
            + "7,\"line1\nline2\r\n\",,,\n"
            + "8,\"tab\t\",,,\n"
            + "9,\u00fcber \u20ac,,,\n",
        csv);
  }

  @Test
  void tokenizerReadsWhatWasWritten() throws IOException {
    String[] texts = {
      "",
      null,
      "\"",
      ",",
      "\r",
      "\n",
      "\r\n",
      " ",
      "a\"b\"\"c",
      "\uFEFFbom",
      "\u00e9\u4e2d\ud83d\ude00"
    };
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < texts.length; i++) {
      rows.add(Row.of((long) i, texts[i], null, null, null));
    }
    String csv = write(rows.toArray(new Row[0]));
    CsvRecordReader reader =
        new CsvRecordReader(
            new ByteArrayInputStream(csv.getBytes(StandardCharsets.UTF_8)),
            CsvOptions.DEFAULT,
            true);
    reader.next(); // header
    for (int i = 0; i < texts.length; i++) {
      CsvRecord r = reader.next();
      assertEquals(null, r.error());
      assertEquals(texts[i], r.fields()[1], "value " + i);
    }
    assertEquals(null, reader.next());
  }

  @Test
  void wrongValueClassIsAnError() {
    assertThrows(IOException.class, () -> write(Row.of(1, "x", null, null, null)));
  }

  /**
   * Rows in RowCodec encoding are written to exactly the bytes of their decoded rows: random texts
   * of the characters quoting is about, every type, NULLs, and STRING bytes that are not UTF-8
   * (written as their decoding, with replacement characters).
   */
  @Test
  void encodedRowsAreWrittenExactlyAsTheirDecodedRows() throws IOException {
    RowCodec codec = new RowCodec(SCHEMA.columns().stream().map(Column::type).toList());
    String[] pieces = {
      "a", "7", ",", "\"", "\r", "\n", " ", "\t", "\u00e9", "\u4e2d", "\ud83d\ude00", "\uFEFF"
    };
    java.util.SplittableRandom r = new java.util.SplittableRandom(5);
    List<byte[]> encoded = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      StringBuilder text = new StringBuilder();
      for (int k = r.nextInt(6); k > 0; k--) {
        text.append(pieces[r.nextInt(pieces.length)]);
      }
      Row row =
          Row.of(
              r.nextLong(),
              r.nextInt(8) == 0 ? null : text.toString(),
              r.nextInt(3) == 0 ? null : new byte[r.nextInt(5)],
              r.nextInt(3) == 0 ? null : r.nextDouble() * 1e6,
              r.nextInt(3) == 0 ? null : r.nextBoolean());
      encoded.add(codec.encode(row, new int[] {0, 1, 2, 3, 4}));
    }
    // STRING bytes that are not UTF-8: a lone continuation byte, a truncated sequence, a surrogate
    for (byte[] bad :
        new byte[][] {
          {'a', (byte) 0x80},
          {(byte) 0xE4, (byte) 0xB8},
          {(byte) 0xED, (byte) 0xA0, (byte) 0x80, ','}
        }) {
      byte[] row = codec.encode(Row.of(1L, null, null, null, null), new int[] {0, 1, 2, 3, 4});
      byte[] withText = new byte[row.length + 1 + bad.length];
      System.arraycopy(row, 0, withText, 0, 9); // the BIGINT column
      withText[9] = 1;
      withText[10] = (byte) bad.length;
      System.arraycopy(bad, 0, withText, 11, bad.length);
      System.arraycopy(row, 10, withText, 11 + bad.length, row.length - 10);
      encoded.add(withText);
    }
    ByteArrayOutputStream viaRows = new ByteArrayOutputStream();
    ByteArrayOutputStream viaEncoded = new ByteArrayOutputStream();
    BulkWriter<Row> w =
        CsvBulkWriter.factory(SCHEMA, CsvOptions.DEFAULT).create(new MemoryOutputStream(viaRows));
    BulkWriter<byte[]> e =
        CsvBulkWriter.encodedFactory(SCHEMA, CsvOptions.DEFAULT)
            .create(new MemoryOutputStream(viaEncoded));
    for (byte[] row : encoded) {
      Object[] values = new Object[codec.arity()];
      codec.decode(row, 0, row.length, values, 0);
      w.addElement(Row.of(values));
      e.addElement(row);
    }
    w.finish();
    e.finish();
    assertTrue(viaRows.size() > 60_000, "the rows span more than one buffer");
    assertEquals(
        viaRows.toString(StandardCharsets.UTF_8), viaEncoded.toString(StandardCharsets.UTF_8));
    assertArrayEquals(viaRows.toByteArray(), viaEncoded.toByteArray());
    assertThrows(IOException.class, () -> e.addElement(new byte[] {1, 2}));
  }

  static String write(Row... rows) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BulkWriter<Row> w =
        CsvBulkWriter.factory(SCHEMA, CsvOptions.DEFAULT).create(new MemoryOutputStream(bytes));
    for (Row r : rows) {
      w.addElement(r);
    }
    w.finish();
    return bytes.toString(StandardCharsets.UTF_8);
  }

  /** An FSDataOutputStream over memory. */
  static final class MemoryOutputStream extends FSDataOutputStream {
    private final ByteArrayOutputStream out;

    MemoryOutputStream(ByteArrayOutputStream out) {
      this.out = out;
    }

    @Override
    public void write(int b) {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      out.write(b, off, len);
    }

    @Override
    public long getPos() {
      return out.size();
    }

    @Override
    public void flush() {}

    @Override
    public void sync() {}

    @Override
    public void close() {
      throw new AssertionError("the writer must not close Flink's stream");
    }
  }
}
