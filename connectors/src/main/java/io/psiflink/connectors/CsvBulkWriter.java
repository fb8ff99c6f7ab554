package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import io.psiflink.connectors.row.RowCodec;
import io.psiflink.connectors.row.Utf8;
import io.psiflink.connectors.row.Varint;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.types.Row;

/**
 * Writes rows as one CSV part file: a header line with the column names, then one line per row,
 * lines ended by LF, UTF-8 without BOM. Values are formatted by {@link CsvValues} (NULL is an empty
 * field, BYTES are Base64, doubles in Java's shortest form); fields are quoted by {@link
 * CsvQuoting}, the rule of every CSV psi-flink writes.
 *
 * <p>Rows come as {@link Row}s ({@link #factory}) or in {@link RowCodec} encoding ({@link
 * #encodedFactory}), written to the same bytes: from the encoding a STRING goes to the file as the
 * UTF-8 bytes it already is, not decoded to a String that is scanned and encoded again.
 */
public final class CsvBulkWriter implements BulkWriter<Row> {
  private static final int BUFFER_BYTES = 64 * 1024;

  private final FSDataOutputStream stream;
  private final TableSchema schema;
  private final CsvOptions options;
  // an own buffer, not a BufferedOutputStream: its synchronized writes cost a lock per field
  private final byte[] buf = new byte[BUFFER_BYTES];
  private int pos;

  private CsvBulkWriter(FSDataOutputStream stream, TableSchema schema, CsvOptions options)
      throws IOException {
    // the part file's stream belongs to Flink: buffer on top, flush but never close it
    this.stream = stream;
    this.schema = schema;
    this.options = options;
    for (int i = 0; i < schema.size(); i++) {
      writeField(i, schema.column(i).name());
    }
    put('\n');
  }

  public static BulkWriter.Factory<Row> factory(TableSchema schema, CsvOptions options) {
    return new Factory(schema, options);
  }

  /** Writes rows in {@link RowCodec} encoding of the schema's column types, as {@link #factory}. */
  public static BulkWriter.Factory<byte[]> encodedFactory(TableSchema schema, CsvOptions options) {
    return new EncodedFactory(schema, options);
  }

  @Override
  public void addElement(Row row) throws IOException {
    if (row.getArity() != schema.size()) {
      throw new IOException("a row of arity " + row.getArity() + " for table " + schema);
    }
    for (int i = 0; i < schema.size(); i++) {
      Column c = schema.column(i);
      String text;
      try {
        text = CsvValues.format(row.getField(i), c.type());
      } catch (IllegalArgumentException e) {
        throw new IOException("column '" + c.name() + "': " + e.getMessage(), e);
      }
      writeField(i, text);
    }
    put('\n');
  }

  /**
   * Writes the row {@code encoded} in {@code codec}'s encoding; {@code starts} (arity + 1) is
   * scratch space.
   */
  private void addEncoded(byte[] encoded, RowCodec codec, int[] starts) throws IOException {
    try {
      codec.columns(encoded, 0, encoded.length, starts, 0, false);
    } catch (IllegalArgumentException e) {
      throw new IOException("a malformed encoded row: " + e.getMessage(), e);
    }
    for (int i = 0; i < codec.arity(); i++) {
      if (i > 0) {
        put(options.delimiter());
      }
      int p = starts[i];
      if (encoded[p] == 0) {
        continue; // NULL: the empty field
      }
      ColumnType type = codec.type(i);
      if (type == ColumnType.STRING) {
        long r = Varint.read(encoded, p + 1, encoded.length);
        writeUtf8(encoded, Varint.next(r), Varint.value(r));
      } else {
        writeText(CsvValues.format(codec.value(encoded, p, i), type));
      }
    }
    put('\n');
  }

  @Override
  public void flush() throws IOException {
    drain();
    stream.flush();
  }

  @Override
  public void finish() throws IOException {
    flush();
  }

