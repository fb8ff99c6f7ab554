package io.psiflink.connectors;

import java.util.Arrays;

/**
 * One CSV record as tokenized, before typing.
 *
 * @param line 1-based physical line on which the record starts
 * @param fields the field texts, {@code null} for an unquoted empty field (SQL NULL) and {@code ""}
 *     for a quoted empty one; {@code null} if the record is malformed
 * @param error why the record is malformed (unterminated quote, invalid UTF-8, ...), else null
 * @param raw the record's text without its line terminator, at most the first 1 KiB of its bytes,
 *     decoded leniently (invalid bytes become U+FFFD)
 */
public record CsvRecord(long line, String[] fields, String error, String raw) {
  public boolean malformed() {
    return error != null;
  }

  @Override
  public String toString() {
    return "CsvRecord[line="
        + line
        + ", fields="
        + Arrays.toString(fields)
        + ", error="
        + error
        + ", raw="
        + raw
        + "]";
  }
}
