package io.psiflink.connectors;

/**
 * The one quoting rule of every CSV psi-flink writes, the joined outputs ({@link CsvBulkWriter})
 * and the benchmark tables (psi-tools): RFC 4180, a quoted field has its quotes doubled. A field is
 * quoted exactly when it would otherwise read back differently: when it is empty (an empty string,
 * not NULL, which is the empty unquoted field), contains the delimiter, the quote, CR or LF, starts
 * or ends with a space or tab (readers that trim would change it), or starts with U+FEFF (would
 * pass for a BOM on the first line).
 */
public final class CsvQuoting {
  private CsvQuoting() {}

  /** Whether {@code text} must be quoted to read back as exactly itself. */
  public static boolean needsQuotes(CharSequence text, char delimiter, char quote) {
    if (text.isEmpty()) {
      return true;
    }
    char first = text.charAt(0);
    char last = text.charAt(text.length() - 1);
    if (first == ' ' || first == '\t' || last == ' ' || last == '\t' || first == '\uFEFF') {
      return true;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == delimiter || c == quote || c == '\r' || c == '\n') {
        return true;
      }
    }
    return false;
  }

  /** The field as written: {@code text} itself, or quoted with its quotes doubled when needed. */
  public static String field(String text, char delimiter, char quote) {
    if (!needsQuotes(text, delimiter, quote)) {
      return text;
    }
    String q = String.valueOf(quote);
    return q + text.replace(q, q + q) + q;
  }
}