  private void writeField(int i, String text) throws IOException {
    if (i > 0) {
      put(options.delimiter());
    }
    if (text != null) {
      writeText(text);
    }
  }

  private void writeText(String text) throws IOException {
    byte[] b =
        CsvQuoting.field(text, options.delimiter(), options.quote())
            .getBytes(StandardCharsets.UTF_8);
    put(b, 0, b.length);
  }

  /**
   * Writes the STRING whose UTF-8 bytes are {@code b[from, from + n)} as {@link CsvQuoting#field}
   * of its text would be written. Delimiter and quote are ASCII ({@link CsvOptions}), so no byte of
   * a multi-byte character can be taken for one; bytes that are not UTF-8 take the String's way,
   * which writes what their decoding made of them.
   */
  private void writeUtf8(byte[] b, int from, int n) throws IOException {
    int end = from + n;
    byte delimiter = (byte) options.delimiter();
    byte quote = (byte) options.quote();
    boolean quoted =
        n == 0
            || b[from] == ' '
            || b[from] == '\t'
            || b[end - 1] == ' '
            || b[end - 1] == '\t'
            || n >= 3
                && b[from] == (byte) 0xEF
                && b[from + 1] == (byte) 0xBB
                && b[from + 2] == (byte) 0xBF; // U+FEFF
    boolean ascii = true;
    for (int k = from; k < end; k++) {
      byte c = b[k];
      if (c < 0) {
        ascii = false;
      } else if (c == delimiter || c == quote || c == '\r' || c == '\n') {
        quoted = true;
      }
    }
    if (!ascii && !Utf8.isValid(b, from, n)) {
      writeText(new String(b, from, n, StandardCharsets.UTF_8));
    } else if (!quoted) {
      put(b, from, n);
    } else {
      put(quote);
      for (int k = from; k < end; k++) {
        if (b[k] == quote) {
          put(quote);
        }
        put(b[k]);
      }
      put(quote);
    }
  }

  private void put(int b) throws IOException {
    if (pos == buf.length) {
      drain();
    }
    buf[pos++] = (byte) b;
  }

  private void put(byte[] b, int off, int len) throws IOException {
    if (len > buf.length - pos) {
      drain();
      if (len > buf.length) {
        stream.write(b, off, len);
        return;
      }
    }
    System.arraycopy(b, off, buf, pos, len);
    pos += len;
  }

  private void drain() throws IOException {
    if (pos > 0) {
      stream.write(buf, 0, pos);
      pos = 0;
    }
  }

  private static final class Factory implements BulkWriter.Factory<Row> {
    private static final long serialVersionUID = 1L;

    private final TableSchema schema;
    private final CsvOptions options;

    Factory(TableSchema schema, CsvOptions options) {
      this.schema = schema;
      this.options = options;
    }

    @Override
    public BulkWriter<Row> create(FSDataOutputStream out) throws IOException {
      return new CsvBulkWriter(out, schema, options);
    }
  }

  private static final class EncodedFactory implements BulkWriter.Factory<byte[]> {
    private static final long serialVersionUID = 1L;

    private final TableSchema schema;
    private final CsvOptions options;

    EncodedFactory(TableSchema schema, CsvOptions options) {
      this.schema = schema;
      this.options = options;
    }

    @Override
    public BulkWriter<byte[]> create(FSDataOutputStream out) throws IOException {
      CsvBulkWriter w = new CsvBulkWriter(out, schema, options);
      RowCodec codec = new RowCodec(schema.columns().stream().map(Column::type).toList());
      int[] starts = new int[codec.arity() + 1];
      return new BulkWriter<>() {
        @Override
        public void addElement(byte[] encoded) throws IOException {
          w.addEncoded(encoded, codec, starts);
        }

        @Override
        public void flush() throws IOException {
          w.flush();
        }

        @Override
        public void finish() throws IOException {
          w.finish();
        }
      };
    }
  }
}
