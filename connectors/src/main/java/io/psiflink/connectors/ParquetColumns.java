package io.psiflink.connectors;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * How table columns map to Parquet.
 *
 * <p>Reading (the footer's schema, found without Hadoop's file systems: Flink's, so {@code hdfs://}
 * works as for the other formats): top-level primitive fields only. BOOLEAN, INT32, INT64, FLOAT,
 * DOUBLE map to BOOLEAN, INT, BIGINT, FLOAT, DOUBLE; BINARY annotated as a string, enum or JSON
 * maps to STRING, other BINARY and FIXED_LEN_BYTE_ARRAY to BYTES. Integer annotations (int8..int64
 * signed), date and time/timestamp annotations map to the physical INT / BIGINT value, as for Avro.
 * Unsigned 64-bit integers, decimals, INT96, groups (nested records, lists, maps) and repeated
 * fields are rejected with the column's name. OPTIONAL fields are nullable, REQUIRED ones NOT NULL.
 *
 * <p>Names: the Parquet field name, unless the file carries the Avro schema parquet-avro stores in
 * the footer ({@value #AVRO_SCHEMA_KEY}) and that field has the {@value
 * AvroColumns#COLUMN_PROPERTY} property our sink writes: then that original column name, so names
 * survive a round trip through Parquet exactly as through Avro.
 */
public final class ParquetColumns {
  /** The footer key under which parquet-avro stores the writer's Avro schema. */
  public static final String AVRO_SCHEMA_KEY = "parquet.avro.schema";

  private ParquetColumns() {}

  /** The footer of one Parquet file. */
  static ParquetMetadata footer(String file) throws TableException {
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            new FlinkInputFile(new Path(file)), ParquetReadOptions.builder().build())) {
      return reader.getFooter();
    } catch (IOException | RuntimeException e) {
      throw new TableException(
          "cannot read the Parquet footer of '" + file + "': " + e.getMessage(), e);
    }
  }

  /** The number of rows of a Parquet file, from its footer. */
  public static long rowCount(String file) throws TableException {
    return footer(file).getBlocks().stream().mapToLong(b -> b.getRowCount()).sum();
  }

  /** The table schema of a Parquet file from its footer. */
  public static TableSchema fromFooter(ParquetMetadata footer, String file) throws TableException {
    MessageType message = footer.getFileMetaData().getSchema();
    List<String> names = columnNames(footer);
    List<Column> columns = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < message.getFieldCount(); i++) {
      Type f = message.getType(i);
      String name = names.get(i);
      if (!seen.add(name)) {
        throw new TableException("'" + file + "': duplicate column name '" + name + "'");
      }
      columns.add(
          new Column(
              name, columnType(name, f, file), f.getRepetition() == Type.Repetition.OPTIONAL));
    }
    return new TableSchema(columns);
  }

  /** The column name of each top-level field of the file, in field order. */
  static List<String> columnNames(ParquetMetadata footer) {
    MessageType message = footer.getFileMetaData().getSchema();
    Map<String, String> kv = footer.getFileMetaData().getKeyValueMetaData();
    Schema avro = null;
    String json = kv == null ? null : kv.get(AVRO_SCHEMA_KEY);
    if (json != null) {
      try {
        avro = new Schema.Parser().setValidate(false).parse(json);
      } catch (RuntimeException e) {
        avro = null; // a foreign or broken Avro schema: the Parquet names are authoritative
      }
    }
    List<String> names = new ArrayList<>();
    for (int i = 0; i < message.getFieldCount(); i++) {
      String name = message.getType(i).getName();
      if (avro != null && avro.getType() == Schema.Type.RECORD) {
        Schema.Field f = avro.getField(name);
        if (f != null) {
          name = AvroColumns.columnName(f);
        }
      }
      names.add(name);
    }
    return names;
  }

  private static ColumnType columnType(String name, Type f, String file) throws TableException {
    if (!f.isPrimitive() || f.getRepetition() == Type.Repetition.REPEATED) {
      throw unsupported(name, f, file);
    }
    PrimitiveType p = f.asPrimitiveType();
    LogicalTypeAnnotation logical = p.getLogicalTypeAnnotation();
    switch (p.getPrimitiveTypeName()) {
      case BOOLEAN:
        return ColumnType.BOOLEAN;
      case INT32:
        if (logical == null
            || logical instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation
            || logical instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation
            || (logical instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i
                && (i.isSigned() || i.getBitWidth() < 32))) {
          return ColumnType.INT;
        }
        if (logical instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation) {
          return ColumnType.BIGINT; // uint32 fits a long
        }
        break;
      case INT64:
        if (logical == null
            || logical instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation
            || logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation
            || (logical instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i
                && i.isSigned())) {
          return ColumnType.BIGINT;
        }
        break;
      case FLOAT:
        return ColumnType.FLOAT;
      case DOUBLE:
        return ColumnType.DOUBLE;
      case BINARY:
        if (logical instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
            || logical instanceof LogicalTypeAnnotation.EnumLogicalTypeAnnotation
            || logical instanceof LogicalTypeAnnotation.JsonLogicalTypeAnnotation) {
          return ColumnType.STRING;
        }
        if (logical == null) {
          return ColumnType.BYTES;
        }
        break;
      case FIXED_LEN_BYTE_ARRAY:
        if (logical == null) {
          return ColumnType.BYTES;
        }
        break;
      default:
        break;
    }
    throw unsupported(name, f, file);
  }

  private static TableException unsupported(String name, Type f, String file) {
    return new TableException(
        "'"
            + file
            + "': column '"
            + name
            + "' has Parquet type "
            + f
            + ", which is not supported: use boolean, int32, int64, float, double, binary (string or"
            + " bytes) or fixed_len_byte_array, optional or required, not nested or repeated");
  }

  /** Strict UTF-8 decoding: Parquet's own string conversion would replace bad bytes silently. */
  static String utf8(ByteBuffer bytes) throws CharacterCodingException {
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(bytes)
        .toString();
  }

  /** A Parquet {@link InputFile} on a Flink file system (local, HDFS, ...). */
  static final class FlinkInputFile implements InputFile {
    private final Path path;
    private final long length;
    private final FSDataInputStream shared;

    FlinkInputFile(Path path) throws IOException {
      this.path = path;
      this.length = path.getFileSystem().getFileStatus(path).getLen();
      this.shared = null;
    }

    /** On an already open stream (which the caller closes) of a file of {@code length} bytes. */
    FlinkInputFile(FSDataInputStream stream, long length) {
      this.path = null;
      this.length = length;
      this.shared = stream;
    }

    @Override
    public long getLength() {
      return length;
    }

    @Override
    public SeekableInputStream newStream() throws IOException {
      FSDataInputStream in = shared != null ? shared : path.getFileSystem().open(path);
      boolean own = shared == null;
      return new DelegatingSeekableInputStream(in) {
        @Override
        public long getPos() throws IOException {
          return in.getPos();
        }

        @Override
        public void seek(long newPos) throws IOException {
          if (newPos > length) {
            throw new EOFException("seek to " + newPos + " past the end (" + length + ")");
          }
          in.seek(newPos);
        }

        @Override
        public void close() throws IOException {
          if (own) {
            in.close();
          }
        }
      };
    }
  }
}
