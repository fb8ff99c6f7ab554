package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Known-answer cases for the RFC 4180 tokenizer. */
class CsvRecordReaderTest {

  private static List<CsvRecord> read(
      byte[] bytes, CsvOptions options, boolean skipBom, boolean oneByteReads) throws IOException {
    InputStream in = new ByteArrayInputStream(bytes);
    if (oneByteReads) {
      in = new OneByteAtATime(in);
    }
    List<CsvRecord> out = new ArrayList<>();
    try (CsvRecordReader r = new CsvRecordReader(in, options, skipBom)) {
      CsvRecord rec;
      while ((rec = r.next()) != null) {
        out.add(rec);
      }
    }
    // the same bytes fed one at a time must give the same records (buffer boundaries)
    if (!oneByteReads) {
      List<CsvRecord> slow = read(bytes, options, skipBom, true);
      assertEquals(out.toString(), slow.toString(), "one-byte reads differ");
    }
    return out;
  }

  private static List<CsvRecord> read(String text) throws IOException {
    return read(text.getBytes(StandardCharsets.UTF_8), CsvOptions.DEFAULT, true, false);
  }

  private static void assertGood(CsvRecord r, long line, String... fields) {
    assertNull(r.error(), () -> "unexpected error in " + r);
    assertEquals(line, r.line(), () -> "line of " + r);
    assertArrayEquals(fields, r.fields(), () -> "fields of " + r);
  }

  private static void assertBad(CsvRecord r, long line, String errorPrefix, String raw) {
    assertTrue(r.malformed(), () -> "expected malformed: " + r);
    assertNull(r.fields());
    assertEquals(line, r.line(), () -> "line of " + r);
    assertTrue(r.error().startsWith(errorPrefix), () -> "error of " + r);
    assertEquals(raw, r.raw());
  }

  @Test
  void plainRecordsAndRaw() throws IOException {
    List<CsvRecord> r = read("a,b\n1,2\n");
    assertEquals(2, r.size());
    assertGood(r.get(0), 1, "a", "b");
    assertGood(r.get(1), 2, "1", "2");
    assertEquals("1,2", r.get(1).raw());
  }

  @Test
  void lastRecordWithoutTerminator() throws IOException {
    List<CsvRecord> r = read("a,b\nc,d");
    assertEquals(2, r.size());
    assertGood(r.get(1), 2, "c", "d");
  }

  @Test
  void quotedFieldsWithDelimiterAndDoubledQuotes() throws IOException {
    List<CsvRecord> r = read("\"x,y\",z\n\"he said \"\"hi\"\"\",\"\"\"\"\n");
    assertGood(r.get(0), 1, "x,y", "z");
    assertGood(r.get(1), 2, "he said \"hi\"", "\"");
  }

  @Test
  void newlinesInsideQuotesKeepPhysicalLineNumbers() throws IOException {
    List<CsvRecord> r = read("\"l1\nl2\",x\r\n\"a\r\nb\",y\r\nlast,z\n");
    assertEquals(3, r.size());
    assertGood(r.get(0), 1, "l1\nl2", "x");
    assertGood(r.get(1), 3, "a\r\nb", "y");
    assertGood(r.get(2), 5, "last", "z");
    assertEquals("\"a\r\nb\",y", r.get(1).raw());
  }

  @Test
  void crlfTerminators() throws IOException {
    List<CsvRecord> r = read("a,b\r\n\"c\",d\r\n");
    assertEquals(2, r.size());
    assertGood(r.get(0), 1, "a", "b");
    assertGood(r.get(1), 2, "c", "d");
    assertEquals("a,b", r.get(0).raw());
    assertEquals("\"c\",d", r.get(1).raw());
  }

  @Test
  void emptyFieldsAreNullButQuotedEmptyIsEmptyString() throws IOException {
    List<CsvRecord> r = read(",a,,\n\"\",x\n");
    assertGood(r.get(0), 1, null, "a", null, null);
    assertGood(r.get(1), 2, "", "x");
  }

