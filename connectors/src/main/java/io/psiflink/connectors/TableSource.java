package io.psiflink.connectors;

import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import io.psiflink.connectors.row.RecordView;
import io.psiflink.connectors.row.RowView;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.OutputTag;

/**
 * Reads a table (CSV, Avro or Parquet, by extension; local, {@code file://} or {@code hdfs://}),
 * one file or a directory of part files ({@link TableFiles}), into a Flink job with a {@link
 * FileSource}; or a PostgreSQL table with a {@link JdbcSource}.
 *
 * <p>The graph is: FileSource (one split per file, so the part files of a directory are read in
 * parallel, producing {@link SourceRecord}s) then {@link RowParser} (typing, counting,
 * quarantining). Every file is opened once while the graph is built to check it against the schema,
 * so that a wrong header or a missing column is a {@link TableException} naming the file at
 * submission rather than a failed job.
 */
public final class TableSource {
  private TableSource() {}

  /** Reads with the default {@link CsvOptions}. */
  public static SourceResult<Row> read(
      StreamExecutionEnvironment env, String name, String path, TableSchema schema)
      throws TableException {
    return read(env, name, path, schema, CsvOptions.DEFAULT);
  }

  /**
   * @param name names the operators, the quarantine tag and the accumulators {@code
   *     <name>.rowsRead} / {@code <name>.rowsQuarantined}; must be unique within the job
   * @param path one file, or a directory of part files; the extension gives the format
   * @param schema the columns to read, in file order for CSV (the header of every file must list
   *     exactly these names); for Avro a subset of each file's columns, found by name, in any order
   */
  public static SourceResult<Row> read(
      StreamExecutionEnvironment env, String name, String path, TableSchema schema, CsvOptions csv)
      throws TableException {
    return read(env, name, path, schema, csv, List.of());
  }

  /**
   * Reads as the other {@code read}; {@code path} may also be a JDBC URL ({@link JdbcTable}), and
   * rows with a NULL (or NaN) in one of {@code keyColumns} are quarantined ({@link RowParser}).
   */
  @SuppressWarnings("unchecked")
  public static SourceResult<Row> read(
      StreamExecutionEnvironment env,
      String name,
      String path,
      TableSchema schema,
      CsvOptions csv,
      List<String> keyColumns)
      throws TableException {
    return (SourceResult<Row>) open(env, name, path, schema, csv, keyColumns, false);
  }

  /**
   * Reads as {@link #read(StreamExecutionEnvironment, String, String, TableSchema, CsvOptions,
   * List)}, for a consumer that reads the fields through the result's {@code view} and needs no
   * {@code Row}: a CSV table's records then stay packed as read (checked, with their numbers
   * parsed: no object per field); other formats give rows.
   */
  public static SourceResult<?> readRecords(
      StreamExecutionEnvironment env,
      String name,
      String path,
      TableSchema schema,
      CsvOptions csv,
      List<String> keyColumns)
      throws TableException {
    return open(env, name, path, schema, csv, keyColumns, true);
  }

