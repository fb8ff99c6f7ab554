package io.psiflink.connectors;

import java.util.Arrays;

/**
 * One CSV record as tokenized, before typing: its fields packed into one array ({@link CsvFields}),
 * turned into objects only when asked.
 */
public final class CsvRecord {
  private final long line;
  private final byte[] packed;
  private final String error;

  /**
   * @param packed the fields and the raw text ({@link CsvFields}); no fields if malformed
   */
  CsvRecord(long line, byte[] packed, String error) {
    this.line = line;
    this.packed = packed;
    this.error = error;
  }

  /** 1-based physical line on which the record starts. */
  public long line() {
    return line;
  }

  /** Why the record is malformed (unterminated quote, invalid UTF-8, ...), else null. */
  public String error() {
    return error;
  }

  public boolean malformed() {
    return error != null;
  }

  /**
   * The field texts, {@code null} for an unquoted empty field (SQL NULL) and {@code ""} for a
   * quoted empty one; {@code null} if the record is malformed.
   */
  public String[] fields() {
    return malformed() ? null : CsvFields.texts(packed);
  }

  /** The fields and raw text packed ({@link CsvFields}): what the CSV source emits. */
  byte[] packed() {
    return packed;
  }

  /**
   * The record's text without its line terminator, at most the first 1 KiB of its bytes, decoded
   * leniently (invalid bytes become U+FFFD).
   */
  public String raw() {
    return CsvFields.raw(packed);
  }

  @Override
  public String toString() {
    return "CsvRecord[line="
        + line
        + ", fields="
        + Arrays.toString(fields())
        + ", error="
        + error
        + ", raw="
        + raw()
        + "]";
  }
}