  @Test
  void trailingDelimiterGivesTrailingNull() throws IOException {
    List<CsvRecord> r = read("a,b,\n");
    assertGood(r.get(0), 1, "a", "b", null);
  }

  @Test
  void emptyLineIsOneNullField() throws IOException {
    List<CsvRecord> r = read("a\n\nb\n");
    assertEquals(3, r.size());
    assertGood(r.get(0), 1, "a");
    assertGood(r.get(1), 2, (String) null);
    assertGood(r.get(2), 3, "b");
  }

  @Test
  void emptyInputHasNoRecords() throws IOException {
    assertEquals(List.of(), read(""));
  }

  @Test
  void unterminatedQuoteRunsToEndOfInput() throws IOException {
    List<CsvRecord> r = read("a,b\n\"open,x\nmore\n");
    assertEquals(2, r.size());
    assertGood(r.get(0), 1, "a", "b");
    assertBad(r.get(1), 2, "unterminated quoted field 1", "\"open,x\nmore\n");
  }

  @Test
  void quoteInsideUnquotedFieldSkipsTheLine() throws IOException {
    List<CsvRecord> r = read("ab\"c,d\nx,y\n");
    assertBad(r.get(0), 1, "quote inside unquoted field 1", "ab\"c,d");
    assertGood(r.get(1), 2, "x", "y");
  }

  @Test
  void characterAfterClosingQuoteSkipsTheLine() throws IOException {
    List<CsvRecord> r = read("1,\"a\"b,c\r\nx\n");
    assertBad(r.get(0), 1, "unexpected character after the closing quote of field 2", "1,\"a\"b,c");
    assertGood(r.get(1), 2, "x");
  }

  @Test
  void bareCarriageReturnOutsideQuotesIsMalformed() throws IOException {
    List<CsvRecord> r = read("a\rb,c\nx\n");
    assertBad(r.get(0), 1, "a CR outside quotes must be followed by LF", "a\rb,c");
    assertGood(r.get(1), 2, "x");
  }

