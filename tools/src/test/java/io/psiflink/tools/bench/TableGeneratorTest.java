package io.psiflink.tools.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
import io.psiflink.tools.bench.GeneratedTables.SideStats;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TableGeneratorTest {

  @TempDir Path tmp;

  static Stream<Arguments> specs() {
    return Stream.of(
        // rowsA, rowsB, overlap, dup, nulls
        Arguments.of(2000, 3000, 0.0, 0.2, 0.05),
        Arguments.of(2000, 3000, 0.01, 0.2, 0.05),
        Arguments.of(2000, 3000, 0.5, 0.2, 0.05),
        Arguments.of(2000, 3000, 1.0, 0.2, 0.05),
        Arguments.of(3000, 2000, 0.5, 0.1, 0.0),
        Arguments.of(2500, 2500, 0.7, 0.0, 0.0),
        Arguments.of(2500, 2500, 0.9, 0.65, 0.1), // several repeats per key (2-3 copies)
        Arguments.of(1, 1, 1.0, 0.0, 0.0),
        Arguments.of(0, 10, 0.5, 0.0, 0.0));
  }

  @ParameterizedTest(name = "{0}x{1} overlap={2} dup={3} nulls={4}")
  @MethodSource("specs")
  void generatedTablesJoinAsPromised(
      long rowsA, long rowsB, double overlap, double dup, double nulls) throws Exception {
    GeneratorSpec spec = new GeneratorSpec(rowsA, rowsB, overlap, dup, nulls, 99);
    GeneratedTables g = TableGenerator.generate(spec, tmp);
    List<Row> a = JavaJoin.readTyped(g.a(), TableGenerator.SCHEMA_A);
    List<Row> b = JavaJoin.readTyped(g.b(), TableGenerator.SCHEMA_B);
    assertEquals(rowsA, a.size());
    assertEquals(rowsB, b.size());

    // the join, computed independently, has exactly the promised size
    List<Row> joined = JavaJoin.join(a, b, r -> true, r -> true, JavaJoin::defaultSelect);
    assertEquals(g.expectedJoinRows(), joined.size());
    assertEquals(g.expectedJoinRows(), TableGenerator.expectedJoinRows(spec));

    checkSide(spec, a, b, g.statsA(), rowsA, rowsB);
    checkSide(spec, b, a, g.statsB(), rowsB, rowsA);
    assertEquals(Files.size(g.a()), g.statsA().bytes());
    assertEquals(Files.size(g.b()), g.statsB().bytes());

    // ids are 1..n
    for (int i = 0; i < a.size(); i++) {
      assertEquals((long) i + 1, a.get(i).getField(0));
    }
  }

  private static void checkSide(
      GeneratorSpec spec, List<Row> self, List<Row> other, SideStats st, long n, long nOther) {
    Set<List<Object>> otherKeys = new HashSet<>();
    Set<Object> otherCards = new HashSet<>();
    for (Row r : other) {
      List<Object> k = JavaJoin.key(r);
      if (k != null) {
        otherKeys.add(k);
        otherCards.add(k.get(0));
      }
    }
    long nulls = 0;
    long matching = 0;
    long cardOnlyMatch = 0;
    Map<List<Object>, Integer> mult = new HashMap<>();
    for (Row r : self) {
      String zip = (String) r.getField(2);
      if (zip != null) {
        assertTrue(zip.matches("[0-9]{5}"), zip);
      }
      List<Object> k = JavaJoin.key(r);
      if (k == null) {
        nulls++;
        continue;
      }
      mult.merge(k, 1, Integer::sum);
      if (otherKeys.contains(k)) {
        matching++;
      } else if (otherCards.contains(k.get(0))) {
        cardOnlyMatch++;
      }
    }
    long nullRows = Math.round(spec.nullKeyFraction() * n);
    long nullOther = Math.round(spec.nullKeyFraction() * nOther);
    assertEquals(nullRows, nulls);
    assertEquals(nullRows, st.nullKeyRows());
    long minNonNull = Math.min(n - nullRows, nOther - nullOther);
    // overlap: exactly round(F * min(non-null rows)) rows of each side match
    assertEquals(Math.round(spec.overlap() * minNonNull), matching);
    assertEquals(matching, st.matchingRows());
    if (minNonNull > 0) {
      assertEquals(spec.overlap(), (double) matching / minNonNull, 1.0 / minNonNull);
    }
    // duplicates: rows repeating an earlier key
    long nonNull = n - nulls;
    assertEquals(st.distinctKeys(), mult.size());
    assertEquals(nonNull - mult.size(), st.duplicateRows());
    long expectedDup =
        Math.round(spec.duplicateFraction() * matching)
            + Math.round(spec.duplicateFraction() * (nonNull - matching));
    assertTrue(
        Math.abs(st.duplicateRows() - expectedDup) <= 2, st.duplicateRows() + " vs " + expectedDup);
    if (st.duplicateRows() > 0) {
      assertTrue(mult.values().stream().anyMatch(m -> m > 1));
    }
    // near misses (same card as a key of the other table, different zip) are all there is
    assertTrue(cardOnlyMatch >= st.nearMissRows(), cardOnlyMatch + " < " + st.nearMissRows());
    if (st.sharedKeys() > 50 && nonNull - matching > 500) {
      assertTrue(st.nearMissRows() > 0);
    }
  }

  @Test
  void joinExpandsLikeSqlWithRepeatedKeysOnBothSides() throws Exception {
    GeneratorSpec spec = new GeneratorSpec(3000, 3000, 0.8, 0.3, 0.02, 5);
    GeneratedTables g = TableGenerator.generate(spec, tmp);
    List<Row> a = JavaJoin.readTyped(g.a(), TableGenerator.SCHEMA_A);
    List<Row> b = JavaJoin.readTyped(g.b(), TableGenerator.SCHEMA_B);
    Map<List<Object>, int[]> m = new HashMap<>();
    for (Row r : a) {
      if (JavaJoin.key(r) != null) {
        m.computeIfAbsent(JavaJoin.key(r), k -> new int[2])[0]++;
      }
    }
    for (Row r : b) {
      if (JavaJoin.key(r) != null) {
        m.computeIfAbsent(JavaJoin.key(r), k -> new int[2])[1]++;
      }
    }
    Set<String> shapes = new HashSet<>();
    long sum = 0;
    for (int[] c : m.values()) {
      if (c[0] > 0 && c[1] > 0) {
        shapes.add(c[0] + "x" + c[1]);
        sum += (long) c[0] * c[1];
      }
    }
    assertEquals(g.expectedJoinRows(), sum);
    assertTrue(shapes.containsAll(Set.of("1x1", "1x2", "2x1", "2x2")), shapes.toString());
  }

  @Test
  void sameSeedSameBytesOtherSeedOtherBytes() throws Exception {
    GeneratorSpec spec = new GeneratorSpec(1500, 1700, 0.4, 0.1, 0.03, 1234);
    GeneratedTables g1 = TableGenerator.generate(spec, tmp.resolve("1"));
    GeneratedTables g2 = TableGenerator.generate(spec, tmp.resolve("2"));
    GeneratedTables g3 = TableGenerator.generate(spec.withSeed(1235), tmp.resolve("3"));
    assertArrayEquals(Files.readAllBytes(g1.a()), Files.readAllBytes(g2.a()));
    assertArrayEquals(Files.readAllBytes(g1.b()), Files.readAllBytes(g2.b()));
    assertEquals(g1.statsA(), g2.statsA());
    assertFalse(java.util.Arrays.equals(Files.readAllBytes(g1.a()), Files.readAllBytes(g3.a())));
    assertEquals(g1.expectedJoinRows(), g3.expectedJoinRows()); // sizes depend only on the layout
    // write() to a stream gives the same bytes as generate()
    ByteArrayOutputStream bos = new ByteArrayOutputStream();
    TableGenerator.write(spec, Role.B, bos);
    assertArrayEquals(Files.readAllBytes(g1.b()), bos.toByteArray());
  }

  @Test
  void csvIsWellFormedAndRoundTripsTheTypedRows() throws Exception {
    GeneratorSpec spec = new GeneratorSpec(4000, 4000, 0.5, 0.1, 0.05, 77);
    GeneratedTables g = TableGenerator.generate(spec, tmp);
    for (Role side : List.of(Role.A, Role.B)) {
      Path file = Role.A.equals(side) ? g.a() : g.b();
      var schema = Role.A.equals(side) ? TableGenerator.SCHEMA_A : TableGenerator.SCHEMA_B;
      List<Row> parsed = JavaJoin.readTyped(file, schema); // throws on malformed CSV
      List<Row> generated = new ArrayList<>();
      TableGenerator.forEachRow(spec, side, generated::add);
      assertEquals(generated, parsed);
      // the strings exercise quoting and non-ASCII; no empty strings; some NULLs in every column
      Set<Character> seen = new HashSet<>();
      boolean nonAscii = false;
      int[] nullsPerColumn = new int[schema.size()];
      for (Row r : parsed) {
        for (int i = 0; i < schema.size(); i++) {
          Object v = r.getField(i);
          if (v == null) {
            nullsPerColumn[i]++;
          } else if (v instanceof String s) {
            assertFalse(s.isEmpty());
            for (char c : s.toCharArray()) {
              if (c == ',' || c == '"') {
                seen.add(c);
              }
              nonAscii |= c > 127;
            }
          }
        }
      }
      assertEquals(Set.of(',', '"'), seen, side.toString());
      assertTrue(nonAscii);
      assertEquals(0, nullsPerColumn[0]);
      for (int i = 1; i < schema.size(); i++) {
        assertTrue(nullsPerColumn[i] > 0, "no NULL in column " + schema.column(i).name());
      }
    }
    String text = Files.readString(g.a(), StandardCharsets.UTF_8);
    assertTrue(text.startsWith("id,card,zip,spend,name\n"));
    assertTrue(text.contains("\"Robert \"\"Bob\"\" Jones\"") || text.contains("\"Smith, John\""));
  }

  @Test
  void csvFieldQuotingRoundTrips() {
    String[] tricky = {
      "plain",
      "a,b",
      "say \"hi\"",
      "\"",
      "\"\"",
      "line\nbreak",
      "cr\rlf\r\n",
      " spaced ",
      "Müller",
      "例え",
      ",",
      "x\"y,z"
    };
    Object[] values = new Object[tricky.length + 3];
    System.arraycopy(tricky, 0, values, 0, tricky.length);
    values[tricky.length] = null;
    values[tricky.length + 1] = "";
    values[tricky.length + 2] = 42L;
    String rec = Csv.record(values) + Csv.record("next", null);
    List<List<String>> parsed = SimpleCsv.parse(rec);
    assertEquals(2, parsed.size());
    List<String> f = parsed.get(0);
    for (int i = 0; i < tricky.length; i++) {
      assertEquals(tricky[i], f.get(i));
    }
    assertNull(f.get(tricky.length));
    assertEquals("", f.get(tricky.length + 1));
    assertEquals("42", f.get(tricky.length + 2));
    assertEquals(java.util.Arrays.asList("next", null), parsed.get(1));
  }

  @Test
  void specIsValidated() {
    assertThrows(IllegalArgumentException.class, () -> new GeneratorSpec(10, 10, 1.5, 0, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new GeneratorSpec(10, 10, 0.5, 1.0, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new GeneratorSpec(-1, 10, 0.5, 0, 0, 1));
    assertThrows(
        IllegalArgumentException.class, () -> new GeneratorSpec(10, 10, Double.NaN, 0, 0, 1));
  }

  @Test
  void unsignedSplitOfKeyValues() {
    java.util.Random r = new java.util.Random(1);
    long[] edge = {0, 1, 99_999, 100_000, Long.MAX_VALUE, Long.MIN_VALUE, -1, -100_000, -99_999};
    for (int i = 0; i < 100_000 + edge.length; i++) {
      long v = i < edge.length ? edge[i] : r.nextLong();
      assertEquals(
          Long.divideUnsigned(v, 100_000), TableGenerator.cardPart(v), Long.toUnsignedString(v));
      assertEquals(
          Long.remainderUnsigned(v, 100_000), TableGenerator.zipPart(v), Long.toUnsignedString(v));
    }
  }

  @Test
  void pinnedFirstRows() throws Exception {
    // the generator's output is part of the benchmark's definition: pin the start of a small table
    ByteArrayOutputStream bos = new ByteArrayOutputStream();
    TableGenerator.write(new GeneratorSpec(3, 3, 0.5, 0, 0, 1), Role.A, bos);
    assertEquals(PINNED_A, bos.toString(StandardCharsets.UTF_8));
  }

  static final String PINNED_A =
      "id,card,zip,spend,name\n"
          + "1,4071923849985307,60011,823.52,Zoë Braun\n"
          + "2,4097871001012692,15037,737.57,Sofia Richter\n"
          + "3,4098764100584834,47267,345.74,Greta Becker\n";

  @Test
  void permutationsAreBijections() {
    Permutations.Feistel64 f = new Permutations.Feistel64(3, 4);
    for (long x : new long[] {0, 1, -1, Long.MIN_VALUE, 123456789012345L}) {
      assertEquals(x, f.invert(f.apply(x)));
    }
    for (long n : new long[] {1, 2, 3, 5, 17, 1000, 4097}) {
      Permutations.SmallDomain p = new Permutations.SmallDomain(n, 9, 1);
      Set<Long> seen = new HashSet<>();
      for (long i = 0; i < n; i++) {
        long y = p.apply(i);
        assertTrue(y >= 0 && y < n);
        seen.add(y);
      }
      assertEquals(n, seen.size());
    }
    assertNotEquals(
        new Permutations.Feistel64(1, 1).apply(5), new Permutations.Feistel64(2, 1).apply(5));
  }

  @Test
  void mainWritesFilesAndPrintsJson() throws Exception {
    var out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertEquals(
        0,
        TableGenerator.run(
            new String[] {
              "--rows",
              "100",
              "--rows-b",
              "1e2",
              "--overlap",
              "0.5",
              "--dup",
              "0.1",
              "--nulls",
              "0.1",
              "--seed",
              "3",
              "--out",
              tmp.toString()
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8)));
    String json = out.toString(StandardCharsets.UTF_8);
    long expected = TableGenerator.expectedJoinRows(new GeneratorSpec(100, 100, 0.5, 0.1, 0.1, 3));
    assertTrue(json.contains("\"expectedJoinRows\":" + expected + ","), json);
    assertTrue(Files.exists(tmp.resolve("a.csv")) && Files.exists(tmp.resolve("b.csv")));
    // an unknown option: exit 2, one line naming it
    assertEquals(
        2,
        TableGenerator.run(
            new String[] {"--rows", "5", "--out", tmp.toString(), "--bogus", "1"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8)));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("--bogus"), err.toString());
  }
}