  private static SourceResult<?> open(
      StreamExecutionEnvironment env,
      String name,
      String path,
      TableSchema schema,
      CsvOptions csv,
      List<String> keyColumns,
      boolean packed)
      throws TableException {
    int[] keyFields = new int[keyColumns.size()];
    for (int i = 0; i < keyFields.length; i++) {
      String k = keyColumns.get(i);
      keyFields[i] =
          schema
              .indexOf(k)
              .orElseThrow(
                  () -> new TableException("key column '" + k + "' is not a column of " + schema));
    }
    String[] keyNames = keyColumns.toArray(String[]::new);
    ColumnType[] keyTypes =
        Arrays.stream(keyFields).mapToObj(f -> schema.column(f).type()).toArray(ColumnType[]::new);
    if (JdbcTable.isJdbc(path)) {
      JdbcTable table = JdbcTable.parse(path);
      return parsed(
          name,
          table.toString(),
          schema,
          env.fromSource(
              JdbcSource.create(table, schema, env.getParallelism()),
              WatermarkStrategy.noWatermarks(),
              "read " + name),
          FieldDecoder.PASS_THROUGH,
          false,
          keyFields,
          keyNames,
          keyTypes);
    }
    TableFiles table = TableFiles.of(path);
    List<String> files = table.files();
    PerFileFormat format;
    FieldDecoder decoder;
    switch (table.format()) {
      case CSV -> {
        for (String file : files) {
          List<String> header = SchemaDiscovery.fileCsvHeader(file, csv);
          if (!header.equals(schema.names())) {
            throw new TableException(
                "the header of '"
                    + file
                    + "' is "
                    + header
                    + ", but the schema names "
                    + schema.names());
          }
        }
        List<String> names = schema.names();
        format = new PerFileFormat(files, file -> new CsvStreamFormat(file, names, csv));
        decoder = new CsvFieldDecoder(schema);
      }
      case AVRO -> {
        for (String file : files) {
          AvroStreamFormat.fieldPositions(SchemaDiscovery.fileAvroWriterSchema(file), schema, file);
        }
        format = new PerFileFormat(files, file -> new AvroStreamFormat(file, schema));
        decoder = FieldDecoder.PASS_THROUGH;
      }
      case PARQUET -> {
        for (String file : files) {
          ParquetStreamFormat.fieldPositions(ParquetColumns.footer(file), schema, file);
        }
        format = new PerFileFormat(files, file -> new ParquetStreamFormat(file, schema));
        decoder = FieldDecoder.PASS_THROUGH;
      }
      default -> throw new IllegalStateException("format " + table.format());
    }

    FileSource<Row> source =
        FileSource.forBulkFileFormat(format, files.stream().map(Path::new).toArray(Path[]::new))
            .setFileEnumerator(ListedFileEnumerator::new)
            .build();
    return parsed(
        name,
        path,
        schema,
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "read " + name),
        decoder,
        packed && decoder instanceof CsvFieldDecoder,
        keyFields,
        keyNames,
        keyTypes);
  }

  private static SourceResult<?> parsed(
      String name,
      String path,
      TableSchema schema,
      DataStreamSource<Row> records,
      FieldDecoder decoder,
      boolean packed,
      int[] keyFields,
      String[] keyNames,
      ColumnType[] keyTypes) {
    DataStream<Row> described =
        records.setDescription(
            "read " + name + " from " + path); // names over 80 characters get truncated
    return packed
        ? parsed(
            described,
            name,
            decoder,
            PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
            ((CsvFieldDecoder) decoder).view(),
            keyFields,
            keyNames,
            keyTypes)
        : parsed(
            described,
            name,
            decoder,
            FlinkTypes.rowType(schema),
            new RowView(),
            keyFields,
            keyNames,
            keyTypes);
  }

  private static <T> SourceResult<T> parsed(
      DataStream<Row> records,
      String name,
      FieldDecoder decoder,
      TypeInformation<T> type,
      RecordView<T> view,
      int[] keyFields,
      String[] keyNames,
      ColumnType[] keyTypes) {
    OutputTag<BadRow> quarantine =
        new OutputTag<>("quarantine-" + name, TypeInformation.of(BadRow.class));
    OutputTag<ReadCounts> counts =
        new OutputTag<>("counts-" + name, TypeInformation.of(ReadCounts.class));
    SingleOutputStreamOperator<T> rows =
        records.transform(
            "parse " + name,
            type,
            new ParseOperator<>(
                new RowParser<>(name, decoder, quarantine, keyFields, keyNames, keyTypes, view),
                counts));
    DataStream<BadRow> bad = rows.getSideOutput(quarantine);
    return new SourceResult<>(rows, view, bad, rows.getSideOutput(counts));
  }
}
