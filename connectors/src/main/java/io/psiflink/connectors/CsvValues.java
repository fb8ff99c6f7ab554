package io.psiflink.connectors;

import io.psiflink.api.ColumnType;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The text form of column values in CSV files, both ways. One place, so that what {@link
 * CsvBulkWriter} writes is exactly what the CSV source reads back.
 *
 * <ul>
 *   <li>NULL is an unquoted empty field. A quoted empty field is the empty string for STRING, the
 *       empty array for BYTES and NULL for every other type.
 *   <li>BOOLEAN: {@code true} / {@code false}, any case on input, lower case on output.
 *   <li>INT, BIGINT: optional sign and ASCII digits ({@code Long.parseLong} alone would also take
 *       non-ASCII digits); out of range is an error.
 *   <li>FLOAT, DOUBLE: decimal notation with optional exponent ({@code 1.5}, {@code -2e-3}, {@code
 *       .5}), or exactly {@code NaN}, {@code Infinity}, {@code -Infinity}; no surrounding blanks,
 *       no hex floats, no {@code d}/{@code f} suffixes; a finite literal that overflows is an
 *       error. Output is Java's shortest round-trip form ({@link Double#toString(double)}, {@link
 *       Float#toString(float)}), e.g. {@code 1.0E10}.
 *   <li>STRING: the text as is, never trimmed.
 *   <li>BYTES: standard Base64 with padding (RFC 4648 section 4), strict on input.
 * </ul>
 */
public final class CsvValues {

  private CsvValues() {}

  /**
   * The value of a field of the given type.
   *
   * @param text the field as tokenized: null for an unquoted empty field
   * @throws IllegalArgumentException if the text is not a value of the type
   */
  public static Object parse(String text, ColumnType type) {
    if (text == null) {
      return null;
    }
    if (text.isEmpty()) {
      return switch (type) {
        case STRING -> "";
        case BYTES -> new byte[0];
        default -> null;
      };
    }
    return switch (type) {
      case STRING -> text;
      case BOOLEAN -> parseBoolean(text);
      case INT, BIGINT, DOUBLE -> {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        yield parse(b, 0, b.length, type);
      }
      case FLOAT -> parseFloat(text);
      case BYTES -> Base64.getDecoder().decode(text);
    };
  }

  /**
   * The value of a non-NULL field from its UTF-8 bytes {@code b[from, to)}: exactly {@link
   * #parse(String, ColumnType)} of their text, with no String made for a number.
   *
   * @throws IllegalArgumentException if the text is not a value of the type
   */
  static Object parse(byte[] b, int from, int to, ColumnType type) {
    if (from == to) {
      return parse("", type);
    }
    return switch (type) {
      case STRING -> text(b, from, to);
      case BYTES -> parse(text(b, from, to), type);
      default -> value(parseBits(b, from, to, type), type);
    };
  }

  /**
   * The value of a non-empty field from its UTF-8 bytes {@code b[from, to)}, for the fixed-size
   * types as one long, exactly {@link #parse(String, ColumnType)}'s value: INT and BIGINT the
   * number, DOUBLE its raw bits, FLOAT its raw bits in the low 32, BOOLEAN 0 or 1 ({@link #value}
   * turns it back). STRING is 0; BYTES is 0 once the Base64 was checked. The CSV source's checking
   * step ({@link CsvFieldDecoder#check}) stores it in the packed record.
   *
   * @throws IllegalArgumentException if the text is not a value of the type
   */
  static long parseBits(byte[] b, int from, int to, ColumnType type) {
    return switch (type) {
      case INT -> toInt(parseInteger(b, from, to));
      case BIGINT -> parseInteger(b, from, to);
      case DOUBLE -> {
        double fast = fastDouble(b, from, to);
        yield Double.doubleToRawLongBits(fast == fast ? fast : parseDouble(text(b, from, to)));
      }
      case FLOAT -> Float.floatToRawIntBits(parseFloat(text(b, from, to))) & 0xFFFF_FFFFL;
      case BOOLEAN -> parseBoolean(text(b, from, to)) ? 1 : 0;
      case BYTES -> {
        Base64.getDecoder().decode(text(b, from, to));
        yield 0;
      }
      case STRING -> 0;
    };
  }

  /** The value of a fixed-size type whose {@link #parseBits} are {@code bits}. */
  static Object value(long bits, ColumnType type) {
    return switch (type) {
      case INT -> (int) bits;
      case BIGINT -> bits;
      case DOUBLE -> Double.longBitsToDouble(bits);
      case FLOAT -> Float.intBitsToFloat((int) bits);
      case BOOLEAN -> bits != 0;
      case STRING, BYTES -> throw new IllegalArgumentException(type + " is not of fixed size");
    };
  }

