package io.psiflink.connectors;

import io.psiflink.connectors.row.Utf8;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Splits a UTF-8 byte stream into RFC 4180 records. Used by the Flink source, by schema discovery
 * and by {@link TableReader}.
 *
 * <p>Rules:
 *
 * <ul>
 *   <li>A record ends at LF or CRLF outside quotes, or at the end of the stream; a terminator right
 *       before the end of the stream does not start another record. An empty line is a record with
 *       one NULL field.
 *   <li>A field starting with the quote character is quoted: it ends at a quote followed by the
 *       delimiter, a terminator or the end of the stream; a doubled quote inside stands for one
 *       quote; delimiters, CR and LF inside are data.
 *   <li>An unquoted empty field is {@code null} (SQL NULL); a quoted empty field ({@code ""}) is
 *       the empty string.
 *   <li>Malformed records are returned, not thrown, with {@link CsvRecord#error()} set: a quote
 *       inside an unquoted field, a character after a closing quote, a CR not followed by LF
 *       outside quotes (these three skip to the end of the physical line), an unterminated quote
 *       (the record runs to the end of the stream), invalid UTF-8, a record longer than {@link
 *       CsvOptions#maxRecordBytes()}.
 *   <li>A UTF-8 byte order mark at the very start of the stream is skipped when asked (the header
 *       line of a file written by a spreadsheet often carries one).
 * </ul>
 *
 * <p>Line numbers count LF bytes, so a record's line is the physical line it starts on, even when
 * earlier records hold newlines inside quotes.
 */
public final class CsvRecordReader implements Closeable {
  /** How many bytes of a record's raw text are kept for error reports. */
  public static final int RAW_LIMIT = 1024;

  private static final int FIELD_START = 0;
  private static final int UNQUOTED = 1;
  private static final int QUOTED = 2;
  private static final int QUOTE_IN_QUOTED = 3;

  private final InputStream in;
  private final int delimiter;
  private final int quote;
  private final int maxRecordBytes;
  private final boolean lines;

  private final byte[] buf = new byte[64 * 1024];
  private int pos;
  private int limit;
  private boolean eof;
  private boolean bomChecked;
  private long line = 1;

  // state of the record being read: its fields' bytes back to back in data, field i at
  // [starts[i], ends[i]) (CsvFields' entries), the current field from fieldStart on
  private int[] starts = new int[16];
  private int[] ends = new int[16];
  private int fields;
  private byte[] data = new byte[256];
  private int dataLen;
  private int fieldStart;
  private boolean fieldQuoted;
  // one byte beyond the limit, to see whether the cut falls inside a character
  private final byte[] raw = new byte[RAW_LIMIT + 1];
  private int rawLen;
  private long recordBytes;
  private String error;

  /**
   * @param in the bytes; not buffered by the caller necessarily, this reader buffers itself
   * @param skipBom whether a UTF-8 BOM at the start of {@code in} is dropped
   */
  public CsvRecordReader(InputStream in, CsvOptions options, boolean skipBom) {
    this(in, options, skipBom, true);
  }

  /**
   * @param lines whether the common record takes the one-pass path ({@link #line}); false only in
   *     tests, which check that both paths read every input alike
   */
  CsvRecordReader(InputStream in, CsvOptions options, boolean skipBom, boolean lines) {
    this.lines = lines;
    this.in = in;
    this.delimiter = options.delimiter();
    this.quote = options.quote();
    this.maxRecordBytes = options.maxRecordBytes();
    this.bomChecked = !skipBom;
  }

  /** The next record, or null at the end of the stream. */
  public CsvRecord next() throws IOException {
    if (!bomChecked) {
      skipBom();
    }
    if (peek() < 0) {
      return null;
    }
    long startLine = line;
    CsvRecord fast = lines ? line(startLine) : null;
    if (fast != null) {
      return fast;
    }
    fields = 0;
    dataLen = 0;
    fieldStart = 0;
    fieldQuoted = false;
    rawLen = 0;
    recordBytes = 0;
    error = null;

    int state = FIELD_START;
    while (true) {
      int b = consume();
      switch (state) {
        case FIELD_START, UNQUOTED -> {
          if (b == delimiter) {
            endField();
            state = FIELD_START;
          } else if (b == '\n' || b < 0) {
            endField();
            return finish(startLine, b < 0 ? 0 : 1);
          } else if (b == '\r') {
            if (peek() != '\n') {
              return skipLine(startLine, "a CR outside quotes must be followed by LF");
            }
            consume();
            endField();
            return finish(startLine, 2);
          } else if (b == quote) {
            if (state == UNQUOTED) {
              return skipLine(startLine, "quote inside unquoted field " + (fields + 1));
            }
            fieldQuoted = true;
            state = QUOTED;
          } else {
            append(b);
            appendPlainRun();
            state = UNQUOTED;
          }
        }
        case QUOTED -> {
          if (b == quote) {
            state = QUOTE_IN_QUOTED;
          } else if (b < 0) {
            fail("unterminated quoted field " + (fields + 1));
            return finish(startLine, 0);
          } else {
            append(b);
          }
        }
        case QUOTE_IN_QUOTED -> {
          if (b == quote) {
            append(b);
            state = QUOTED;
          } else if (b == delimiter) {
            endField();
            state = FIELD_START;
          } else if (b == '\n' || b < 0) {
            endField();
            return finish(startLine, b < 0 ? 0 : 1);
          } else if (b == '\r' && peek() == '\n') {
            consume();
            endField();
            return finish(startLine, 2);
          } else {
            return skipLine(
                startLine, "unexpected character after the closing quote of field " + (fields + 1));
          }
        }
        default -> throw new IllegalStateException("state " + state);
      }
    }
  }

  @Override
  public void close() throws IOException {
    in.close();
  }

  private void fail(String reason) {
    if (error == null) {
      error = reason;
    }
  }

  /** Marks the record malformed and consumes the rest of its physical line. */
  private CsvRecord skipLine(long startLine, String reason) throws IOException {
    fail(reason);
    int prev = -1;
    int b;
    while ((b = consume()) >= 0 && b != '\n') {
      prev = b;
    }
    return finish(startLine, b < 0 ? 0 : prev == '\r' ? 2 : 1);
  }

  private void append(int b) {
    if (recordBytes > maxRecordBytes) {
      fail("record longer than " + maxRecordBytes + " bytes");
      return;
    }
    if (dataLen == data.length) {
      data = Arrays.copyOf(data, Math.min(Math.max(16, data.length * 2), maxRecordBytes + 1));
    }
    data[dataLen++] = (byte) b;
  }

  /**
   * Takes the run of plain bytes (no delimiter, quote, CR or LF) at the read position in one go,
   * exactly as consume-and-append byte by byte would: the common unquoted field costs a scan and
   * two array copies instead of a state machine step per byte. Leaves a run that would cross the
   * record limit to the byte-wise path, which reports it.
   */
  private void appendPlainRun() {
    int i = pos;
    while (i < limit) {
      int b = buf[i] & 0xFF;
      if (b == delimiter || b == quote || b == '\n' || b == '\r') {
        break;
      }
      i++;
    }
    int n = i - pos;
    if (n == 0 || recordBytes + n > maxRecordBytes) {
      return;
    }
    int r = Math.min(n, raw.length - rawLen);
    System.arraycopy(buf, pos, raw, rawLen, r);
    rawLen += r;
    recordBytes += n;
    if (dataLen + n > data.length) {
      data =
          Arrays.copyOf(data, Math.min(Math.max(dataLen + n, data.length * 2), maxRecordBytes + 1));
    }
    System.arraycopy(buf, pos, data, dataLen, n);
    dataLen += n;
    pos = i;
  }

  private void endField() {
    if (error == null) {
      int len = dataLen - fieldStart;
      if (!Utf8.isValid(data, fieldStart, len)) {
        fail("invalid UTF-8 in field " + (fields + 1));
      } else {
        addField(fieldStart, dataLen, len == 0 && !fieldQuoted);
      }
    }
    fieldStart = dataLen;
    fieldQuoted = false;
  }

  private CsvRecord finish(long startLine, int terminatorBytes) {
    long textBytes = recordBytes - terminatorBytes;
    int n = (int) Math.min(Math.min(rawLen, textBytes), RAW_LIMIT);
    if (n < textBytes) {
      // cut on a character boundary: back off over UTF-8 continuation bytes
      while (n > 0 && (raw[n] & 0xC0) == 0x80) {
        n--;
      }
    }
    boolean ok = error == null;
    return new CsvRecord(
        startLine,
        CsvFields.pack(data, ok ? dataLen : 0, starts, ends, ok ? fields : 0, raw, n),
        error);
  }

  private void addField(int start, int end, boolean isNull) {
    if (fields == ends.length) {
      starts = Arrays.copyOf(starts, fields * 2);
      ends = Arrays.copyOf(ends, fields * 2);
    }
    starts[fields] = start;
    ends[fields++] = isNull ? CsvFields.nullAt(end) : end;
  }

  /**
   * The common record in one pass: a whole line in the buffer, without quote or lone CR, valid
   * UTF-8, within the record limit, packed as the line itself ({@link CsvFields#packLine}). Null
   * (nothing consumed) for every other record: the state machine reads it, with the same result.
   */
  private CsvRecord line(long startLine) {
    final byte[] b = buf;
    final int from = pos;
    final int lim = limit;
    int fieldFrom = from;
    fields = 0;
    boolean ascii = true;
    int end = -1; // where the line's terminator starts
    int i = from;
    // eight bytes at a time: the bytes that matter are rare (a delimiter per field, one LF)
    final long delimiters = (delimiter & 0xFF) * ONES;
    final long quotes = (quote & 0xFF) * ONES;
    words:
    for (; i + 8 <= lim; i += 8) {
      long x = (long) WORD.get(b, i);
      ascii &= (x & HIGHS) == 0; // bytes past the line's end may clear it: then only checked
      long m = zeros(x ^ LFS) | zeros(x ^ CRS) | zeros(x ^ quotes) | zeros(x ^ delimiters);
      for (; m != 0; m &= m - 1) {
        int at = i + (Long.numberOfTrailingZeros(m) >>> 3);
        int c = special(b, at, lim);
        if (c == TERMINATOR) {
          end = at;
          break words;
        }
        if (c != FIELD_END) {
          return null;
        }
        addField(fieldFrom - from, at - from, at == fieldFrom);
        fieldFrom = at + 1;
      }
    }
    if (end < 0) {
      for (; ; i++) {
        if (i == lim) {
          return null; // the line may go on beyond the buffer, or end the stream without LF
        }
        ascii &= b[i] >= 0;
        int c = special(b, i, lim);
        if (c == TERMINATOR) {
          end = i;
          break;
        }
        if (c == FIELD_END) {
          addField(fieldFrom - from, i - from, i == fieldFrom);
          fieldFrom = i + 1;
        } else if (c != PLAIN) {
          return null;
        }
      }
    }
    int next = b[end] == '\n' ? end + 1 : end + 2; // LF or CRLF
    int len = end - from;
    if (next - from > maxRecordBytes || !(ascii || Utf8.isValid(b, from, len))) {
      return null;
    }
    addField(fieldFrom - from, len, end == fieldFrom);
    int rawLen = Math.min(len, RAW_LIMIT);
    if (rawLen < len) {
      // cut on a character boundary: back off over UTF-8 continuation bytes
      while (rawLen > 0 && (b[from + rawLen] & 0xC0) == 0x80) {
        rawLen--;
      }
    }
    pos = next;
    line++;
    return new CsvRecord(
        startLine, CsvFields.packLine(b, from, len, starts, ends, fields, rawLen), null);
  }

  private static final int PLAIN = 0;
  private static final int FIELD_END = 1;
  private static final int TERMINATOR = 2;
  private static final int NOT_PLAIN = 3;

  /**
   * What byte {@code at} is to a line without quotes: a field's end, the line's end (LF, or CR
   * followed by LF), nothing special, or the end of the one-pass path (a quote, a lone CR, a CR at
   * the buffer's end).
   */
  private int special(byte[] b, int at, int lim) {
    int c = b[at];
    if (c == '\n') {
      return TERMINATOR;
    }
    if (c == '\r') {
      return at + 1 < lim && b[at + 1] == '\n' ? TERMINATOR : NOT_PLAIN;
    }
    if (c == (byte) quote) {
      return NOT_PLAIN;
    }
    return c == (byte) delimiter ? FIELD_END : PLAIN;
  }

  private static final VarHandle WORD =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101_0101_0101_0101L;
  private static final long HIGHS = 0x8080_8080_8080_8080L;
  private static final long LOWS = 0x7F7F_7F7F_7F7F_7F7FL;
  private static final long LFS = '\n' * ONES;
  private static final long CRS = '\r' * ONES;

  /** The high bit of each byte of {@code x} that is zero, and no other bit (no borrows). */
  private static long zeros(long x) {
    return ~(((x & LOWS) + LOWS) | x | LOWS);
  }

  private int consume() throws IOException {
    if (pos == limit && !refill()) {
      return -1;
    }
    int b = buf[pos++] & 0xFF;
    if (rawLen < raw.length) {
      raw[rawLen++] = (byte) b;
    }
    recordBytes++;
    if (b == '\n') {
      line++;
    }
    return b;
  }

  private int peek() throws IOException {
    if (pos == limit && !refill()) {
      return -1;
    }
    return buf[pos] & 0xFF;
  }

  private boolean refill() throws IOException {
    if (eof) {
      return false;
    }
    int n = in.read(buf, 0, buf.length);
    while (n == 0) {
      n = in.read(buf, 0, buf.length);
    }
    if (n < 0) {
      eof = true;
      pos = limit = 0;
      return false;
    }
    pos = 0;
    limit = n;
    return true;
  }

  private void skipBom() throws IOException {
    bomChecked = true;
    // read until three bytes are buffered or the stream ends
    pos = limit = 0;
    while (limit < 3 && !eof) {
      int n = in.read(buf, limit, buf.length - limit);
      if (n < 0) {
        eof = true;
      } else {
        limit += n;
      }
    }
    if (limit >= 3
        && (buf[0] & 0xFF) == 0xEF
        && (buf[1] & 0xFF) == 0xBB
        && (buf[2] & 0xFF) == 0xBF) {
      pos = 3;
    }
  }
}
