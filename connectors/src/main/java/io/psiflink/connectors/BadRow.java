package io.psiflink.connectors;

/**
 * A record that could not become a row, as sent to the quarantine output.
 *
 * @param source the path of the file it came from
 * @param line for CSV the 1-based physical line on which the record starts; for Avro the 1-based
 *     number of the record in the file
 * @param reason why, e.g. {@code column 'spend': 'abc' is not a BIGINT}
 * @param raw the record's text (CSV: as in the file; Avro: the record as JSON), at most 1 KiB
 */
public record BadRow(String source, long line, String reason, String raw) {
  /** Bytes of raw text kept; longer text is cut on a character boundary. */
  public static final int RAW_LIMIT = CsvRecordReader.RAW_LIMIT;
}
