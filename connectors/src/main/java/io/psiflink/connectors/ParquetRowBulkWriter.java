package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.TableSchema;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.formats.parquet.ParquetBuilder;
import org.apache.flink.formats.parquet.ParquetWriterFactory;
import org.apache.flink.types.Row;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Writes rows as one Parquet part file through parquet-avro, with the record schema of {@link
 * AvroColumns#recordSchema} (every column OPTIONAL; the Avro schema, with the original column
 * names, goes into the footer, see {@link ParquetColumns}). Pages are snappy-compressed, as the
 * Avro output's blocks. A part file is one Parquet file: the writer keeps the current row group in
 * memory (up to parquet-mr's default 128 MiB) and writes the footer when Flink finishes the part.
 */
public final class ParquetRowBulkWriter implements BulkWriter<Row> {
  private final BulkWriter<GenericRecord> writer;
  private final TableSchema schema;
  private final Schema record;

  private ParquetRowBulkWriter(
      BulkWriter<GenericRecord> writer, TableSchema schema, Schema record) {
    this.writer = writer;
    this.schema = schema;
    this.record = record;
  }

  public static BulkWriter.Factory<Row> factory(TableSchema schema) {
    return new Factory(schema);
  }

  @Override
  public void addElement(Row row) throws IOException {
    if (row.getArity() != schema.size()) {
      throw new IOException("a row of arity " + row.getArity() + " for table " + schema);
    }
    GenericRecord r = new GenericData.Record(record);
    for (int i = 0; i < schema.size(); i++) {
      Object v = row.getField(i);
      Column c = schema.column(i);
      if (v != null && !c.type().javaClass().isInstance(v)) {
        throw new IOException(
            "column '"
                + c.name()
                + "': a "
                + v.getClass().getName()
                + " is not a "
                + c.type().sqlName());
      }
      r.put(i, v instanceof byte[] b ? ByteBuffer.wrap(b) : v);
    }
    writer.addElement(r);
  }

  @Override
  public void flush() throws IOException {
    writer.flush();
  }

  @Override
  public void finish() throws IOException {
    writer.finish();
  }

  private static final class Factory implements BulkWriter.Factory<Row> {
    private static final long serialVersionUID = 1L;

    private final TableSchema schema;

    Factory(TableSchema schema) {
      this.schema = schema;
    }

    @Override
    public BulkWriter<Row> create(FSDataOutputStream out) throws IOException {
      // the schema travels as JSON: Avro's Schema was not serializable before 1.12
      String json = AvroColumns.recordSchema(schema).toString();
      ParquetBuilder<GenericRecord> builder =
          file ->
              AvroParquetWriter.<GenericRecord>builder(file)
                  .withSchema(new Schema.Parser().parse(json))
                  .withDataModel(GenericData.get())
                  .withCompressionCodec(CompressionCodecName.SNAPPY)
                  .build();
      return new ParquetRowBulkWriter(
          new ParquetWriterFactory<>(builder).create(out),
          schema,
          AvroColumns.recordSchema(schema));
    }
  }
}
