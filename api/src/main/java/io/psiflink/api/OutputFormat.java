package io.psiflink.api;

import java.util.Locale;

/** The file format of a joined table the output party writes. */
public enum OutputFormat {
  AVRO,
  PARQUET,
  CSV;

  /** {@code avro}, {@code parquet} or {@code csv} (any case). */
  public static OutputFormat parse(String text) {
    try {
      return valueOf(text.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("must be avro, parquet or csv, not '" + text + "'");
    }
  }

  /** The form {@link #parse} reads: the lower-case name. */
  public String text() {
    return name().toLowerCase(Locale.ROOT);
  }
}
