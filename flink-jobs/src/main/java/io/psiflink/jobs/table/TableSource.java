package io.psiflink.jobs.table;

import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.reader.StreamFormat;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.OutputTag;

/**
 * Reads one table file (CSV or Avro, by extension; local, {@code file://} or {@code hdfs://}) into
 * a Flink job with a {@link FileSource}.
 *
 * <p>The graph is: FileSource (one split per file, producing {@link SourceRecord}s) then {@link
 * RowParser} (typing, counting, quarantining). The file is opened once while the graph is built to
 * check it against the schema, so that a wrong header or a missing column is a {@link
 * TableException} at submission rather than a failed job.
 */
public final class TableSource {
  private TableSource() {}

  /** Reads with the default {@link CsvOptions}. */
  public static SourceResult read(StreamExecutionEnvironment env, String name, String path,
      TableSchema schema) throws TableException {
    return read(env, name, path, schema, CsvOptions.DEFAULT);
  }

  /**
   * @param name names the operators, the quarantine tag and the accumulators {@code
   *     <name>.rowsRead} / {@code <name>.rowsQuarantined}; must be unique within the job
   * @param path one file; its extension gives the format
   * @param schema the columns to read, in file order for CSV (the header must list exactly these
   *     names); for Avro a subset of the file's columns, found by name, in any order
   */
  public static SourceResult read(StreamExecutionEnvironment env, String name, String path,
      TableSchema schema, CsvOptions csv) throws TableException {
    TableFormat format;
    try {
      format = TableFormat.fromPath(path);
    } catch (IllegalArgumentException e) {
      throw new TableException(e.getMessage(), e);
    }
    StreamFormat<Row> streamFormat;
    FieldDecoder decoder;
    switch (format) {
      case CSV -> {
        List<String> header = SchemaDiscovery.csvHeader(path, csv);
        if (!header.equals(schema.names())) {
          throw new TableException("the header of '" + path + "' is " + header
              + ", but the schema names " + schema.names());
        }
        streamFormat = new CsvStreamFormat(path, schema.names(), csv);
        decoder = new CsvFieldDecoder(schema);
      }
      case AVRO -> {
        AvroStreamFormat.fieldPositions(SchemaDiscovery.avroWriterSchema(path), schema, path);
        streamFormat = new AvroStreamFormat(path, schema);
        decoder = FieldDecoder.PASS_THROUGH;
      }
      default -> throw new IllegalStateException("format " + format);
    }

    FileSource<Row> source = FileSource.forRecordStreamFormat(streamFormat, new Path(path)).build();
    OutputTag<BadRow> quarantine =
        new OutputTag<>("quarantine-" + name, TypeInformation.of(BadRow.class));
    SingleOutputStreamOperator<Row> rows = env
        .fromSource(source, WatermarkStrategy.noWatermarks(), "read " + name + ": " + path)
        .process(new RowParser(name, path, decoder, quarantine))
        .returns(schema.rowType())
        .name("parse " + name);
    DataStream<BadRow> bad = rows.getSideOutput(quarantine);
    return new SourceResult(rows, bad);
  }

  /** Name of the accumulator counting the rows {@code read(env, name, ...)} emitted. */
  public static String rowsReadAccumulator(String name) {
    return RowParser.rowsReadAccumulator(name);
  }

  /** Name of the accumulator counting the records {@code read(env, name, ...)} quarantined. */
  public static String rowsQuarantinedAccumulator(String name) {
    return RowParser.rowsQuarantinedAccumulator(name);
  }
}
