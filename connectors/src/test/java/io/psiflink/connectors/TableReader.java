package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.TableSchema;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.types.Row;

/**
 * Reads a whole table into memory without Flink's runtime (only its file systems, so that {@code
 * hdfs://} works): one file, or every visible file of a directory (names not starting with {@code
 * .} or {@code _}), in name order. For checking job results and for tests.
 *
 * <p>Deliberately separate from the Flink source path so that tests can use it as an oracle: it
 * shares only the CSV tokenizer (which has its own known-answer tests) and the Avro type mapping of
 * {@link SchemaDiscovery}, and converts values with its own code. It is strict: a malformed CSV
 * record, a wrong field count or an unparsable value is an {@link IOException}, not a quarantine
 * entry.
 */
public final class TableReader {
  private TableReader() {}

  /**
   * Reads all rows. The schema comes from the files: Avro from the writer schema; CSV from the
   * header with types inferred over all rows (by the {@link SchemaDiscovery} rules).
   */
  public static TableContents readAll(String pathOrDir, TableFormat format) throws IOException {
    return readAll(pathOrDir, format, null);
  }

  /**
   * Reads all rows as {@code schema} (null: from the files). CSV headers must name the schema's
   * columns in order; Avro files must hold them (found by name, in any order).
   */
  public static TableContents readAll(String pathOrDir, TableFormat format, TableSchema schema)
      throws IOException {
    List<Path> files = files(pathOrDir);
    return switch (format) {
      case AVRO -> readAvro(files, schema);
      case CSV -> readCsv(files, schema);
      case PARQUET -> readParquet(files, schema);
    };
  }

  /** The visible files at {@code pathOrDir}: the file itself, or the directory's visible files. */
  public static List<Path> files(String pathOrDir) throws IOException {
    Path path = new Path(pathOrDir);
    FileSystem fs = path.getFileSystem();
    FileStatus status = fs.getFileStatus(path);
    if (!status.isDir()) {
      return List.of(path);
    }
    FileStatus[] entries = fs.listStatus(path);
    List<Path> files = new ArrayList<>();
    for (FileStatus e : entries == null ? new FileStatus[0] : entries) {
      if (!e.isDir() && TableFiles.isVisible(e.getPath().getName())) {
        files.add(e.getPath());
      }
    }
    files.sort(Comparator.comparing(Path::getName));
    return files;
  }

  private static TableContents readAvro(List<Path> files, TableSchema wanted) throws IOException {
    TableSchema schema = wanted;
    List<Row> rows = new ArrayList<>();
    for (Path file : files) {
      try (InputStream in = file.getFileSystem().open(file);
          DataFileStream<GenericRecord> records =
              new DataFileStream<>(in, new GenericDatumReader<>())) {
        Schema writer = records.getSchema();
        TableSchema fileSchema;
        try {
          fileSchema = SchemaDiscovery.fromAvro(writer);
        } catch (TableException e) {
          throw new IOException(file + ": " + e.getMessage(), e);
        }
        if (schema == null) {
          schema = fileSchema;
        }
        int[] pos = new int[schema.size()];
        for (int i = 0; i < pos.length; i++) {
          String name = schema.column(i).name();
          pos[i] =
              fileSchema
                  .indexOf(name)
                  .orElseThrow(() -> new IOException(file + " has no column '" + name + "'"));
        }
        for (GenericRecord r : records) {
          Row row = new Row(pos.length);
          for (int i = 0; i < pos.length; i++) {
            row.setField(i, avroValue(r.get(pos[i]), schema.column(i), file));
          }
          rows.add(row);
        }
      }
    }
    return new TableContents(schema, rows);
  }

  /** Through parquet-avro's own reader, not {@link ParquetStreamFormat}'s record assembly. */
  private static TableContents readParquet(List<Path> files, TableSchema wanted)
      throws IOException {
    TableSchema schema = wanted;
    List<Row> rows = new ArrayList<>();
    for (Path file : files) {
      try (org.apache.parquet.hadoop.ParquetReader<GenericRecord> records =
          org.apache.parquet.avro.AvroParquetReader.<GenericRecord>builder(
                  new ParquetColumns.FlinkInputFile(file))
              .withDataModel(org.apache.avro.generic.GenericData.get())
              .build()) {
        GenericRecord r = records.read();
        TableSchema fileSchema = null;
        if (r != null) {
          try {
            fileSchema = SchemaDiscovery.fromAvro(r.getSchema());
          } catch (TableException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
          }
        }
        if (schema == null) {
          schema = fileSchema;
        }
        for (; r != null; r = records.read()) {
          Row row = new Row(schema.size());
          for (int i = 0; i < schema.size(); i++) {
            String name = schema.column(i).name();
            int p =
                fileSchema
                    .indexOf(name)
                    .orElseThrow(() -> new IOException(file + " has no column '" + name + "'"));
            row.setField(i, avroValue(r.get(p), schema.column(i), file));
          }
          rows.add(row);
        }
      }
    }
    return new TableContents(schema, rows);
  }

