package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
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
