package io.psiflink.jobs;

import io.psiflink.jobs.table.TableFormat;
import java.io.IOException;
import java.io.InputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * A cheap estimate of a table's row count, from its size and (CSV) the line length of its first
 * megabyte. It only steers the automatic bin count; the padding bound uses the exact count.
 */
public final class SizeEstimate {
  private static final int SAMPLE_BYTES = 1 << 20;
  /** Assumed bytes per Avro row: Avro rows are compact; an estimate is all the bin count needs. */
  private static final int AVRO_ROW_BYTES = 32;

  private SizeEstimate() {}

  public static long rows(String table) throws IOException {
    Path path = new Path(table);
    FileSystem fs = path.getFileSystem();
    FileStatus status = fs.getFileStatus(path);
    long length = status.getLen();
    if (TableFormat.fromPath(table) == TableFormat.AVRO) {
      return length / AVRO_ROW_BYTES;
    }
    byte[] sample = new byte[(int) Math.min(SAMPLE_BYTES, length)];
    int read = 0;
    try (InputStream in = fs.open(path)) {
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
