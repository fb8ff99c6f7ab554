package io.psiflink.jobs.table;

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
 * Finds the schema of a table file (local, {@code file://} or {@code hdfs://}).
 *
 * <p>CSV: the header row gives the names. Names are trimmed of surrounding white space ({@link
 * String#strip()}), since headers are typed by people and {@code "id, spend"} means {@code spend};
 * a UTF-8 BOM before the header is dropped. An empty name or a name occurring twice is an error.
 * Types are inferred from up to {@value #CSV_SAMPLE_ROWS} data records: BIGINT if every non-empty
 * value is an integer fitting a long, else DOUBLE if every one is a finite decimal number, else
 * BOOLEAN if every one is {@code true}/{@code false} (any case), else STRING; a column with no
 * non-empty value is STRING. Numbers with a superfluous leading zero ({@code 01234}) and integers
 * beyond the long range make a column STRING, because converting them would lose information that
 * a join key needs (see {@link CsvValues#inferableDouble}). Records that the source would
 * quarantine (malformed, wrong field count) do not take part. All columns are nullable.
 *
 * <p>Avro: from the writer schema in the file header, see {@link AvroColumns}.
 */
public final class SchemaDiscovery {
  /** How many CSV data records type inference looks at. */
  public static final int CSV_SAMPLE_ROWS = 10_000;

  private SchemaDiscovery() {}

  public static TableSchema discover(String path) throws TableException {
    return discover(path, CsvOptions.DEFAULT);
  }

  /** The schema of the file at {@code path}, by its format ({@link TableFormat#fromPath}). */
  public static TableSchema discover(String path, CsvOptions csv) throws TableException {
    TableFormat format = fromPath(path);
    try (InputStream in = open(path)) {
      return switch (format) {
        case CSV -> inferCsv(in, csv, path);
        case AVRO -> avroSchema(in, path);
      };
    } catch (IOException e) {
      throw new TableException("cannot read the schema of '" + path + "': " + e.getMessage(), e);
    }
  }

  /** The column names in the header of a CSV file, trimmed and checked. */
  public static List<String> csvHeader(String path, CsvOptions csv) throws TableException {
    try (InputStream in = open(path)) {
      return header(new CsvRecordReader(in, csv, true), path);
    } catch (IOException e) {
      throw new TableException("cannot read the header of '" + path + "': " + e.getMessage(), e);
    }
  }

  /** The Avro writer schema of an Avro container file. */
  public static Schema avroWriterSchema(String path) throws TableException {
    try (InputStream in = open(path);
        DataFileStream<GenericRecord> stream = new DataFileStream<>(in, new GenericDatumReader<>())) {
      return stream.getSchema();
    } catch (IOException e) {
      throw new TableException("cannot read the Avro header of '" + path + "': " + e.getMessage(), e);
    }
  }

  /** Infers the schema of the CSV text in {@code in}; {@code source} names it in errors. */
  public static TableSchema inferCsv(InputStream in, CsvOptions csv, String source)
      throws IOException, TableException {
    CsvRecordReader reader = new CsvRecordReader(in, csv, true);
    List<String> names = header(reader, source);
    List<String[]> sample = new ArrayList<>();
    CsvRecord r;
    while (sample.size() < CSV_SAMPLE_ROWS && (r = reader.next()) != null) {
      if (!r.malformed() && r.fields().length == names.size()) {
        sample.add(r.fields());
      }
    }
    return inferColumns(names, sample);
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
        throw new TableException("duplicate column name '" + c.name() + "' in Avro schema "
            + record.getFullName());
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

  private static TableSchema avroSchema(InputStream in, String source)
      throws IOException, TableException {
    try (DataFileStream<GenericRecord> stream = new DataFileStream<>(in, new GenericDatumReader<>())) {
      try {
        return fromAvro(stream.getSchema());
      } catch (TableException e) {
        throw new TableException("'" + source + "': " + e.getMessage(), e);
      }
    }
  }

  private static TableFormat fromPath(String path) throws TableException {
    try {
      return TableFormat.fromPath(path);
    } catch (IllegalArgumentException e) {
      throw new TableException(e.getMessage(), e);
    }
  }

  static InputStream open(String path) throws IOException {
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
