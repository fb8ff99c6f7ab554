package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.TableSchema;
import java.io.IOException;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileConstants;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
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
 * fails the job, naming the file: Avro cannot resynchronise a stream inside a block. Avro's own
 * reader takes a file that ends inside a block for a file that ends there (it drops the block), so
 * the end is checked here: a complete container file ends with its sync marker (the header and
 * every block end with it). A file cut exactly after a block is a valid shorter file and cannot be
 * told apart. The position of a record is its 1-based number in the file.
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
    DataFileStream<GenericRecord> records;
    try {
      records = new DataFileStream<>(stream, new GenericDatumReader<>());
    } catch (IOException | AvroRuntimeException e) {
      throw new IOException(
          "cannot read the Avro header of '"
              + source
              + "' ("
              + fileLen
              + " bytes): "
              + e.getMessage(),
          e);
    }
    try {
      return new AvroReader(
          records, fieldPositions(records.getSchema(), schema, source), stream, fileLen);
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
    private final FSDataInputStream stream;
    private final long fileLen;
    private GenericRecord reuse;
    private long number;

    AvroReader(
        DataFileStream<GenericRecord> records,
        int[] positions,
        FSDataInputStream stream,
        long fileLen) {
      this.records = records;
      this.positions = positions;
      this.stream = stream;
      this.fileLen = fileLen;
    }

    @Override
    public Row read() throws IOException {
      boolean more;
      try {
        more = records.hasNext();
        if (more) {
          reuse = records.next(reuse);
        }
      } catch (IOException | AvroRuntimeException e) {
        throw new IOException(
            "cannot decode Avro record " + (number + 1) + " of '" + source + "': " + e.getMessage(),
            e);
      }
      if (!more) {
        checkComplete();
        return null;
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

    /**
     * Fails unless the file ends with its sync marker: {@link DataFileStream#hasNext} also answers
     * false when the file ends inside a block, silently dropping the records of that block.
     */
    private void checkComplete() throws IOException {
      byte[] sync = syncMarker();
      byte[] tail = new byte[sync.length];
      if (fileLen >= tail.length) {
        stream.seek(fileLen - tail.length);
        new java.io.DataInputStream(stream).readFully(tail);
      }
      if (fileLen < tail.length || !java.util.Arrays.equals(sync, tail)) {
        throw new IOException(
            "'"
                + source
                + "' is truncated or corrupt: its "
                + fileLen
                + " bytes end inside a block after record "
                + number
                + " (a complete Avro file ends with its sync marker)");
      }
    }

    /** The file's sync marker: the 16 bytes after its header's magic and metadata map. */
    private byte[] syncMarker() throws IOException {
      stream.seek(0);
      BinaryDecoder d = DecoderFactory.get().directBinaryDecoder(stream, null);
      d.skipFixed(DataFileConstants.MAGIC.length);
      for (long n = d.readMapStart(); n != 0; n = d.mapNext()) {
        for (long i = 0; i < n; i++) {
          d.skipString();
          d.skipBytes();
        }
      }
      byte[] sync = new byte[DataFileConstants.SYNC_SIZE];
      d.readFixed(sync);
      return sync;
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
