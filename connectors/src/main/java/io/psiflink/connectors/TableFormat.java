package io.psiflink.connectors;

import java.util.Locale;

/** The file formats a table may be read from or written to, told apart by file extension. */
public enum TableFormat {
  CSV(".csv"),
  AVRO(".avro"),
  PARQUET(".parquet");

  private final String extension;

  TableFormat(String extension) {
    this.extension = extension;
  }

  /**
   * The file name suffix of this format, with the dot, lower case: {@code .csv}, {@code .avro},
   * {@code .parquet}.
   */
  public String extension() {
    return extension;
  }

  /**
   * The format of the file at {@code path} (local, {@code file://} or {@code hdfs://}), by its
   * extension, ignoring case.
   *
   * @throws IllegalArgumentException if the extension is not one of the supported ones
   */
  public static TableFormat fromPath(String path) {
    if (path == null) {
      throw new IllegalArgumentException(
          "no path given; supported extensions are .csv, .avro, .parquet");
    }
    String lower = path.toLowerCase(Locale.ROOT);
    for (TableFormat f : values()) {
      if (lower.endsWith(f.extension)) {
        return f;
      }
    }
    throw new IllegalArgumentException(
        "cannot tell the table format of '"
            + path
            + "': supported extensions are .csv, .avro, .parquet (any case)");
  }
}
