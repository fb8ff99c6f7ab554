package io.psiflink.connectors;

import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.java.typeutils.RowTypeInfo;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.types.Row;

/**
 * Reads one CSV file, {@code source}, as {@link SourceRecord}s whose payload is the record packed
 * ({@link CsvFields}: fields and raw text in one array, no object per field; the record's raw text
 * is in it, not in the SourceRecord); {@link PerFileFormat} makes one per file. The header row is
 * checked against the expected column names (trimmed, as {@link SchemaDiscovery} trims them) and
 * not emitted. One split per file: a record may span lines, so a file cannot be cut at an arbitrary
 * offset.
 */
final class CsvStreamFormat extends WholeFileFormat {
  private static final long serialVersionUID = 1L;

  private final String source;
  private final List<String> expectedHeader;
  private final CsvOptions options;

  CsvStreamFormat(String source, List<String> expectedHeader, CsvOptions options) {
    super("CSV");
    this.source = source;
    this.expectedHeader = List.copyOf(expectedHeader);
    this.options = options;
  }

  @Override
  public Reader<Row> createReader(
      Configuration config, FSDataInputStream stream, long fileLen, long splitEnd)
      throws IOException {
    CsvRecordReader records = new CsvRecordReader(stream, options, true);
    List<String> header;
    try {
      header = SchemaDiscovery.header(records, source);
    } catch (TableException e) {
      records.close();
      throw new IOException(e.getMessage(), e);
    }
    if (!header.equals(expectedHeader)) {
      records.close();
      throw new IOException(
          "the header of '" + source + "' is " + header + ", expected " + expectedHeader);
    }
    return new CsvReader(records);
  }

  @Override
  public RowTypeInfo getProducedType() {
    return SourceRecord.type(PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);
  }

  private final class CsvReader implements Reader<Row> {
    private final CsvRecordReader records;

    CsvReader(CsvRecordReader records) {
      this.records = records;
    }

    @Override
    public Row read() throws IOException {
      CsvRecord r = records.next();
      if (r == null) {
        return null;
      }
      return r.malformed()
          ? SourceRecord.bad(source, r.line(), r.error(), r.raw())
          : SourceRecord.good(source, r.line(), null, r.packed());
    }

    @Override
    public void close() throws IOException {
      records.close();
    }
  }
}
