package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The one quoting rule, against the reader (CsvRecordReader, written separately to RFC 4180): a
 * record of quoted fields reads back as exactly its fields, for the outputs' and the benchmark
 * tables' dialects and for random text over the characters that matter.
 */
class CsvQuotingTest {
  private static String[] readBack(String[] fields, char delimiter, char quote) throws Exception {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < fields.length; i++) {
      sb.append(i == 0 ? "" : String.valueOf(delimiter))
          .append(CsvQuoting.field(fields[i], delimiter, quote));
    }
    sb.append('\n');
    try (CsvRecordReader r =
        new CsvRecordReader(
            new ByteArrayInputStream(sb.toString().getBytes(StandardCharsets.UTF_8)),
            CsvOptions.of(delimiter, quote),
            false)) {
      CsvRecord rec = r.next();
      assertFalse(rec.malformed(), rec + " from " + sb);
      assertNull(r.next());
      return rec.fields();
    }
  }

  @Test
  void trickyFieldsReadBackExactly() throws Exception {
    String[] tricky = {
      "plain",
      "a,b",
      "say \"hi\"",
      "\"",
      "\"\"",
      "line\nbreak",
      "cr\rlf\r\n",
      " spaced ",
      "\ttab",
      "Müller",
      "例え",
      ",",
      "x\"y,z",
      "",
      "\uFEFFbom",
      "a;b",
      "'q'"
    };
    assertArrayEquals(tricky, readBack(tricky, ',', '"'));
    assertArrayEquals(tricky, readBack(tricky, ';', '\''));
  }

  @Test
  void randomFieldsReadBackExactly() throws Exception {
    Random random = new Random(17);
    String alphabet = "ab ,;\"'\r\n\t\uFEFFé";
    for (int n = 0; n < 2000; n++) {
      String[] fields = new String[1 + random.nextInt(4)];
      for (int i = 0; i < fields.length; i++) {
        StringBuilder f = new StringBuilder();
        for (int k = random.nextInt(6); k > 0; k--) {
          f.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        fields[i] = f.toString();
      }
      assertArrayEquals(fields, readBack(fields, ',', '"'), String.join("|", fields));
    }
  }

  @Test
  void plainFieldsAreNotQuoted() {
    assertEquals("abc", CsvQuoting.field("abc", ',', '"'));
    assertEquals("a b", CsvQuoting.field("a b", ',', '"'));
    assertEquals("\"\"", CsvQuoting.field("", ',', '"'));
    assertEquals("\"a\"\"b\"", CsvQuoting.field("a\"b", ',', '"'));
    assertTrue(CsvQuoting.needsQuotes(" a", ',', '"'));
  }
}
