package io.psiflink.connectors;

import java.io.Serializable;

/**
 * How a CSV file is delimited. Delimiter and quote are single ASCII characters other than CR and
 * LF: the tokenizer works on bytes, and an ASCII byte never occurs inside a UTF-8 multi-byte
 * sequence, so splitting before decoding is safe.
 *
 * @param delimiter field separator, default {@code ,}
 * @param quote quote character, default {@code "}
 * @param maxRecordBytes a record longer than this (e.g. after an unterminated quote) is quarantined
 *     instead of being held in memory; default 16 MiB
 */
public record CsvOptions(char delimiter, char quote, int maxRecordBytes) implements Serializable {
  public static final int DEFAULT_MAX_RECORD_BYTES = 16 << 20;
  public static final CsvOptions DEFAULT = new CsvOptions(',', '"', DEFAULT_MAX_RECORD_BYTES);

  public CsvOptions {
    checkChar("delimiter", delimiter);
    checkChar("quote", quote);
    if (delimiter == quote) {
      throw new IllegalArgumentException(
          "delimiter and quote must differ, both are '" + quote + "'");
    }
    if (maxRecordBytes < 1024) {
      throw new IllegalArgumentException("maxRecordBytes must be at least 1024: " + maxRecordBytes);
    }
  }

  public static CsvOptions of(char delimiter, char quote) {
    return new CsvOptions(delimiter, quote, DEFAULT_MAX_RECORD_BYTES);
  }

  private static void checkChar(String what, char c) {
    if (c >= 0x80 || c == '\r' || c == '\n') {
      throw new IllegalArgumentException(
          "the CSV "
              + what
              + " must be an ASCII character other than CR and LF, got U+"
              + String.format("%04X", (int) c));
    }
  }
}
