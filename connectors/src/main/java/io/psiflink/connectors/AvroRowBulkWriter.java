package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.TableSchema;
import io.psiflink.connectors.row.RowCodec;
import io.psiflink.connectors.row.Varint;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Serializable;
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
 * AvroColumns#recordSchema}: every field a union of null and the column's type. Blocks are
 * snappy-compressed, the default of Flink's own avro format and several times cheaper in CPU than
 * deflate. Rows come as Flink {@link Row}s ({@link #factory}) or already {@link RowCodec}-encoded
 * ({@link #encodedFactory}, the private join's output, which is transcoded without building Java
 * objects); either way they are encoded straight into Avro binary, without a GenericRecord.
 */
public final class AvroRowBulkWriter<T> implements BulkWriter<T> {
  private final DataFileWriter<T> writer;

  private AvroRowBulkWriter(FSDataOutputStream stream, TableSchema schema, DatumWriter<T> datum)
      throws IOException {
    this.writer = new DataFileWriter<>(datum).setCodec(CodecFactory.snappyCodec());
    writer.create(AvroColumns.recordSchema(schema), new NonClosing(stream));
  }

  public static BulkWriter.Factory<Row> factory(TableSchema schema) {
    return new Factory<>(schema, RowDatumWriter::new);
  }

  /** For rows in {@link RowCodec} encoding of the schema's column types. */
  public static BulkWriter.Factory<byte[]> encodedFactory(TableSchema schema) {
    return new Factory<>(schema, EncodedDatumWriter::new);
  }

  @Override
  public void addElement(T row) throws IOException {
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

  /** A Row, field by field. */
  private static final class RowDatumWriter implements DatumWriter<Row> {
    private final TableSchema schema;

    RowDatumWriter(TableSchema schema) {
      this.schema = schema;
    }

    @Override
    public void setSchema(Schema ignored) {
      // always recordSchema(this.schema), which the writer was made for
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
          throw new IOException(
              "column '"
                  + c.name()
                  + "': a "
                  + v.getClass().getName()
                  + " is not a "
                  + c.type().sqlName());
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

  /**
   * A {@link RowCodec} encoding, column by column: presence byte to union branch, big-endian
   * numbers to Avro's, string and bytes copied as they are (both formats carry UTF-8 with a
   * length).
   */
  private static final class EncodedDatumWriter implements DatumWriter<byte[]> {
    private final RowCodec codec;
    private final int[] starts;

    EncodedDatumWriter(TableSchema schema) {
      this.codec = new RowCodec(schema.columns().stream().map(Column::type).toList());
      this.starts = new int[codec.arity() + 1];
    }

    @Override
    public void setSchema(Schema ignored) {
      // always recordSchema of the schema this writer was made for
    }

    @Override
    public void write(byte[] row, Encoder out) throws IOException {
      try {
        codec.columns(row, 0, row.length, starts, 0, false);
      } catch (IllegalArgumentException e) {
        throw new IOException("a malformed encoded row: " + e.getMessage(), e);
      }
      for (int i = 0; i < codec.arity(); i++) {
        int p = starts[i];
        if (row[p++] == 0) {
          out.writeIndex(0);
          out.writeNull();
          continue;
        }
        out.writeIndex(1);
        switch (codec.type(i)) {
          case BOOLEAN -> out.writeBoolean(row[p] != 0);
          case INT -> out.writeInt(RowCodec.getInt(row, p));
          case BIGINT -> out.writeLong(RowCodec.getLong(row, p));
          case FLOAT -> out.writeFloat(Float.intBitsToFloat(RowCodec.getInt(row, p)));
          case DOUBLE -> out.writeDouble(Double.longBitsToDouble(RowCodec.getLong(row, p)));
          case STRING, BYTES -> {
            long r = Varint.read(row, p, starts[i + 1]);
            int n = Varint.value(r);
            out.writeLong(n); // Avro's string and bytes: a long length, then the bytes
            out.writeFixed(row, Varint.next(r), n);
          }
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

  /** Makes the datum writer for a schema on the task manager. */
  private interface DatumWriterMaker<T> extends Serializable {
    DatumWriter<T> make(TableSchema schema);
  }

  private static final class Factory<T> implements BulkWriter.Factory<T> {
    private static final long serialVersionUID = 1L;

    private final TableSchema schema;
    private final DatumWriterMaker<T> datum;

    Factory(TableSchema schema, DatumWriterMaker<T> datum) {
      this.schema = schema;
      this.datum = datum;
    }

    @Override
    public BulkWriter<T> create(FSDataOutputStream out) throws IOException {
      return new AvroRowBulkWriter<>(out, schema, datum.make(schema));
    }
  }
}
