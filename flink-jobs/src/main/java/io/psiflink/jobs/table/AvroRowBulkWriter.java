package io.psiflink.jobs.table;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import org.apache.avro.Schema;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.Encoder;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.types.Row;

/**
 * Writes rows as one Avro container part file with the record schema of {@link
 * AvroColumns#recordSchema}. Blocks are snappy-compressed, the default of Flink's own avro format
 * and several times cheaper in CPU than deflate.
 */
public final class AvroRowBulkWriter implements BulkWriter<Row> {
  private final DataFileWriter<Row> writer;

  private AvroRowBulkWriter(FSDataOutputStream stream, TableSchema schema) throws IOException {
    Schema avro = AvroColumns.recordSchema(schema);
    this.writer = new DataFileWriter<Row>(new RowDatumWriter(schema))
        .setCodec(CodecFactory.snappyCodec());
    writer.create(avro, new NonClosing(stream));
  }

  public static BulkWriter.Factory<Row> factory(TableSchema schema) {
    return new Factory(schema);
  }

  @Override
  public void addElement(Row row) throws IOException {
    try {
      writer.append(row);
    } catch (DataFileWriter.AppendWriteException e) {
      // the writer dropped the partial record; report the row's own problem
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getMessage(), e);
    }
  }

  @Override
  public void flush() throws IOException {
    writer.flush();
  }

  @Override
  public void finish() throws IOException {
    // closing the DataFileWriter writes its last block; NonClosing keeps Flink's stream open,
    // since Flink commits (and closes) the part file itself
    writer.close();
  }

  /**
   * Encodes a row straight into Avro binary for the schema of {@link AvroColumns#recordSchema}
   * (every field a union of null and the column's type), without a GenericRecord in between: the
   * generic path cost the output party a twentieth of its CPU.
   */
  private static final class RowDatumWriter implements DatumWriter<Row> {
    private final TableSchema schema;

    RowDatumWriter(TableSchema schema) {
      this.schema = schema;
    }

    @Override
    public void setSchema(Schema ignored) {
      // the schema is always recordSchema(this.schema), which the writer was made for
    }

    @Override
    public void write(Row row, Encoder out) throws IOException {
      if (row.getArity() != schema.size()) {
        throw new IOException("a row of arity " + row.getArity() + " for table " + schema);
      }
      for (int i = 0; i < schema.size(); i++) {
        Object v = row.getField(i);
        if (v == null) {
          out.writeIndex(0);
          out.writeNull();
          continue;
        }
        Column c = schema.column(i);
        if (!c.type().javaClass().isInstance(v)) {
          throw new IOException("column '" + c.name() + "': a " + v.getClass().getName()
              + " is not a " + c.type().sqlName());
        }
        out.writeIndex(1);
        switch (c.type()) {
          case BOOLEAN -> out.writeBoolean((Boolean) v);
          case INT -> out.writeInt((Integer) v);
          case BIGINT -> out.writeLong((Long) v);
          case FLOAT -> out.writeFloat((Float) v);
          case DOUBLE -> out.writeDouble((Double) v);
          case STRING -> out.writeString((String) v);
          case BYTES -> out.writeBytes((byte[]) v);
        }
      }
    }
  }

  /** Passes everything through but close, which only flushes. */
  private static final class NonClosing extends FilterOutputStream {
    NonClosing(OutputStream out) {
      super(out);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void close() throws IOException {
      out.flush();
    }
  }

  private static final class Factory implements BulkWriter.Factory<Row> {
    private static final long serialVersionUID = 1L;

    private final TableSchema schema;

    Factory(TableSchema schema) {
      this.schema = schema;
    }

    @Override
    public BulkWriter<Row> create(FSDataOutputStream out) throws IOException {
      return new AvroRowBulkWriter(out, schema);
    }
  }
}
