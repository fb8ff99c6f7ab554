package io.psiflink.connectors;

import io.psiflink.api.TableSchema;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
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
  public static SourceResult read(
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
  public static SourceResult read(
      StreamExecutionEnvironment env, String name, String path, TableSchema schema, CsvOptions csv)
      throws TableException {
    return read(env, name, path, schema, csv, List.of());
  }

  /**
   * Reads as the other {@code read}; {@code path} may also be a JDBC URL ({@link JdbcTable}), and
   * rows with a NULL (or NaN) in one of {@code keyColumns} are quarantined ({@link RowParser}).
   */
  public static SourceResult read(
      StreamExecutionEnvironment env,
      String name,
      String path,
      TableSchema schema,
      CsvOptions csv,
      List<String> keyColumns)
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
    if (JdbcTable.isJdbc(path)) {
      JdbcTable table = JdbcTable.parse(path);
      return parsed(
          env,
          name,
          table.toString(),
          schema,
          env.fromSource(
              JdbcSource.create(table, schema, env.getParallelism()),
              WatermarkStrategy.noWatermarks(),
              "read " + name),
          FieldDecoder.PASS_THROUGH,
          keyFields,
          keyNames);
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
        env,
        name,
        path,
        schema,
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "read " + name),
        decoder,
        keyFields,
        keyNames);
  }

  private static SourceResult parsed(
      StreamExecutionEnvironment env,
      String name,
      String path,
      TableSchema schema,
      DataStreamSource<Row> records,
      FieldDecoder decoder,
      int[] keyFields,
      String[] keyNames) {
    OutputTag<BadRow> quarantine =
        new OutputTag<>("quarantine-" + name, TypeInformation.of(BadRow.class));
    OutputTag<ReadCounts> counts =
        new OutputTag<>("counts-" + name, TypeInformation.of(ReadCounts.class));
    SingleOutputStreamOperator<Row> rows =
        records
            .setDescription(
                "read " + name + " from " + path) // names over 80 characters get truncated
            .transform(
                "parse " + name,
                FlinkTypes.rowType(schema),
                new ParseOperator(
                    new RowParser(name, decoder, quarantine, keyFields, keyNames), counts));
    DataStream<BadRow> bad = rows.getSideOutput(quarantine);
    return new SourceResult(rows, bad, rows.getSideOutput(counts));
  }
}
