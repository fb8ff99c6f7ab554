package io.psiflink.jobs.read;

import io.psiflink.api.PublicSize;
import io.psiflink.connectors.JdbcTable;
import io.psiflink.connectors.ParquetColumns;
import io.psiflink.connectors.TableException;
import io.psiflink.connectors.TableFiles;
import io.psiflink.connectors.TableFormat;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.apache.flink.core.fs.Path;

/**
 * A cheap estimate of a table's row count, from its size and (CSV) the line length of the first
 * megabyte of each file; Parquet from the row counts in the footers, PostgreSQL from the planner's
 * statistics. It only steers the automatic bin count (the handshake sends it as the party's {@link
 * PublicSize} policy allows); the padding bound uses the public n.
 */
public final class SizeEstimate {
  private static final int SAMPLE_BYTES = 1 << 20;

  /** CSV files sampled at most; the rest of a directory is extrapolated by byte length. */
  private static final int SAMPLE_FILES = 8;

  /** Assumed bytes per Avro row: Avro rows are compact; an estimate is all the bin count needs. */
  private static final int AVRO_ROW_BYTES = 32;

  private SizeEstimate() {}

  /** The estimated row count of the table at {@code table}, a file or a directory of parts. */
  public static long rows(String table) throws IOException, TableException {
    if (JdbcTable.isJdbc(table)) {
      return JdbcTable.parse(table).estimateRows();
    }
    TableFiles files = TableFiles.of(table);
    if (files.format() == TableFormat.AVRO) {
      return files.bytes() / AVRO_ROW_BYTES;
    }
    if (files.format() == TableFormat.PARQUET) {
      long rows = 0;
      for (String f : files.files()) {
        rows += ParquetColumns.rowCount(f); // exact, from the footers
      }
      return rows;
    }
    List<String> paths = files.files();
    int sampled = Math.min(paths.size(), SAMPLE_FILES);
    long rows = 0;
    long sampledBytes = 0;
    for (int i = 0; i < sampled; i++) {
      rows += csvRows(paths.get(i), files.lengths().get(i));
      sampledBytes += files.lengths().get(i);
    }
    long restBytes = files.bytes() - sampledBytes;
    if (restBytes > 0 && sampledBytes > 0) {
      rows += Math.round(rows * (double) restBytes / sampledBytes);
    }
    return rows;
  }

  /** The rows of one CSV file of {@code length} bytes: its lines, estimated, minus the header. */
  private static long csvRows(String file, long length) throws IOException {
    byte[] sample = new byte[(int) Math.min(SAMPLE_BYTES, length)];
    int read = 0;
    Path path = new Path(file);
    try (InputStream in = path.getFileSystem().open(path)) {
      while (read < sample.length) {
        int n = in.read(sample, read, sample.length - read);
        if (n < 0) {
          break;
        }
        read += n;
      }
    }
    long lines = 0;
    for (int i = 0; i < read; i++) {
      if (sample[i] == '\n') {
        lines++;
      }
    }
    if (lines == 0) {
      return 1;
    }
    return Math.max(0, Math.round(length * (double) lines / read) - 1); // minus the header
  }
}
