package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.types.Row;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.ParquetDecodingException;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;

/**
 * Reads one Parquet file, {@code source}, as {@link SourceRecord}s ({@link PerFileFormat} makes one
 * per file) whose payload is the row of the table, converted here. Only the table's columns are
 * read (a projection of the file schema); they are found by name ({@link ParquetColumns}) and may
 * be in any order. A file column may be wider than the table's only as INT to BIGINT and FLOAT to
 * DOUBLE. A string that is not valid UTF-8, or a NULL in a NOT NULL column, makes the record
 * malformed; a corrupt file fails the job. The position of a record is its 1-based number in the
 * file.
 */
final class ParquetStreamFormat extends WholeFileFormat {
  private static final long serialVersionUID = 1L;

  private final String source;
  private final TableSchema schema;

  ParquetStreamFormat(String source, TableSchema schema) {
    super("Parquet");
    this.source = source;
    this.schema = schema;
  }

  /** Positions in the file's top-level fields of the table's columns, checked for type. */
  static int[] fieldPositions(ParquetMetadata footer, TableSchema schema, String source)
      throws TableException {
    TableSchema file = ParquetColumns.fromFooter(footer, source);
    int[] positions = new int[schema.size()];
    for (int i = 0; i < positions.length; i++) {
      Column want = schema.column(i);
      int p =
          file.indexOf(want.name())
              .orElseThrow(
                  () ->
                      new TableException(
                          "'"
                              + source
                              + "' has no column '"
                              + want.name()
                              + "'; its columns are "
                              + file));
      ColumnType have = file.column(p).type();
      boolean fits =
          have == want.type()
              || (have == ColumnType.INT && want.type() == ColumnType.BIGINT)
              || (have == ColumnType.FLOAT && want.type() == ColumnType.DOUBLE);
      if (!fits) {
        throw new TableException(
            "'"
                + source
                + "': column '"
                + want.name()
                + "' is "
                + have.sqlName()
                + " in the file, not "
                + want.type().sqlName());
      }
      positions[i] = p;
    }
    return positions;
  }

  @Override
  public Reader<Row> createReader(
      Configuration config, FSDataInputStream stream, long fileLen, long splitEnd)
      throws IOException {
    ParquetFileReader reader;
    try {
      // the pages' CRCs (which parquet-mr writes by default) are checked, so flipped bytes in a
      // page fail the read instead of changing values
      reader =
          ParquetFileReader.open(
              new ParquetColumns.FlinkInputFile(stream, fileLen),
              ParquetReadOptions.builder().usePageChecksumVerification(true).build());
    } catch (IOException | RuntimeException e) {
      // e.g. a truncated file: no footer, no magic number at its tail
      throw new IOException(
          "cannot read the Parquet file '"
              + source
              + "' ("
              + fileLen
              + " bytes; truncated or not Parquet?): "
              + e.getMessage(),
          e);
    }
    try {
      MessageType fileSchema = reader.getFooter().getFileMetaData().getSchema();
      int[] positions = fieldPositions(reader.getFooter(), schema, source);
      List<Type> fields = new ArrayList<>();
      for (int p : positions) {
        fields.add(fileSchema.getType(p));
      }
      MessageType requested = new MessageType(fileSchema.getName(), fields);
      reader.setRequestedSchema(requested);
      return new ParquetReader(reader, fileSchema, requested);
    } catch (TableException | RuntimeException e) {
      reader.close();
      throw new IOException(e.getMessage(), e);
    }
  }

  @Override
  public RowTypeInfo getProducedType() {
    return SourceRecord.type(FlinkTypes.rowType(schema));
  }

  private final class ParquetReader implements Reader<Row> {
    private final ParquetFileReader reader;
    private final MessageType fileSchema;
    private final MessageType requested;
    private final PrimitiveTypeName[] physical;
    private final boolean[] unsigned;
    private RecordReader<Group> records;
    private long left;
    private long number;

    ParquetReader(ParquetFileReader reader, MessageType fileSchema, MessageType requested) {
      this.reader = reader;
      this.fileSchema = fileSchema;
      this.requested = requested;
      this.physical = new PrimitiveTypeName[requested.getFieldCount()];
      this.unsigned = new boolean[physical.length];
      for (int i = 0; i < physical.length; i++) {
        var p = requested.getType(i).asPrimitiveType();
        physical[i] = p.getPrimitiveTypeName();
        unsigned[i] =
            p.getLogicalTypeAnnotation()
                    instanceof
                    org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation a
                && !a.isSigned();
      }
    }

    @Override
    public Row read() throws IOException {
      Group g;
      try {
        while (left == 0) {
          PageReadStore pages = reader.readNextRowGroup();
          if (pages == null) {
            return null;
          }
          left = pages.getRowCount();
          records =
              new ColumnIOFactory()
                  .getColumnIO(requested, fileSchema)
                  .getRecordReader(pages, new GroupRecordConverter(requested));
        }
        g = records.read();
        left--;
      } catch (IOException | ParquetDecodingException | IllegalArgumentException e) {
        throw new IOException(
            "cannot decode Parquet record "
                + (number + 1)
                + " of '"
                + source
                + "': "
                + e.getMessage(),
            e);
      }
      number++;
      Row row = new Row(physical.length);
      for (int i = 0; i < physical.length; i++) {
        Column c = schema.column(i);
        Object value = null;
        if (g.getFieldRepetitionCount(i) > 0 && c.type() == ColumnType.STRING) {
          try {
            value = ParquetColumns.utf8(g.getBinary(i, 0).toByteBuffer());
          } catch (CharacterCodingException e) {
            return SourceRecord.bad(
                source, number, "column '" + c.name() + "': invalid UTF-8", raw(g));
          }
        } else if (g.getFieldRepetitionCount(i) > 0) {
          value =
              switch (physical[i]) {
                case BOOLEAN -> g.getBoolean(i, 0);
                case INT32 ->
                    c.type() == ColumnType.BIGINT
                        ? (unsigned[i]
                            ? Integer.toUnsignedLong(g.getInteger(i, 0))
                            : g.getInteger(i, 0))
                        : (Object) g.getInteger(i, 0);
                case INT64 -> g.getLong(i, 0);
                case FLOAT ->
                    c.type() == ColumnType.DOUBLE
                        ? (double) g.getFloat(i, 0)
                        : (Object) g.getFloat(i, 0);
                case DOUBLE -> g.getDouble(i, 0);
                case BINARY, FIXED_LEN_BYTE_ARRAY -> g.getBinary(i, 0).getBytes();
                default ->
                    throw new IOException(
                        "'"
                            + source
                            + "': column '"
                            + c.name()
                            + "' has the unsupported Parquet type "
                            + physical[i]);
              };
        }
        if (value == null && !c.nullable()) {
          return SourceRecord.bad(
              source, number, "column '" + c.name() + "': NULL in a NOT NULL column", raw(g));
        }
        row.setField(i, value);
      }
      return SourceRecord.good(source, number, null, row);
    }

    private String raw(Group g) {
      return Text.truncateUtf8(g.toString().replace('\n', ' ').strip(), BadRow.RAW_LIMIT);
    }

    @Override
    public void close() throws IOException {
      reader.close();
    }
  }
}
