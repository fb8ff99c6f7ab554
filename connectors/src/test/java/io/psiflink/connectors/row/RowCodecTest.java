package io.psiflink.connectors.row;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.psiflink.api.ColumnType;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;

class RowCodecTest {
  private static final List<ColumnType> ALL =
      List.of(
          ColumnType.BOOLEAN,
          ColumnType.INT,
          ColumnType.BIGINT,
          ColumnType.FLOAT,
          ColumnType.DOUBLE,
          ColumnType.STRING,
          ColumnType.BYTES);

  /** getInt against the JDK's big-endian ByteBuffer, at every offset and sign. */
  @Test
  void getIntReadsBigEndianAsByteBufferDoes() {
    SplittableRandom r = new SplittableRandom(3);
    for (int k = 0; k < 1000; k++) {
      byte[] b = new byte[12];
      for (int i = 0; i < b.length; i++) {
        b[i] = (byte) r.nextInt(256);
      }
      int off = r.nextInt(9);
      assertEquals(java.nio.ByteBuffer.wrap(b).getInt(off), RowCodec.getInt(b, off));
    }
  }

  /** getLong against the JDK's big-endian ByteBuffer, at every offset and sign. */
  @Test
  void getLongReadsBigEndianAsByteBufferDoes() {
    SplittableRandom r = new SplittableRandom(5);
    for (int k = 0; k < 1000; k++) {
      byte[] b = new byte[16];
      for (int i = 0; i < b.length; i++) {
        b[i] = (byte) r.nextInt(256);
      }
      int off = r.nextInt(9);
      assertEquals(java.nio.ByteBuffer.wrap(b).getLong(off), RowCodec.getLong(b, off));
    }
  }

  @Test
  void roundTripsEveryTypeAndNull() {
    RowCodec c = new RowCodec(ALL);
    Row[] rows = {
      Row.of(true, 1, -2L, 1.5f, -0.0, "h\u00e9llo, \"w\"\n", new byte[] {0, 1, (byte) 255}),
      Row.of(null, null, null, null, null, null, null),
      Row.of(
          false,
          Integer.MIN_VALUE,
          Long.MAX_VALUE,
          Float.NaN,
          Double.MIN_VALUE,
          "x".repeat(300),
          new byte[200])
    };
    int[] fields = {0, 1, 2, 3, 4, 5, 6};
    for (Row r : rows) {
      byte[] enc = c.encode(r, fields);
      Object[] out = new Object[7];
      c.decode(enc, 0, enc.length, out, 0);
      for (int i = 0; i < 6; i++) {
        assertEquals(r.getField(i), out[i], "column " + i);
      }
      assertArrayEquals((byte[]) r.getField(6), (byte[]) out[6]);
    }
  }

  @Test
  void projectsAndReordersColumns() {
    RowCodec c = new RowCodec(List.of(ColumnType.STRING, ColumnType.BIGINT));
    byte[] enc = c.encode(Row.of(7L, "x", "y"), new int[] {2, 0});
    Object[] out = new Object[2];
    c.decode(enc, 0, enc.length, out, 0);
    assertEquals("y", out[0]);
    assertEquals(7L, out[1]);
  }

  @Test
  void hostileBytesAreRejectedNotMisread() {
    RowCodec c = new RowCodec(ALL);
    byte[] good =
        c.encode(
            Row.of(true, 1, 2L, 3f, 4.0, "five", new byte[] {6}), new int[] {0, 1, 2, 3, 4, 5, 6});
    for (int cut = 0; cut < good.length; cut++) {
      byte[] t = Arrays.copyOf(good, cut);
      assertThrows(
          IllegalArgumentException.class, () -> c.decode(t, 0, t.length, new Object[7], 0));
    }
    byte[] longer = Arrays.copyOf(good, good.length + 1);
    assertThrows(
        IllegalArgumentException.class, () -> c.decode(longer, 0, longer.length, new Object[7], 0));
    SplittableRandom r = new SplittableRandom(3);
    for (int i = 0; i < 10_000; i++) {
      byte[] junk = new byte[r.nextInt(64)];
      for (int j = 0; j < junk.length; j++) {
        junk[j] = (byte) r.nextInt();
      }
      try {
        c.decode(junk, 0, junk.length, new Object[7], 0);
      } catch (IllegalArgumentException expected) {
        // the only failure allowed
      }
    }
  }

  @Test
  void columnsAreSlicesThatReassembleIntoOtherEncodings() {
    RowCodec c = new RowCodec(ALL);
    Row row = Row.of(true, 1, null, 1.5f, -0.0, "h\u00e9", new byte[] {9});
    byte[] enc = c.encode(row, new int[] {0, 1, 2, 3, 4, 5, 6});
    int[] starts = new int[3 + 8];
    c.columns(enc, 0, enc.length, starts, 3, true);
    assertEquals(0, starts[3]);
    assertEquals(enc.length, starts[3 + 7]);
    // columns 5 and 2, copied as they are, are the encoding of (STRING, BIGINT) = ("hé", null)
    RowCodec two = new RowCodec(List.of(ColumnType.STRING, ColumnType.BIGINT));
    byte[] both = new byte[starts[3 + 6] - starts[3 + 5] + starts[3 + 3] - starts[3 + 2]];
    System.arraycopy(enc, starts[3 + 5], both, 0, starts[3 + 6] - starts[3 + 5]);
    System.arraycopy(
        enc, starts[3 + 2], both, starts[3 + 6] - starts[3 + 5], starts[3 + 3] - starts[3 + 2]);
    assertArrayEquals(two.encode(Row.of("h\u00e9", null), new int[] {0, 1}), both);
  }

  @Test
  void invalidUtf8IsRefusedWhenAsked() {
    RowCodec c = new RowCodec(List.of(ColumnType.STRING, ColumnType.BYTES));
    byte[] enc = c.encode(Row.of("ab\u00e9", new byte[] {(byte) 0xC3}), new int[] {0, 1});
    c.columns(enc, 0, enc.length, new int[3], 0, true); // invalid UTF-8 in BYTES is just bytes
    byte[] bad = enc.clone();
    bad[5] = (byte) 0xC3; // "ab" then 0xC3 0xC3: a lead byte without its continuation
    c.columns(bad, 0, bad.length, new int[3], 0, false);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> c.columns(bad, 0, bad.length, new int[3], 0, true));
    assertEquals("invalid UTF-8 in column 0", e.getMessage());
  }
}
