package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.TableSchema;
import java.io.IOException;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.types.Row;

/**
 * Reads one Avro container file, {@code source}, as {@link SourceRecord}s ({@link PerFileFormat}
 * makes one per file) whose payload is the row of the table, converted here ({@link
 * AvroColumns#toRowValue}) because a GenericRecord has no cheap typed Flink serializer. Columns are
 * found by name in the writer schema; a record with a value that does not fit its column's type, or
 * a NULL in a NOT NULL column, becomes a malformed record. A corrupt file (bad block, truncated)
 * fails the job: Avro cannot resynchronise a stream inside a block. The position of a record is its
 * 1-based number in the file.
 */
final class AvroStreamFormat extends WholeFileFormat {
  private static final long serialVersionUID = 1L;

  private final String source;
  private final TableSchema schema;

  AvroStreamFormat(String source, TableSchema schema) {
    super("Avro");
    this.source = source;
    this.schema = schema;
  }

  /** Positions in {@code writer} of the table's columns, by column name. */
  static int[] fieldPositions(Schema writer, TableSchema schema, String source)
      throws TableException {
    if (writer.getType() != Schema.Type.RECORD) {
      throw new TableException("'" + source + "' holds Avro " + writer.getType() + ", not records");
    }
    int[] positions = new int[schema.size()];
    for (int i = 0; i < positions.length; i++) {
      String name = schema.column(i).name();
      positions[i] = -1;
      for (Schema.Field f : writer.getFields()) {
        if (AvroColumns.columnName(f).equals(name)) {
          positions[i] = f.pos();
          break;
        }
      }
      if (positions[i] < 0) {
        throw new TableException(
            "'" + source + "' has no column '" + name + "'; its Avro schema is " + writer);
      }
    }
    return positions;
  }

  @Override
  public Reader<Row> createReader(
      Configuration config, FSDataInputStream stream, long fileLen, long splitEnd)
      throws IOException {
    DataFileStream<GenericRecord> records =
        new DataFileStream<>(stream, new GenericDatumReader<>());
    try {
      return new AvroReader(records, fieldPositions(records.getSchema(), schema, source));
    } catch (TableException e) {
      records.close();
      throw new IOException(e.getMessage(), e);
    }
  }

  @Override
  public RowTypeInfo getProducedType() {
    return SourceRecord.type(FlinkTypes.rowType(schema));
  }

  private final class AvroReader implements Reader<Row> {
    private final DataFileStream<GenericRecord> records;
    private final int[] positions;
    private GenericRecord reuse;
    private long number;

    AvroReader(DataFileStream<GenericRecord> records, int[] positions) {
      this.records = records;
      this.positions = positions;
    }

    @Override
    public Row read() throws IOException {
      try {
        if (!records.hasNext()) {
          return null;
        }
        reuse = records.next(reuse);
      } catch (AvroRuntimeException e) {
        throw new IOException(
            "cannot decode Avro record " + (number + 1) + " of '" + source + "': " + e.getMessage(),
            e);
      }
      number++;
      Row row = new Row(positions.length);
      for (int i = 0; i < positions.length; i++) {
        Column c = schema.column(i);
        Object value;
        try {
          value = AvroColumns.toRowValue(reuse.get(positions[i]), c.type());
        } catch (IllegalArgumentException e) {
          return SourceRecord.bad(
              source, number, "column '" + c.name() + "': " + e.getMessage(), raw());
        }
        if (value == null && !c.nullable()) {
          return SourceRecord.bad(
              source, number, "column '" + c.name() + "': NULL in a NOT NULL column", raw());
        }
        row.setField(i, value);
      }
      return SourceRecord.good(source, number, null, row);
    }

    private String raw() {
      return Text.truncateUtf8(reuse.toString(), BadRow.RAW_LIMIT);
    }

    @Override
    public void close() throws IOException {
      records.close();
    }
  }
}
