package io.psiflink.tools.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.apache.avro.util.Utf8;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;

class RowDigestTest {

  private static List<Row> sample(int n, long seed) {
    Random r = new Random(seed);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      rows.add(
          Row.of(
              (long) r.nextInt(50),
              r.nextDouble(),
              r.nextBoolean() ? null : "s" + r.nextInt(9),
              r.nextInt(3) == 0 ? null : (long) i));
    }
    return rows;
  }

  @Test
  void orderDoesNotMatter() {
    List<Row> rows = sample(500, 1);
    RowDigest d1 = RowDigest.of(rows);
    List<Row> shuffled = new ArrayList<>(rows);
    Collections.shuffle(shuffled, new Random(2));
    assertEquals(d1, RowDigest.of(shuffled));
    Collections.reverse(shuffled);
    assertEquals(d1, RowDigest.of(shuffled));
    assertEquals(500, d1.count());
  }

  @Test
  void multisetSensitive() {
    Row x = Row.of(1L, "x");
    Row y = Row.of(2L, "y");
    assertNotEquals(RowDigest.of(x, y), RowDigest.of(x, y, x));
    assertNotEquals(RowDigest.of(x, x, y), RowDigest.of(x, y, y)); // same count, other multiset
    assertNotEquals(RowDigest.of(x), RowDigest.of(y));
    assertNotEquals(RowDigest.of(), RowDigest.of(x));
    List<Row> rows = sample(300, 3);
    RowDigest d = RowDigest.of(rows);
    rows.set(17, Row.of(rows.get(17).getField(0), rows.get(17).getField(1), "changed", null));
    assertNotEquals(d, RowDigest.of(rows));
  }

  @Test
  void nullEmptyAndFieldBoundariesDiffer() {
    assertNotEquals(RowDigest.of(Row.of((Object) null)), RowDigest.of(Row.of("")));
    assertNotEquals(RowDigest.of(Row.of("ab", "")), RowDigest.of(Row.of("a", "b")));
    assertNotEquals(RowDigest.of(Row.of("ab")), RowDigest.of(Row.of("a", "b")));
    assertNotEquals(RowDigest.of(Row.of("1")), RowDigest.of(Row.of(1L)));
    assertNotEquals(RowDigest.of(Row.of(1L)), RowDigest.of(Row.of(1.0)));
    assertNotEquals(RowDigest.of(Row.of(null, "x")), RowDigest.of(Row.of("x", null)));
    assertNotEquals(RowDigest.of(Row.of(true)), RowDigest.of(Row.of(1L)));
  }

  @Test
  void numericAndStringClassesAreCanonicalized() {
    assertEquals(
        RowDigest.of(Row.of(5, 1.5f, "é", (short) 2)),
        RowDigest.of(Row.of(5L, 1.5d, new Utf8("é"), 2L)));
    assertEquals(RowDigest.of(Row.of(-0.0)), RowDigest.of(Row.of(0.0f)));
    assertEquals(RowDigest.of(Row.of(Double.NaN)), RowDigest.of(Row.of(Float.NaN)));
    assertEquals(
        RowDigest.of(Row.of(new byte[] {1, 2})),
        RowDigest.of(Row.of(ByteBuffer.wrap(new byte[] {0, 1, 2}).position(1))));
    assertEquals(
        RowDigest.of(Row.of(new BigDecimal("1.50"))), RowDigest.of(Row.of(new BigDecimal("1.5"))));
    // a name-only row has no field order: rejected
    Row named = Row.withNames();
    named.setField("id", 7L);
    assertThrows(IllegalArgumentException.class, () -> RowDigest.of(named));
    assertThrows(IllegalArgumentException.class, () -> RowDigest.of(Row.of(new Object())));
  }

  @Test
  void mergeEqualsSequentialAdd() {
    List<Row> rows = sample(1000, 4);
    RowDigest all = RowDigest.of(rows);
    RowDigest p1 = RowDigest.of(rows.subList(0, 333));
    RowDigest p2 = RowDigest.of(rows.subList(333, 700));
    RowDigest p3 = RowDigest.of(rows.subList(700, 1000));
    assertEquals(all, new RowDigest().merge(p3).merge(p1).merge(p2));
    assertEquals(all, p1.copy().merge(p2).merge(p3));
    // accumulator: parallel partial accumulators merged as Flink does (clone + merge)
    RowDigestAccumulator a1 = new RowDigestAccumulator();
    RowDigestAccumulator a2 = new RowDigestAccumulator();
    rows.subList(0, 500).forEach(a1::add);
    rows.subList(500, 1000).forEach(a2::add);
    RowDigestAccumulator merged = a1.clone();
    merged.merge(a2);
    assertEquals(all, merged.getLocalValue());
    assertEquals(500, a1.getLocalValue().count()); // clone did not share state
    a1.resetLocal();
    assertEquals(new RowDigest(), a1.getLocalValue());
  }

  @Test
  void sumCarriesInto128Bits() {
    RowDigest x = RowDigest.parse("1:0000000000000000ffffffffffffffff");
    RowDigest y = RowDigest.parse("2:00000000000000000000000000000001");
    assertEquals("3:00000000000000010000000000000000", x.copy().merge(y).toString());
    RowDigest z = RowDigest.parse("0:ffffffffffffffffffffffffffffffff");
    assertEquals(
        "0:00000000000000000000000000000000",
        z.merge(RowDigest.parse("0:00000000000000000000000000000001")).toString());
  }

  @Test
  void toStringParsesAndSerializes() throws Exception {
    RowDigest d = RowDigest.of(sample(10, 5));
    assertEquals(d, RowDigest.parse(d.toString()));
    ByteArrayOutputStream bos = new ByteArrayOutputStream();
    try (ObjectOutputStream oos = new ObjectOutputStream(bos)) {
      oos.writeObject(d);
    }
    Object back = new ObjectInputStream(new ByteArrayInputStream(bos.toByteArray())).readObject();
    assertEquals(d, back);
    ((RowDigest) back).add(Row.of(1L)); // transient hashing state is recreated
    assertEquals(11, ((RowDigest) back).count());
  }

  @Test
  void knownAnswer() throws Exception {
    Row row = Row.of(1L, "é", null, 2.5, true);
    byte[] expectedEncoding =
        HexFormat.of()
            .parseHex(
                "01"
                    + "00000005" // version, arity 5
                    + "02"
                    + "0000000000000001" // integer 1
                    + "04"
                    + "00000002"
                    + "c3a9" // string "é" (UTF-8)
                    + "00" // NULL
                    + "03"
                    + "4004000000000000" // double 2.5
                    + "01"
                    + "01"); // true
    assertArrayEquals(expectedEncoding, new RowDigest().encode(row));
    byte[] sha = MessageDigest.getInstance("SHA-256").digest(expectedEncoding);
    ByteBuffer bb = ByteBuffer.wrap(sha);
    assertArrayEquals(new long[] {bb.getLong(), bb.getLong()}, new RowDigest().hash(row));
    assertEquals("1:" + HexFormat.of().formatHex(sha, 0, 16), RowDigest.of(row).toString());

    // pinned: any change of encoding or hash is a format change of the digest
    RowDigest d =
        RowDigest.of(
            Row.of(1L, "a"), Row.of(2L, null), Row.of(3, ""), Row.of("x,\"y\"", 0.1, false));
    assertEquals(PINNED, d.toString());
  }

  // independently reproduced with Python's hashlib over the encoding in RowDigest's class comment
  static final String PINNED = "4:674f2eaa6bfe1bdeaf8e2ce6775357a4";
}
