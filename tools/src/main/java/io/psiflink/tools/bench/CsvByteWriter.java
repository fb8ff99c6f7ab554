package io.psiflink.tools.bench;

import java.io.IOException;
import java.io.OutputStream;

/** A minimal buffered writer of CSV records as bytes (no per-field allocation). Not thread-safe. */
final class CsvByteWriter implements AutoCloseable {
  private final OutputStream out;
  private final byte[] buf;
  private int pos;
  private boolean firstField = true;
  private long bytesWritten;

  CsvByteWriter(OutputStream out, int bufferSize) {
    this.out = out;
    this.buf = new byte[bufferSize];
  }

  private void ensure(int n) throws IOException {
    if (pos + n > buf.length) {
      flushBuffer();
      if (n > buf.length) {
        throw new IOException("field larger than the buffer");
      }
    }
  }

  private void flushBuffer() throws IOException {
    out.write(buf, 0, pos);
    bytesWritten += pos;
    pos = 0;
  }

  private void sep() throws IOException {
    ensure(1);
    if (!firstField) {
      buf[pos++] = ',';
    }
    firstField = false;
  }

  void nullField() throws IOException {
    sep();
  }

  /** Pre-encoded (already quoted if necessary) field bytes. */
  void raw(byte[] encoded) throws IOException {
    sep();
    ensure(encoded.length);
    System.arraycopy(encoded, 0, buf, pos, encoded.length);
    pos += encoded.length;
  }

  void longField(long v) throws IOException {
    sep();
    ensure(20);
    if (v == Long.MIN_VALUE) {
      byte[] b = Long.toString(v).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      System.arraycopy(b, 0, buf, pos, b.length);
      pos += b.length;
      return;
    }
    if (v < 0) {
      buf[pos++] = '-';
      v = -v;
    }
    pos = writeDigits(v, 1);
  }

  private int writeDigits(long v, int minDigits) {
    int n = 1;
    for (long t = v; t >= 10; t /= 10) {
      n++;
    }
    n = Math.max(n, minDigits);
    int end = pos + n;
    for (int i = end - 1; i >= pos; i--) {
      buf[i] = (byte) ('0' + (v % 10));
      v /= 10;
    }
    return end;
  }

  /** A non-negative integer left-padded with zeros to {@code digits} digits (e.g. a zip code). */
  void paddedField(long v, int digits) throws IOException {
    sep();
    ensure(20);
    pos = writeDigits(v, digits);
  }

  /** A non-negative amount given in hundredths, written as {@code units.hh}. */
  void centsField(long cents) throws IOException {
    sep();
    ensure(24);
    pos = writeDigits(cents / 100, 1);
    buf[pos++] = '.';
    pos = writeDigits(cents % 100, 2);
  }

  void endRecord() throws IOException {
    ensure(1);
    buf[pos++] = '\n';
    firstField = true;
  }

  long bytesWritten() {
    return bytesWritten + pos;
  }

  void flush() throws IOException {
    flushBuffer();
    out.flush();
  }

  @Override
  public void close() throws IOException {
    try {
      flushBuffer();
    } finally {
      out.close();
    }
  }
}