  /** The text of UTF-8 bytes {@code b[from, to)} (the JDK copies ASCII without decoding it). */
  static String text(byte[] b, int from, int to) {
    return new String(b, from, to - from, StandardCharsets.UTF_8);
  }

  /**
   * The text of a value, unquoted; null for NULL.
   *
   * @throws IllegalArgumentException if the value is not of the type's Java class
   */
  public static String format(Object value, ColumnType type) {
    if (value == null) {
      return null;
    }
    if (!type.javaClass().isInstance(value)) {
      throw new IllegalArgumentException(
          "a "
              + value.getClass().getName()
              + " is not a "
              + type.sqlName()
              + " (expected "
              + type.javaClass().getSimpleName()
              + ")");
    }
    return switch (type) {
      case BYTES -> Base64.getEncoder().encodeToString((byte[]) value);
      case DOUBLE -> Double.toString((Double) value);
      case FLOAT -> Float.toString((Float) value);
      case BOOLEAN -> ((Boolean) value) ? "true" : "false";
      case INT, BIGINT, STRING -> value.toString();
    };
  }

  /** Whether type inference may call this non-empty text a BIGINT without losing information. */
  static boolean inferableLong(String text) {
    if (!isInteger(text) || hasLeadingZero(text)) {
      return false;
    }
    try {
      Long.parseLong(text);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /**
   * Whether type inference may call this non-empty text a DOUBLE: a finite decimal literal. An
   * integer literal that does not fit a long is not one (as a double it would lose digits, and such
   * columns are usually identifiers), nor is one with a superfluous leading zero such as a ZIP code
   * {@code 01234}, which would lose the zero.
   */
  static boolean inferableDouble(String text) {
    if (!isDecimal(text) || hasLeadingZero(text)) {
      return false;
    }
    if (isInteger(text)) {
      return inferableLong(text);
    }
    return Double.isFinite(Double.parseDouble(text));
  }

  static boolean inferableBoolean(String text) {
    return text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false");
  }

  private static boolean hasLeadingZero(String text) {
    int i = text.startsWith("+") || text.startsWith("-") ? 1 : 0;
    return text.length() > i + 1 && text.charAt(i) == '0' && Character.isDigit(text.charAt(i + 1));
  }

  private static Boolean parseBoolean(String text) {
    if (text.equalsIgnoreCase("true")) {
      return Boolean.TRUE;
    }
    if (text.equalsIgnoreCase("false")) {
      return Boolean.FALSE;
    }
    throw new IllegalArgumentException("not a boolean");
  }

  /**
   * {@code [+-]?[0-9]+}, by hand: it runs for every integer field read. ASCII digits only, where
   * {@link Long#parseLong} would also take other scripts' digits.
   */
  static boolean isInteger(String text) {
    int n = text.length();
    int i = n > 0 && (text.charAt(0) == '+' || text.charAt(0) == '-') ? 1 : 0;
    return i < n && digits(text, i) == n - i;
  }

  /**
   * {@code [+-]?[0-9]+} of the bytes {@code b[from, to)} as a long in one pass (it runs for every
   * integer field read).
   *
   * @throws IllegalArgumentException if not of that form or out of range
   */
  static long parseInteger(byte[] b, int from, int to) {
    boolean negative = from < to && b[from] == '-';
    int i = from < to && (negative || b[from] == '+') ? from + 1 : from;
    if (i == to) {
      throw new NumberFormatException("not an integer");
    }
    // accumulate negatively: Long.MIN_VALUE has no positive counterpart
    long v = 0;
    // the first 16 digits eight at a time (they cannot overflow), the rest one by one
    for (int chunk = 0; chunk < 2 && to - i >= 8; chunk++, i += 8) {
      long x = (long) WORD.get(b, i);
      if (!eightDigits(x)) {
        break;
      }
      v = v * 100_000_000 - eightDigitsValue(x);
    }
    for (; i < to; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9) {
        throw new NumberFormatException("not an integer");
      }
      if (v < Long.MIN_VALUE / 10 || v * 10 < Long.MIN_VALUE + d) {
        throw new NumberFormatException("out of range");
      }
      v = v * 10 - d;
    }
    if (!negative && v == Long.MIN_VALUE) {
      throw new NumberFormatException("out of range");
    }
    return negative ? v : -v;
  }

  private static final VarHandle WORD =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** Whether the eight bytes of {@code x} (first in the low byte) are all ASCII digits. */
  private static boolean eightDigits(long x) {
    long high = x & 0xF0F0_F0F0_F0F0_F0F0L; // 3 for '0' to '9'
    long pastNine = ((x + 0x0606_0606_0606_0606L) & 0xF0F0_F0F0_F0F0_F0F0L) >>> 4; // 3 up to '9'
    return (high | pastNine) == 0x3333_3333_3333_3333L;
  }

  /** The number that eight ASCII digits read as {@code x} (first in the low byte) spell. */
  private static long eightDigitsValue(long x) {
    long d = x - 0x3030_3030_3030_3030L;
    d = (d * 10 + (d >>> 8)) & 0x00FF_00FF_00FF_00FFL; // 16-bit lane j: digits 2j, 2j + 1
    d = (d * 100 + (d >>> 16)) & 0x0000_FFFF_0000_FFFFL; // 32-bit lane j: digits 4j to 4j + 3
    return (d & 0xFFFF_FFFFL) * 10_000 + (d >>> 32);
  }

  private static int toInt(long v) {
    if (v != (int) v) {
      throw new NumberFormatException("out of range");
    }
    return (int) v;
  }

  /** Exact powers of ten as doubles: 10^22 is the largest. */
  private static final double[] POW10 = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22
  };

