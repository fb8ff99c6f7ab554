package io.psiflink.tools.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An independent RFC 4180 reader for the tests (deliberately not sharing code with the generator):
 * unquoted empty field → null, quoted field → its text (so {@code ""} → the empty string), CRLF or
 * LF line ends, quoted fields may hold delimiters, doubled quotes and line breaks. Throws on
 * malformed input (a quote inside an unquoted field, text after a closing quote, an open quote at
 * the end).
 */
final class SimpleCsv {
  private SimpleCsv() {}

  static List<List<String>> parse(String text) {
    List<List<String>> records = new ArrayList<>();
    List<String> rec = new ArrayList<>();
    StringBuilder f = new StringBuilder();
    int i = 0;
    int n = text.length();
    if (n == 0) {
      return records;
    }
    while (true) {
      // start of a field
      boolean quoted = false;
      f.setLength(0);
      if (i < n && text.charAt(i) == '"') {
        quoted = true;
        i++;
        while (true) {
          if (i >= n) {
            throw new IllegalArgumentException(
                "unterminated quoted field at record " + records.size());
          }
          char c = text.charAt(i++);
          if (c == '"') {
            if (i < n && text.charAt(i) == '"') {
              f.append('"');
              i++;
            } else {
              break;
            }
          } else {
            f.append(c);
          }
        }
      } else {
        while (i < n) {
          char c = text.charAt(i);
          if (c == ',' || c == '\n' || c == '\r') {
            break;
          }
          if (c == '"') {
            throw new IllegalArgumentException(
                "quote in unquoted field at record " + records.size());
          }
          f.append(c);
          i++;
        }
      }
      rec.add(quoted || f.length() > 0 ? f.toString() : null);
      if (i >= n) {
        records.add(rec);
        return records;
      }
      char c = text.charAt(i);
      if (c == ',') {
        i++;
        continue;
      }
      if (c == '\r' && i + 1 < n && text.charAt(i + 1) == '\n') {
        i++;
      }
      if (text.charAt(i) != '\n') {
        throw new IllegalArgumentException("junk after field at record " + records.size());
      }
      i++;
      records.add(rec);
      rec = new ArrayList<>();
      if (i >= n) {
        return records;
      }
    }
  }

  static List<List<String>> read(Path p) throws IOException {
    return parse(Files.readString(p, StandardCharsets.UTF_8));
  }
}
