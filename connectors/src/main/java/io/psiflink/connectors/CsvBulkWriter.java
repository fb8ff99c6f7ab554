package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.TableSchema;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.types.Row;

/**
 * Writes rows as one CSV part file: a header line with the column names, then one line per row,
 * lines ended by LF, UTF-8 without BOM. Values are formatted by {@link CsvValues} (NULL is an empty
 * field, BYTES are Base64, doubles in Java's shortest form); fields are quoted by {@link
 * CsvQuoting}, the rule of every CSV psi-flink writes.
 */
public final class CsvBulkWriter implements BulkWriter<Row> {
  private final OutputStream out;
  private final TableSchema schema;
  private final CsvOptions options;

  private CsvBulkWriter(FSDataOutputStream stream, TableSchema schema, CsvOptions options)
      throws IOException {
    // the part file's stream belongs to Flink: buffer on top, flush but never close it
    this.out = new BufferedOutputStream(stream, 64 * 1024);
    this.schema = schema;
    this.options = options;
    for (int i = 0; i < schema.size(); i++) {
      writeField(i, schema.column(i).name());
    }
    out.write('\n');
  }

  public static BulkWriter.Factory<Row> factory(TableSchema schema, CsvOptions options) {
    return new Factory(schema, options);
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
    out.write('\n');
  }

  @Override
  public void flush() throws IOException {
    out.flush();
  }

  @Override
  public void finish() throws IOException {
    out.flush();
  }

  private void writeField(int i, String text) throws IOException {
    if (i > 0) {
      out.write(options.delimiter());
    }
    if (text == null) {
      return;
    }
    out.write(
        CsvQuoting.field(text, options.delimiter(), options.quote())
            .getBytes(StandardCharsets.UTF_8));
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
}
