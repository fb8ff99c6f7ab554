package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * Finds the schema of a table (local, {@code file://} or {@code hdfs://}): one file, or a directory
 * of part files ({@link TableFiles}). A directory's schema is that of its first part file (by
 * name); every other part must have the same header (CSV) or give the same table schema (Avro),
 * else discovery fails naming both files.
 *
 * <p>CSV: the header row gives the names. Names are trimmed of surrounding white space ({@link
 * String#strip()}), since headers are typed by people and {@code "id, spend"} means {@code spend};
 * a UTF-8 BOM before the header is dropped. An empty name or a name occurring twice is an error.
 * Types are inferred from up to {@value #CSV_SAMPLE_ROWS} data records, those of the first file
 * and, if it has fewer, of the next files in order (a part may hold only its header): BIGINT if
 * every non-empty value is an integer fitting a long, else DOUBLE if every one is a finite decimal
 * number, else BOOLEAN if every one is {@code true}/{@code false} (any case), else STRING; a column
 * with no non-empty value is STRING. Numbers with a superfluous leading zero ({@code 01234}) and
 * integers beyond the long range make a column STRING, because converting them would lose
 * information that a join key needs (see {@link CsvValues#inferableDouble}). Records that the
 * source would quarantine (malformed, wrong field count) do not take part. All columns are
 * nullable.
 *
 * <p>Avro: from the writer schema in the file header, see {@link AvroColumns}. Parquet: from the
 * footer, see {@link ParquetColumns}.
 */
public final class SchemaDiscovery {
  /** How many CSV data records type inference looks at. */
  public static final int CSV_SAMPLE_ROWS = 10_000;

  private SchemaDiscovery() {}

  public static TableSchema discover(String path) throws TableException {
    return discover(path, CsvOptions.DEFAULT);
  }

  /**
   * The schema of the table at {@code path}, by its format ({@link TableFiles#format}), or of the
   * PostgreSQL table a JDBC URL names ({@link JdbcTable}).
   */
  public static TableSchema discover(String path, CsvOptions csv) throws TableException {
    if (JdbcTable.isJdbc(path)) {
      return JdbcTable.parse(path).discover();
    }
    TableFiles table = TableFiles.of(path);
    return switch (table.format()) {
      case CSV -> {
        List<String[]> sample = new ArrayList<>();
        List<String> names = csvHeader(table.files(), csv, sample);
        yield inferColumns(names, sample);
      }
      case AVRO -> avroColumns(avroWriterSchema(table.files()), table.files().get(0));
      case PARQUET -> parquetColumns(table.files());
    };
  }

  /**
   * The column names in the header of a CSV table, trimmed and checked; for a directory, those of
   * its first file after checking that every other file has the same header.
   */
  public static List<String> csvHeader(String path, CsvOptions csv) throws TableException {
    return csvHeader(TableFiles.of(path).files(), csv, null);
  }

  /**
   * The Avro writer schema of an Avro table; for a directory, that of its first file after checking
   * that every other file gives the same table schema.
   */
  public static Schema avroWriterSchema(String path) throws TableException {
    return avroWriterSchema(TableFiles.of(path).files());
  }

  /** The header of one CSV file, trimmed and checked. */
  static List<String> fileCsvHeader(String file, CsvOptions csv) throws TableException {
    return csvHeader(List.of(file), csv, null);
  }

  /** The writer schema of one Avro container file. */
  static Schema fileAvroWriterSchema(String file) throws TableException {
    try (InputStream in = open(file);
        DataFileStream<GenericRecord> stream =
            new DataFileStream<>(in, new GenericDatumReader<>())) {
      return stream.getSchema();
    } catch (IOException e) {
      throw new TableException(
          "cannot read the Avro header of '" + file + "': " + e.getMessage(), e);
    }
  }

  /**
   * The header of the first of {@code files}, checking that the others have the same. If {@code
   * sample} is not null, adds to it the data records that may vote on the types, in file order,
   * until it holds {@value #CSV_SAMPLE_ROWS}.
   */
  private static List<String> csvHeader(List<String> files, CsvOptions csv, List<String[]> sample)
      throws TableException {
    String first = files.get(0);
    List<String> names = null;
    for (String file : files) {
      try (InputStream in = open(file)) {
        CsvRecordReader reader = new CsvRecordReader(in, csv, true);
        List<String> header = header(reader, file);
        if (names == null) {
          names = header;
        } else if (!header.equals(names)) {
          throw new TableException(
              "the header of '"
                  + file
                  + "' is "
                  + header
                  + ", but the header of '"
                  + first
                  + "' is "
                  + names);
        }
        CsvRecord r;
        while (sample != null && sample.size() < CSV_SAMPLE_ROWS && (r = reader.next()) != null) {
          if (!r.malformed() && r.fields().length == names.size()) {
            sample.add(r.fields());
          }
        }
      } catch (IOException e) {
        throw new TableException("cannot read '" + file + "': " + e.getMessage(), e);
      }
    }
    return names;
  }

  /** The writer schema of the first of {@code files}, checking that the others give the same. */
  private static Schema avroWriterSchema(List<String> files) throws TableException {
    String first = files.get(0);
    Schema writer = fileAvroWriterSchema(first);
    if (files.size() > 1) {
      TableSchema columns = avroColumns(writer, first);
      for (String file : files.subList(1, files.size())) {
        TableSchema other = avroColumns(fileAvroWriterSchema(file), file);
        if (!other.equals(columns)) {
          throw new TableException(
              "'" + file + "' has the columns " + other + ", but '" + first + "' has " + columns);
        }
      }
    }
    return writer;
  }

  /** The columns of the first Parquet file, checking that the others have the same. */
  private static TableSchema parquetColumns(List<String> files) throws TableException {
    String first = files.get(0);
    TableSchema columns = ParquetColumns.fromFooter(ParquetColumns.footer(first), first);
    for (String file : files.subList(1, files.size())) {
      TableSchema other = ParquetColumns.fromFooter(ParquetColumns.footer(file), file);
      if (!other.equals(columns)) {
        throw new TableException(
            "'" + file + "' has the columns " + other + ", but '" + first + "' has " + columns);
      }
    }
    return columns;
  }

  private static TableSchema avroColumns(Schema writer, String file) throws TableException {
    try {
      return fromAvro(writer);
    } catch (TableException e) {
      throw new TableException("'" + file + "': " + e.getMessage(), e);
    }
  }

  /** Nullable columns named {@code names}, typed by the values in {@code records}. */
  static TableSchema inferColumns(List<String> names, List<String[]> records) {
    List<Column> columns = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      TypeVote vote = new TypeVote();
      for (String[] r : records) {
        vote.add(r[i]);
      }
      columns.add(new Column(names.get(i), vote.type(), true));
    }
    return new TableSchema(columns);
  }

  /** The table schema of an Avro record schema. */
  public static TableSchema fromAvro(Schema record) throws TableException {
    if (record.getType() != Schema.Type.RECORD) {
      throw new TableException("an Avro table must hold records, not " + record.getType());
    }
    List<Column> columns = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (Schema.Field f : record.getFields()) {
      Column c = AvroColumns.column(f);
      if (!names.add(c.name())) {
        throw new TableException(
            "duplicate column name '" + c.name() + "' in Avro schema " + record.getFullName());
      }
      columns.add(c);
    }
    return new TableSchema(columns);
  }

  static List<String> header(CsvRecordReader reader, String source)
      throws IOException, TableException {
    CsvRecord h = reader.next();
    if (h == null) {
      throw new TableException("'" + source + "' is empty: a CSV table needs a header row");
    }
    if (h.malformed()) {
      throw new TableException("the header of '" + source + "' is malformed: " + h.error());
    }
    List<String> names = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < h.fields().length; i++) {
      String raw = h.fields()[i];
      String name = raw == null ? "" : raw.strip();
      if (name.isEmpty()) {
        throw new TableException(
            "column " + (i + 1) + " in the header of '" + source + "' has an empty name");
      }
      if (!seen.add(name)) {
        throw new TableException(
            "duplicate column name '" + name + "' in the header of '" + source + "'");
      }
      names.add(name);
    }
    return names;
  }

  private static InputStream open(String path) throws IOException {
    Path p = new Path(path);
    FileSystem fs = p.getFileSystem();
    return fs.open(p);
  }

  /** Which types every non-empty value of a column seen so far could be. */
  private static final class TypeVote {
    private boolean any;
    private boolean isLong = true;
    private boolean isDouble = true;
    private boolean isBoolean = true;

    void add(String text) {
      if (text == null || text.isEmpty()) {
        return;
      }
      any = true;
      isLong = isLong && CsvValues.inferableLong(text);
      isDouble = isDouble && CsvValues.inferableDouble(text);
      isBoolean = isBoolean && CsvValues.inferableBoolean(text);
    }

    ColumnType type() {
      if (!any) {
        return ColumnType.STRING;
      }
      if (isLong) {
        return ColumnType.BIGINT;
      }
      if (isDouble) {
        return ColumnType.DOUBLE;
      }
      return isBoolean ? ColumnType.BOOLEAN : ColumnType.STRING;
    }
  }
}