  /**
   * {@code [+-]?[0-9]*\.?[0-9]*} with at most 15 digits in all, of the bytes {@code b[from, to)},
   * as a double; NaN when they are not of that form. Both the digits (below 2^53) and the power of
   * ten are exact doubles, so their quotient is the correctly rounded value, exactly what {@link
   * Double#parseDouble} returns (Clinger's fast path); it spares the general conversion for the
   * common field.
   */
  static double fastDouble(byte[] b, int from, int to) {
    boolean negative = from < to && b[from] == '-';
    int i = from < to && (negative || b[from] == '+') ? from + 1 : from;
    long m = 0;
    int digits = 0;
    int fraction = -1; // digits after the point; -1 before the point
    for (; i < to; i++) {
      int c = b[i];
      if (c >= '0' && c <= '9') {
        if (++digits > 15) {
          return Double.NaN;
        }
        m = m * 10 + (c - '0');
        if (fraction >= 0) {
          fraction++;
        }
      } else if (c == '.' && fraction < 0) {
        fraction = 0;
      } else {
        return Double.NaN;
      }
    }
    if (digits == 0) {
      return Double.NaN;
    }
    double d = fraction > 0 ? m / POW10[fraction] : m;
    return negative ? -d : d;
  }

  /** The slow path of {@link #fastDouble}: every decimal literal, NaN and the infinities. */
  private static double parseDouble(String text) {
    if (!isDecimal(text)) {
      return switch (text) {
        case "NaN" -> Double.NaN;
        case "Infinity" -> Double.POSITIVE_INFINITY;
        case "-Infinity" -> Double.NEGATIVE_INFINITY;
        default -> throw new IllegalArgumentException("not a number");
      };
    }
    double d = Double.parseDouble(text);
    if (!Double.isFinite(d)) {
      throw new NumberFormatException("out of range");
    }
    return d;
  }

  private static float parseFloat(String text) {
    if (!isDecimal(text)) {
      return switch (text) {
        case "NaN" -> Float.NaN;
        case "Infinity" -> Float.POSITIVE_INFINITY;
        case "-Infinity" -> Float.NEGATIVE_INFINITY;
        default -> throw new IllegalArgumentException("not a number");
      };
    }
    float f = Float.parseFloat(text);
    if (!Float.isFinite(f)) {
      throw new NumberFormatException("out of range");
    }
    return f;
  }

  /**
   * {@code [+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?}, by hand: it runs for every
   * floating-point field read. Rejects what {@link Double#parseDouble} would also take: white
   * space, hexadecimal, {@code d}/{@code f} suffixes.
   */
  static boolean isDecimal(String text) {
    int n = text.length();
    int i = n > 0 && (text.charAt(0) == '+' || text.charAt(0) == '-') ? 1 : 0;
    int intDigits = digits(text, i);
    i += intDigits;
    int fracDigits = 0;
    if (i < n && text.charAt(i) == '.') {
      fracDigits = digits(text, ++i);
      i += fracDigits;
    }
    if (intDigits == 0 && fracDigits == 0) {
      return false;
    }
    if (i < n && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
      i++;
      if (i < n && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
        i++;
      }
      int expDigits = digits(text, i);
      if (expDigits == 0) {
        return false;
      }
      i += expDigits;
    }
    return i == n;
  }

  /** The number of ASCII digits in {@code text} from {@code from} on. */
  private static int digits(String text, int from) {
    int i = from;
    while (i < text.length() && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
      i++;
    }
    return i - from;
  }

  /** A short, printable rendering of a field for an error message. */
  static String quoteForMessage(String text) {
    String t = text.length() > 100 ? text.substring(0, 100) + "..." : text;
    return "'" + t + "'";
  }
}