  @Test
  void invalidUtf8MakesTheRecordMalformed() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes("ok,".getBytes(StandardCharsets.UTF_8));
    b.write(0xFF);
    b.write(0xFE);
    b.writeBytes("\nx,\u00e9\u20ac\n".getBytes(StandardCharsets.UTF_8));
    // an overlong encoding of '/' and a truncated 3-byte sequence
    b.writeBytes(new byte[] {(byte) 0xC0, (byte) 0xAF, ',', (byte) 0xE2, (byte) 0x82, '\n'});
    List<CsvRecord> r = read(b.toByteArray(), CsvOptions.DEFAULT, true, false);
    assertEquals(3, r.size());
    assertBad(r.get(0), 1, "invalid UTF-8 in field 2", "ok,\uFFFD\uFFFD");
    assertGood(r.get(1), 2, "x", "\u00e9\u20ac");
    assertTrue(r.get(2).malformed());
    assertEquals("invalid UTF-8 in field 1", r.get(2).error());
    assertEquals(3, r.get(2).line());
  }

  @Test
  void bomIsSkippedOnlyAtTheStartAndOnlyWhenAsked() throws IOException {
    byte[] bytes = "\uFEFFname,age\n\uFEFFx,1\n".getBytes(StandardCharsets.UTF_8);
    List<CsvRecord> stripped = read(bytes, CsvOptions.DEFAULT, true, false);
    assertGood(stripped.get(0), 1, "name", "age");
    assertEquals("name,age", stripped.get(0).raw());
    assertGood(stripped.get(1), 2, "\uFEFFx", "1");
    List<CsvRecord> kept = read(bytes, CsvOptions.DEFAULT, false, false);
    assertGood(kept.get(0), 1, "\uFEFFname", "age");
    // a lone BOM is no record at all
    assertEquals(
        List.of(),
        read(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, CsvOptions.DEFAULT, true, false));
  }

  @Test
  void rawIsCutToOneKibOnACharacterBoundary() throws IOException {
    String value = "\u00e9".repeat(2000); // 4000 bytes
    List<CsvRecord> r = read("1," + value + "\n2,x\n");
    assertGood(r.get(0), 1, "1", value);
    String raw = r.get(0).raw();
    assertTrue(raw.getBytes(StandardCharsets.UTF_8).length <= CsvRecordReader.RAW_LIMIT);
    assertEquals("1," + "\u00e9".repeat(511), raw); // 2 + 1022 bytes, the next é would not fit
    assertGood(r.get(1), 2, "2", "x");
  }

  @Test
  void overlongRecordIsMalformedAndReadingGoesOn() throws IOException {
    CsvOptions small = new CsvOptions(',', '"', 1024);
    String big = "y".repeat(5000);
    List<CsvRecord> r =
        read(("a," + big + "\nb,c\n").getBytes(StandardCharsets.UTF_8), small, true, false);
    assertEquals(2, r.size());
    assertTrue(r.get(0).malformed());
    assertEquals("record longer than 1024 bytes", r.get(0).error());
    assertGood(r.get(1), 2, "b", "c");
  }

  @Test
  void otherDelimiterAndQuote() throws IOException {
    List<CsvRecord> r =
        read(
            "a;'b;c';'it''s'\n".getBytes(StandardCharsets.UTF_8),
            CsvOptions.of(';', '\''),
            true,
            false);
    assertGood(r.get(0), 1, "a", "b;c", "it's");
  }

  @Test
  void quotedFieldAtEndOfInput() throws IOException {
    List<CsvRecord> r = read("\"a\",\"b\"");
    assertGood(r.get(0), 1, "a", "b");
  }

  /** Returns at most one byte per read call. */
  private static final class OneByteAtATime extends FilterInputStream {
    OneByteAtATime(InputStream in) {
      super(in);
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return super.read(b, off, Math.min(len, 1));
    }
  }

  private static List<String> all(byte[] bytes, CsvOptions options, boolean lines)
      throws IOException {
    List<String> out = new ArrayList<>();
    try (CsvRecordReader r =
        new CsvRecordReader(new ByteArrayInputStream(bytes), options, true, lines)) {
      CsvRecord rec;
      while ((rec = r.next()) != null) {
        out.add(rec.toString());
      }
    }
    return out;
  }

  /**
   * The one-pass path for plain lines reads every input exactly as the state machine alone does:
   * random texts of quotes, CR, LF, delimiters, multi-byte and invalid UTF-8, longer than the 64
   * KiB buffer (lines across its end), lines longer than 1 KiB and the smallest record limit.
   */
  @Test
  void theOnePassPathReadsLikeTheStateMachine() throws IOException {
    String[] pieces = {
      "a", "bc", "7", "é", "\uD83D\uDE00", ",", ",", "\"", "\n", "\n", "\r\n", "\r", " ", ""
    };
    java.util.SplittableRandom r = new java.util.SplittableRandom(11);
    for (int trial = 0; trial < 40; trial++) {
      ByteArrayOutputStream text = new ByteArrayOutputStream();
      int size = trial % 4 == 0 ? 150_000 : 2_000;
      while (text.size() < size) {
        if (r.nextInt(400) == 0) {
          text.write(0xFF); // never valid in UTF-8
        } else {
          String piece = pieces[r.nextInt(pieces.length)];
          if (trial % 4 == 1 && piece.contains("\n") && r.nextInt(200) != 0) {
            continue; // long lines: past the raw text's 1 KiB and the record limit
          }
          text.writeBytes(piece.getBytes(StandardCharsets.UTF_8));
        }
      }
      byte[] bytes = text.toByteArray();
      for (CsvOptions options : List.of(CsvOptions.DEFAULT, new CsvOptions(',', '"', 1024))) {
        List<String> lines = all(bytes, options, true);
        assertEquals(all(bytes, options, false), lines, "trial " + trial + ", " + options);
        assertTrue(lines.size() > (trial % 4 == 1 ? 0 : 50), "trial " + trial);
      }
    }
  }
}
