package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.ColumnType;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class CsvValuesTest {

  @Test
  void nullAndEmpty() {
    for (ColumnType t : ColumnType.values()) {
      assertNull(CsvValues.parse(null, t), t.name());
    }
    assertEquals("", CsvValues.parse("", ColumnType.STRING));
    assertArrayEquals(new byte[0], (byte[]) CsvValues.parse("", ColumnType.BYTES));
    assertNull(CsvValues.parse("", ColumnType.BIGINT));
    assertNull(CsvValues.parse("", ColumnType.BOOLEAN));
    assertNull(CsvValues.format(null, ColumnType.STRING));
  }

  @Test
  void integers() {
    assertEquals(-42L, CsvValues.parse("-42", ColumnType.BIGINT));
    assertEquals(42L, CsvValues.parse("+42", ColumnType.BIGINT));
    assertEquals(Long.MIN_VALUE, CsvValues.parse("-9223372036854775808", ColumnType.BIGINT));
    assertEquals(7, CsvValues.parse("007", ColumnType.INT));
    assertThrows(
        NumberFormatException.class,
        () -> CsvValues.parse("9223372036854775808", ColumnType.BIGINT));
    assertThrows(NumberFormatException.class, () -> CsvValues.parse("2147483648", ColumnType.INT));
    assertThrows(IllegalArgumentException.class, () -> CsvValues.parse(" 1", ColumnType.BIGINT));
    assertThrows(IllegalArgumentException.class, () -> CsvValues.parse("1.0", ColumnType.BIGINT));
    assertThrows(IllegalArgumentException.class, () -> CsvValues.parse("-", ColumnType.BIGINT));
    assertThrows(IllegalArgumentException.class, () -> CsvValues.parse("+", ColumnType.INT));
    assertThrows(IllegalArgumentException.class, () -> CsvValues.parse("1-", ColumnType.INT));
    // Arabic-Indic digits: Long.parseLong would accept them
    assertThrows(
        IllegalArgumentException.class, () -> CsvValues.parse("\u0661\u0662", ColumnType.BIGINT));
  }

  @Test
  void onePassNumberParsersAgreeWithTheJdk() {
    SplittableRandom r = new SplittableRandom(5);
    String alphabet = "0123456789.-+e/:"; // "/" and ":" border the digits
    for (int i = 0; i < 300_000; i++) {
      String t;
      switch (i % 3) {
        case 0 -> t = Long.toString(r.nextLong() >> r.nextInt(64));
        case 1 ->
            t =
                (r.nextBoolean() ? "-" : "")
                    + r.nextLong(1_000_000_000_000L)
                    + "."
                    + String.format("%0" + (1 + r.nextInt(6)) + "d", r.nextInt(1000));
        default -> {
          StringBuilder b = new StringBuilder();
          for (int len = 1 + r.nextInt(20); len > 0; len--) {
            b.append(alphabet.charAt(r.nextInt(alphabet.length())));
          }
          t = b.toString();
        }
      }
      Long jdkLong = null;
      if (t.matches("[+-]?[0-9]+")) {
        try {
          jdkLong = Long.parseLong(t);
        } catch (NumberFormatException e) {
          // out of range: ours must refuse too
        }
      }
      if (jdkLong != null) {
        assertEquals(jdkLong, CsvValues.parse(t, ColumnType.BIGINT), t);
      } else {
        String text = t;
        assertThrows(
            IllegalArgumentException.class, () -> CsvValues.parse(text, ColumnType.BIGINT), t);
      }
      if (CsvValues.isDecimal(t)) {
        double jdk = Double.parseDouble(t);
        if (Double.isFinite(jdk)) {
          assertEquals(
              Double.doubleToRawLongBits(jdk),
              Double.doubleToRawLongBits((Double) CsvValues.parse(t, ColumnType.DOUBLE)),
              t);
        }
      }
      double fast = fastDouble(t);
      if (fast == fast) {
        assertEquals(
            Double.doubleToRawLongBits(Double.parseDouble(t)), Double.doubleToRawLongBits(fast), t);
      }
      // the CSV source's path: the field's bytes inside a record's, as parse(String) of its text
      byte[] field = t.getBytes(StandardCharsets.UTF_8);
      byte[] record = new byte[field.length + 4];
      record[0] = record[1] = '7';
      record[record.length - 2] = record[record.length - 1] = '9';
      System.arraycopy(field, 0, record, 2, field.length);
      for (ColumnType type : ColumnType.values()) {
        Object viaString;
        try {
          viaString = CsvValues.parse(t, type);
        } catch (IllegalArgumentException e) {
          viaString = e.getClass();
        }
        Object viaBytes;
        try {
          viaBytes = CsvValues.parse(record, 2, 2 + field.length, type);
        } catch (IllegalArgumentException e) {
          viaBytes = e.getClass();
        }
        if (viaString instanceof byte[] bs) {
          assertArrayEquals(bs, (byte[]) viaBytes, t);
        } else {
          assertEquals(viaString, viaBytes, type + " of " + t);
        }
      }
    }
    assertEquals(0.1, fastDouble("0.1"));
    assertEquals(-0.0, fastDouble("-0.0"));
    assertTrue(Double.isNaN(fastDouble("1234567890.1234567"))); // 17 digits: slow path
    assertEquals(1234567890.1234567, CsvValues.parse("1234567890.1234567", ColumnType.DOUBLE));
  }

  private static double fastDouble(String t) {
    byte[] b = t.getBytes(StandardCharsets.UTF_8);
    return CsvValues.fastDouble(b, 0, b.length);
  }

  @Test
  void handWrittenNumberChecksAgreeWithTheirRegularExpressions() {
    Pattern integer = Pattern.compile("[+-]?[0-9]+");
    Pattern decimal = Pattern.compile("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?");
    String alphabet = "0123456789.eE+-x \u0661";
    SplittableRandom r = new SplittableRandom(3);
    for (int i = 0; i < 200_000; i++) {
      StringBuilder b = new StringBuilder();
      for (int len = r.nextInt(7); len > 0; len--) {
        b.append(alphabet.charAt(r.nextInt(alphabet.length())));
      }
      String t = b.toString();
      assertEquals(integer.matcher(t).matches(), CsvValues.isInteger(t), t);
      assertEquals(decimal.matcher(t).matches(), CsvValues.isDecimal(t), t);
    }
  }

  @Test
  void floatingPoint() {
    assertEquals(1.5, CsvValues.parse("1.5", ColumnType.DOUBLE));
    assertEquals(-0.002, CsvValues.parse("-2e-3", ColumnType.DOUBLE));
    assertEquals(0.5, CsvValues.parse(".5", ColumnType.DOUBLE));
    assertEquals(1.0E10, CsvValues.parse("1.0E10", ColumnType.DOUBLE));
    assertEquals(Double.NaN, CsvValues.parse("NaN", ColumnType.DOUBLE));
    assertEquals(Double.NEGATIVE_INFINITY, CsvValues.parse("-Infinity", ColumnType.DOUBLE));
    assertEquals(1.25f, CsvValues.parse("1.25", ColumnType.FLOAT));
    assertThrows(IllegalArgumentException.class, () -> CsvValues.parse("1e400", ColumnType.DOUBLE));
    assertThrows(IllegalArgumentException.class, () -> CsvValues.parse("1e39", ColumnType.FLOAT));
    assertThrows(IllegalArgumentException.class, () -> CsvValues.parse("1.5d", ColumnType.DOUBLE));
    assertThrows(IllegalArgumentException.class, () -> CsvValues.parse("0x1p3", ColumnType.DOUBLE));
    assertThrows(IllegalArgumentException.class, () -> CsvValues.parse(" 1.5", ColumnType.DOUBLE));
    assertThrows(IllegalArgumentException.class, () -> CsvValues.parse("nan", ColumnType.DOUBLE));
  }

  @Test
  void doublesRoundTripThroughTheirText() {
    double[] values = {
      0.1, -0.0, 1e300, 4.9e-324, 123456789.123, Double.NaN, Double.POSITIVE_INFINITY, 1.0 / 3
    };
    for (double d : values) {
      String text = CsvValues.format(d, ColumnType.DOUBLE);
      assertEquals(Double.toString(d), text);
      assertEquals(d, (Double) CsvValues.parse(text, ColumnType.DOUBLE));
    }
    assertEquals("1.0E10", CsvValues.format(1e10, ColumnType.DOUBLE));
    assertEquals("0.1", CsvValues.format(0.1f, ColumnType.FLOAT));
  }

  @Test
  void booleansAndBytes() {
    assertEquals(true, CsvValues.parse("TRUE", ColumnType.BOOLEAN));
    assertEquals(false, CsvValues.parse("False", ColumnType.BOOLEAN));
    assertThrows(IllegalArgumentException.class, () -> CsvValues.parse("yes", ColumnType.BOOLEAN));
    assertEquals("true", CsvValues.format(true, ColumnType.BOOLEAN));
    byte[] bytes = {0, 1, 2, (byte) 0xFF, (byte) 0xFE};
    assertEquals("AAEC//4=", CsvValues.format(bytes, ColumnType.BYTES));
    assertArrayEquals(bytes, (byte[]) CsvValues.parse("AAEC//4=", ColumnType.BYTES));
    assertThrows(IllegalArgumentException.class, () -> CsvValues.parse("AAE*", ColumnType.BYTES));
  }

  @Test
  void formatRejectsWrongJavaClass() {
    assertThrows(IllegalArgumentException.class, () -> CsvValues.format(1, ColumnType.BIGINT));
    assertThrows(IllegalArgumentException.class, () -> CsvValues.format("x", ColumnType.BYTES));
  }

  @Test
  void inferencePredicates() {
    assertTrue(CsvValues.inferableLong("-5"));
    assertTrue(CsvValues.inferableLong("0"));
    assertTrue(CsvValues.inferableLong("9223372036854775807"));
    assertFalse(CsvValues.inferableLong("9223372036854775808"));
    assertFalse(CsvValues.inferableLong("01234"));
    assertTrue(CsvValues.inferableDouble("-1.5E10"));
    assertTrue(CsvValues.inferableDouble("0.25"));
    assertTrue(CsvValues.inferableDouble("-0.0"));
    assertFalse(CsvValues.inferableDouble("9223372036854775808"));
    assertFalse(CsvValues.inferableDouble("00.5"));
    assertFalse(CsvValues.inferableDouble("1e999"));
    assertFalse(CsvValues.inferableDouble("NaN"));
    assertTrue(CsvValues.inferableBoolean("tRuE"));
    assertFalse(CsvValues.inferableBoolean("1"));
  }
}