  private static Object avroValue(Object v, Column c, Path file) throws IOException {
    if (v == null) {
      return null;
    }
    Object out =
        switch (c.type()) {
          case STRING ->
              v instanceof CharSequence || v instanceof GenericEnumSymbol<?> ? v.toString() : null;
          case BYTES ->
              v instanceof ByteBuffer bb
                  ? toArray(bb)
                  : v instanceof GenericFixed f ? f.bytes().clone() : null;
          case BIGINT -> v instanceof Integer i ? Long.valueOf(i) : v instanceof Long ? v : null;
          case DOUBLE -> v instanceof Float f ? Double.valueOf(f) : v instanceof Double ? v : null;
          default -> c.type().javaClass().isInstance(v) ? v : null;
        };
    if (out == null) {
      throw new IOException(
          file
              + ": column '"
              + c.name()
              + "' holds a "
              + v.getClass().getName()
              + ", not a "
              + c.type().sqlName());
    }
    return out;
  }

  private static byte[] toArray(ByteBuffer bb) {
    ByteBuffer d = bb.duplicate();
    byte[] b = new byte[d.remaining()];
    d.get(b);
    return b;
  }

  private static TableContents readCsv(List<Path> files, TableSchema wanted) throws IOException {
    List<String> header = wanted == null ? null : wanted.names();
    List<String[]> records = new ArrayList<>();
    for (Path file : files) {
      try (InputStream in = file.getFileSystem().open(file)) {
        CsvRecordReader reader = new CsvRecordReader(in, CsvOptions.DEFAULT, true);
        List<String> fileHeader;
        try {
          fileHeader = SchemaDiscovery.header(reader, file.toString());
        } catch (TableException e) {
          throw new IOException(e.getMessage(), e);
        }
        if (header == null) {
          header = fileHeader;
        } else if (!header.equals(fileHeader)) {
          throw new IOException(file + " has header " + fileHeader + ", expected " + header);
        }
        CsvRecord r;
        while ((r = reader.next()) != null) {
          if (r.malformed() || r.fields().length != header.size()) {
            throw new IOException(
                file
                    + " line "
                    + r.line()
                    + ": "
                    + (r.malformed() ? r.error() : r.fields().length + " fields")
                    + ": "
                    + r.raw());
          }
          records.add(r.fields());
        }
      }
    }
    TableSchema schema = wanted;
    if (schema == null && header != null) {
      schema = SchemaDiscovery.inferColumns(header, records);
    }
    List<Row> rows = new ArrayList<>(records.size());
    for (String[] fields : records) {
      Row row = new Row(fields.length);
      for (int i = 0; i < fields.length; i++) {
        row.setField(i, csvValue(fields[i], schema.column(i)));
      }
      rows.add(row);
    }
    return new TableContents(schema, rows);
  }

  /** Independent of {@link CsvValues#parse}: plain JDK parsing of what the CSV sink writes. */
  private static Object csvValue(String text, Column c) throws IOException {
    if (text == null) {
      return null;
    }
    try {
      return switch (c.type()) {
        case STRING -> text;
        case BYTES -> Base64.getDecoder().decode(text);
        case BOOLEAN ->
            text.isEmpty()
                ? null
                : switch (text.toLowerCase(Locale.ROOT)) {
                  case "true" -> true;
                  case "false" -> false;
                  default -> throw new IllegalArgumentException(text);
                };
        case INT -> text.isEmpty() ? null : Integer.parseInt(text);
        case BIGINT -> text.isEmpty() ? null : Long.parseLong(text);
        case FLOAT -> text.isEmpty() ? null : Float.parseFloat(text);
        case DOUBLE -> text.isEmpty() ? null : Double.parseDouble(text);
      };
    } catch (IllegalArgumentException e) {
      throw new IOException(
          "column '" + c.name() + "': '" + text + "' is not a " + c.type().sqlName(), e);
    }
  }
}
