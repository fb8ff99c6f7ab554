package io.psiflink.tools.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Copies a CSV file with a header into up to {@code parts} part files of about equal size, cutting
 * only at record boundaries (an LF outside double quotes), so that every reader subtask gets a
 * share of the rows. Flink's csv format can neither skip a header nor split one file between
 * readers: the baseline join reads header-less parts; psi-flink reads a directory of parts with a
 * header each.
 */
final class CsvParts {
  private CsvParts() {}

  /** The result: the header's column names and the part files written. */
  record Split(List<String> header, List<Path> parts, long dataBytes) {}

  static Split split(Path csv, Path outDir, String prefix, int parts) throws IOException {
    return split(csv, outDir, prefix, parts, false);
  }

  /**
   * As {@link #split(Path, Path, String, int)}; with {@code withHeader} every part starts with it.
   */
  static Split split(Path csv, Path outDir, String prefix, int parts, boolean withHeader)
      throws IOException {
    if (parts < 1) {
      throw new IllegalArgumentException("parts < 1");
    }
    Files.createDirectories(outDir);
    long size = Files.size(csv);
    List<Path> written = new ArrayList<>();
    byte[] buf = new byte[1 << 20];
    StringBuilderBytes header = new StringBuilderBytes();
    boolean inHeader = true;
    boolean inQuotes = false;
    long offset = 0; // file offset of buf[0]
    long dataStart = -1;
    long nextCut = Long.MAX_VALUE;
    OutputStream out = null;
    byte[] headerLine = null; // written at the start of each part when withHeader
    try (InputStream in = Files.newInputStream(csv)) {
      int n;
      while ((n = in.readNBytes(buf, 0, buf.length)) > 0) {
        int segStart = 0;
        for (int i = 0; i < n; i++) {
          byte c = buf[i];
          if (c == '"') {
            inQuotes = !inQuotes;
          } else if (c == '\n' && !inQuotes) {
            long pos = offset + i;
            if (inHeader) {
              header.append(buf, segStart, i - segStart);
              inHeader = false;
              if (withHeader) {
                headerLine = (header.toString() + "\n").getBytes(StandardCharsets.UTF_8);
              }
              segStart = i + 1;
              dataStart = pos + 1;
              nextCut = dataStart + (size - dataStart) / parts;
            } else if (pos + 1 >= nextCut && written.size() < parts) {
              if (out == null) {
                out = open(outDir, prefix, written, headerLine);
              }
              out.write(buf, segStart, i + 1 - segStart);
              out.close();
              out = null;
              segStart = i + 1;
              nextCut = dataStart + (size - dataStart) * (written.size() + 1) / parts;
            }
          }
        }
        if (segStart < n) {
          if (inHeader) {
            header.append(buf, segStart, n - segStart);
          } else {
            if (out == null) {
              out = open(outDir, prefix, written, headerLine);
            }
            out.write(buf, segStart, n - segStart);
          }
        }
        offset += n;
      }
    } finally {
      if (out != null) {
        out.close();
      }
    }
    if (written.isEmpty()) {
      open(outDir, prefix, written, headerLine).close(); // no data rows: one empty part
    }
    String h = header.toString();
    if (h.endsWith("\r")) {
      h = h.substring(0, h.length() - 1);
    }
    return new Split(parseHeader(h), written, dataStart < 0 ? 0 : size - dataStart);
  }

  private static OutputStream open(Path dir, String prefix, List<Path> written, byte[] headerLine)
      throws IOException {
    Path p = dir.resolve(String.format("%s-%05d.csv", prefix, written.size()));
    written.add(p);
    OutputStream out = Files.newOutputStream(p);
    if (headerLine != null) {
      out.write(headerLine);
    }
    return out;
  }

  /** Column names of a header record (quoted names allowed). */
  static List<String> parseHeader(String line) {
    List<String> names = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"') {
          if (i + 1 < line.length() && line.charAt(i + 1) == '"') {
            cur.append('"');
            i++;
          } else {
            quoted = false;
          }
        } else {
          cur.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        names.add(cur.toString());
        cur.setLength(0);
      } else {
        cur.append(c);
      }
    }
    names.add(cur.toString());
    return names;
  }

  private static final class StringBuilderBytes {
    private byte[] b = new byte[256];
    private int n;

    void append(byte[] src, int off, int len) {
      if (n + len > b.length) {
        b = java.util.Arrays.copyOf(b, Math.max(b.length * 2, n + len));
      }
      System.arraycopy(src, off, b, n, len);
      n += len;
    }

    @Override
    public String toString() {
      return new String(b, 0, n, StandardCharsets.UTF_8);
    }
  }
}
