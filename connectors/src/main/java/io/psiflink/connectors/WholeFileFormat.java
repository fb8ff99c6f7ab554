package io.psiflink.connectors;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.reader.StreamFormat;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.types.Row;

/**
 * A file format read whole, from its start, one split per file. Its readers report no checkpoint
 * offset, so FileSource restores a split by re-reading the file and skipping the records already
 * emitted, never through {@link #restoreReader}: that call is refused rather than guessed at.
 */
abstract class WholeFileFormat implements StreamFormat<Row> {
  private static final long serialVersionUID = 1L;

  /** The format's name for messages: CSV, Avro, Parquet. */
  private final String format;

  WholeFileFormat(String format) {
    this.format = format;
  }

  @Override
  public final Reader<Row> restoreReader(
      Configuration config,
      FSDataInputStream stream,
      long restoredOffset,
      long fileLen,
      long splitEnd) {
    throw new UnsupportedOperationException(
        format
            + " records cannot be resumed at a byte "
            + "offset; the file is re-read from its start");
  }

  @Override
  public final boolean isSplittable() {
    return false;
  }
}
