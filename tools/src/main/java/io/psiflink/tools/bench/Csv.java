package io.psiflink.tools.bench;

import io.psiflink.connectors.CsvQuoting;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The CSV dialect of the benchmark tables (RFC 4180 with LF line ends): fields separated by {@code
 * ,}, quoted with {@code "} by {@link CsvQuoting} (the rule of the joined outputs too); SQL NULL is
 * the empty, unquoted field; the empty string is written as {@code ""} (Flink's csv format reads
 * both as NULL, so the generator never produces empty strings); the first record is the header of
 * column names. Values: integers in decimal, doubles as {@link Double#toString}, booleans {@code
 * true}/{@code false}, bytes in base64 (as Flink's csv format writes them).
 */
public final class Csv {
  private Csv() {}

  public static final char DELIMITER = ',';
  public static final char QUOTE = '"';

  /** The field as written: quoted if needed, and {@code ""} for the empty string. */
  public static String field(String s) {
    return CsvQuoting.field(s, DELIMITER, QUOTE);
  }

  /** Appends one value (null → empty field) in the dialect above. */
  public static StringBuilder appendValue(StringBuilder sb, Object v) {
    if (v == null) {
      return sb;
    }
    if (v instanceof byte[] b) {
      return sb.append(Base64.getEncoder().encodeToString(b));
    }
    if (v instanceof CharSequence cs) {
      return sb.append(field(cs.toString()));
    }
    return sb.append(v);
  }

  /** One record of values, terminated by LF. */
  public static String record(Object... values) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < values.length; i++) {
      if (i > 0) {
        sb.append(DELIMITER);
      }
      appendValue(sb, values[i]);
    }
    return sb.append('\n').toString();
  }

  /** UTF-8 bytes of {@link #field(String)}. */
  static byte[] fieldBytes(String s) {
    return field(s).getBytes(StandardCharsets.UTF_8);
  }
}
