package io.psiflink.connectors.row;

import java.io.ByteArrayOutputStream;

/**
 * Unsigned LEB128 lengths (7 bits per byte, low bits first), the length prefix of encoded rows and
 * of the records bins and payloads are made of. Reading checks every byte against the buffer: the
 * bytes may come from the peer.
 */
public final class Varint {
  private Varint() {}

  public static void write(ByteArrayOutputStream out, int n) {
    if (n < 0) {
      throw new IllegalArgumentException("negative length " + n);
    }
    while (n >= 0x80) {
      out.write((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    out.write(n);
  }

  /** How many bytes {@link #write} uses for {@code n}. */
  public static int size(int n) {
    int size = 1;
    while (n >= 0x80 || n < 0) {
      n >>>= 7;
      size++;
    }
    return size;
  }

  /** Writes {@code n} at {@code p} of {@code b}; returns the position after it. */
  public static int put(byte[] b, int p, int n) {
    if (n < 0) {
      throw new IllegalArgumentException("negative length " + n);
    }
    while (n >= 0x80) {
      b[p++] = (byte) ((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    b[p++] = (byte) n;
    return p;
  }

  /**
   * Reads a length at {@code p}, which must end before {@code end}.
   *
   * @return the length in the high 32 bits, the position after it in the low 32 bits
   * @throws IllegalArgumentException if the bytes end early or the value exceeds 2^31 - 1
   */
  public static long read(byte[] b, int p, int end) {
    long n = 0;
    for (int shift = 0; shift <= 28; shift += 7) {
      if (p >= end) {
        throw new IllegalArgumentException("length prefix truncated");
      }
      int x = b[p++];
      n |= (long) (x & 0x7f) << shift;
      if (x >= 0) {
        if (n > Integer.MAX_VALUE) {
          break;
        }
        return n << 32 | p;
      }
    }
    throw new IllegalArgumentException("malformed length prefix");
  }

  public static int value(long read) {
    return (int) (read >>> 32);
  }

  public static int next(long read) {
    return (int) read;
  }
}
