package io.psiflink.connectors;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.impl.StreamFormatAdapter;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.reader.StreamFormat;
import org.apache.flink.core.fs.Path;
import org.apache.flink.types.Row;
import org.apache.flink.util.function.SerializableFunction;

/**
 * Reads each file of a table with a {@link StreamFormat} made for that file, so that the records
 * can name the file they came from ({@link StreamFormat#createReader} is not told the path). The
 * splits must carry the listed paths themselves, as {@link ListedFileEnumerator} makes them: the
 * path of a split is mapped back to the file name as listed, which the file system's own
 * enumeration would have qualified ({@code /t.csv} becoming {@code file:/t.csv}).
 */
final class PerFileFormat implements BulkFormat<Row, FileSourceSplit> {
  private static final long serialVersionUID = 1L;

  private final Map<Path, String> files;
  private final SerializableFunction<String, StreamFormat<Row>> formats;
  private final TypeInformation<Row> producedType;

  /**
   * @param files the files to be read, as listed ({@link TableFiles#files})
   * @param formats the format reading a given file; the same produced type for every file
   */
  PerFileFormat(List<String> files, SerializableFunction<String, StreamFormat<Row>> formats) {
    Map<Path, String> byPath = new HashMap<>();
    for (String f : files) {
      byPath.put(new Path(f), f);
    }
    this.files = Map.copyOf(byPath);
    this.formats = formats;
    this.producedType = formats.apply(files.get(0)).getProducedType();
  }

  @Override
  public Reader<Row> createReader(Configuration config, FileSourceSplit split) throws IOException {
    return adapter(split).createReader(config, split);
  }

  @Override
  public Reader<Row> restoreReader(Configuration config, FileSourceSplit split) throws IOException {
    return adapter(split).restoreReader(config, split);
  }

  private StreamFormatAdapter<Row> adapter(FileSourceSplit split) throws IOException {
    String file = files.get(split.path());
    if (file == null) {
      throw new IOException(
          "split "
              + split.splitId()
              + " is for '"
              + split.path()
              + "', which is not one of the table's listed files");
    }
    return new StreamFormatAdapter<>(formats.apply(file));
  }

  @Override
  public boolean isSplittable() {
    return false;
  }

  @Override
  public TypeInformation<Row> getProducedType() {
    return producedType;
  }
}
