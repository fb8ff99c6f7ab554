package io.psiflink.it.hdfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.connectors.QuarantineSink;
import io.psiflink.connectors.TableFormat;
import io.psiflink.connectors.TableReader;
import io.psiflink.connectors.TableSink;
import io.psiflink.tools.local.LocalJoin;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.types.Row;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.util.HadoopOutputFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HDFS-to-HDFS enrichment join: party A's table (Parquet part files) on A's own HDFS, party B's
 * (Avro) on B's own HDFS, each party a JVM with its own Flink MiniCluster (as {@code ./psi local}
 * runs them), the bridge over TLS on loopback, the joined rows written as Avro to A's HDFS, read
 * back and compared with the plaintext join computed here. Rows with a NULL key on either side go
 * to the quarantine; a threshold below their number fails the join without output.
 */
class HdfsJoinIT {
  private static final String SQL =
      "SELECT a.id, a.spend, b.email FROM a JOIN b"
          + " ON a.card = b.card AND a.zip = b.zip WHERE b.country = 'DE'";
  private static final String[] ZIPS = {"10115", "80331", "01234"};
  private static final String[] COUNTRIES = {"DE", "FR", "DE", "NL"};

  @TempDir static Path base;

  private static MiniDFSCluster hdfsA;
  private static MiniDFSCluster hdfsB;
  private static String rootA;
  private static String rootB;

  /** a: id, card, zip, spend; b: id, card, zip, country, email (the test's own copies). */
  private static final List<Object[]> A = new ArrayList<>();

  private static final List<Object[]> B = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    hdfsA = cluster("a");
    hdfsB = cluster("b");
    rootA = "hdfs://localhost:" + hdfsA.getNameNodePort();
    rootB = "hdfs://localhost:" + hdfsB.getNameNodePort();
    SplittableRandom r = new SplittableRandom(5);
    for (long i = 0; i < 3000; i++) {
      Long card = r.nextInt(100) < 2 ? null : (long) r.nextInt(1200);
      A.add(
          new Object[] {
            i,
            card,
            ZIPS[r.nextInt(ZIPS.length)],
            r.nextInt(10) == 0 ? null : r.nextInt(100_000) / 100.0
          });
    }
    for (long i = 0; i < 4000; i++) {
      Long card = r.nextInt(100) < 2 ? null : (long) r.nextInt(1500);
      B.add(
          new Object[] {
            i,
            card,
            ZIPS[r.nextInt(ZIPS.length)],
            COUNTRIES[r.nextInt(COUNTRIES.length)],
            "u" + i + "@example.org"
          });
    }
    writeA();
    writeB();
  }

  private static MiniDFSCluster cluster(String party) throws IOException {
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.resolve("dfs-" + party).toString());
    MiniDFSCluster c = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
    c.waitActive();
    return c;
  }

  @AfterAll
  static void stop() {
    for (MiniDFSCluster c : new MiniDFSCluster[] {hdfsA, hdfsB}) {
      if (c != null) {
        c.shutdown();
      }
    }
  }

  /** Two Parquet parts, written with parquet-avro through Hadoop's client. */
  private static void writeA() throws IOException {
    Schema s =
        SchemaBuilder.record("a")
            .fields()
            .requiredLong("id")
            .optionalLong("card")
            .requiredString("zip")
            .optionalDouble("spend")
            .endRecord();
    for (int part = 0; part < 2; part++) {
      try (ParquetWriter<GenericRecord> w =
          AvroParquetWriter.<GenericRecord>builder(
                  HadoopOutputFile.fromPath(
                      new org.apache.hadoop.fs.Path("/data/a/part-" + part + ".parquet"),
                      hdfsA.getConfiguration(0)))
              .withSchema(s)
              .build()) {
        for (int i = part; i < A.size(); i += 2) {
          GenericRecord rec = new GenericData.Record(s);
          for (int f = 0; f < 4; f++) {
            rec.put(f, A.get(i)[f]);
          }
          w.write(rec);
        }
      }
    }
  }

  private static void writeB() throws IOException {
    Schema s =
        SchemaBuilder.record("b")
            .fields()
            .requiredLong("id")
            .optionalLong("card")
            .requiredString("zip")
            .requiredString("country")
            .requiredString("email")
            .endRecord();
    try (OutputStream out =
            hdfsB.getFileSystem().create(new org.apache.hadoop.fs.Path("/warehouse/b.avro"));
        DataFileWriter<GenericRecord> w = new DataFileWriter<>(new GenericDatumWriter<>(s))) {
      w.create(s, out);
      for (Object[] x : B) {
        GenericRecord rec = new GenericData.Record(s);
        for (int f = 0; f < 5; f++) {
          rec.put(f, x[f]);
        }
        w.append(rec);
      }
    }
  }

  /** The plaintext join, as "id|spend|email" strings, sorted. */
  private static List<String> expected() {
    Map<String, List<Object[]>> bByKey = new HashMap<>();
    for (Object[] b : B) {
      if (b[1] != null && b[3].equals("DE")) {
        bByKey.computeIfAbsent(b[1] + "/" + b[2], k -> new ArrayList<>()).add(b);
      }
    }
    List<String> out = new ArrayList<>();
    for (Object[] a : A) {
      if (a[1] == null) {
        continue;
      }
      for (Object[] b : bByKey.getOrDefault(a[1] + "/" + a[2], List.of())) {
        out.add(a[0] + "|" + a[3] + "|" + b[4]);
      }
    }
    out.sort(null);
    return out;
  }

  private static long nullKeys(List<Object[]> rows) {
    return rows.stream().filter(x -> x[1] == null).count();
  }

  private Map<String, String> options(String out, String maxBadRows) {
    Map<String, String> o = new HashMap<>();
    o.put("a", rootA + "/data/a");
    o.put("b", rootB + "/warehouse/b.avro");
    o.put("sql", SQL);
    o.put("out", out);
    o.put("parallelism", "2");
    o.put("party-heap", "512m");
    o.put("max-bad-rows", maxBadRows);
    o.put("work", base.resolve("work-" + maxBadRows.replace('%', 'p')).toString());
    return o;
  }

  private static LocalJoin.Result run(Map<String, String> opts) throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    try (PrintStream ps = new PrintStream(log, true, StandardCharsets.UTF_8)) {
      return LocalJoin.run(opts, ps);
    } catch (Exception e) {
      throw new AssertionError(e.getMessage() + "\n" + log.toString(StandardCharsets.UTF_8), e);
    }
  }

  @Test
  void joinsHdfsTablesIntoAvroOnHdfsExactlyAsThePlaintextJoin() throws Exception {
    String out = rootA + "/results/joined";
    LocalJoin.Result r = run(options(out, "5%"));

    assertTrue(TableSink.isComplete(out));
    List<String> actual = new ArrayList<>();
    for (Row row : TableReader.readAll(out, TableFormat.AVRO).rows()) {
      actual.add(row.getField(0) + "|" + row.getField(1) + "|" + row.getField(2));
    }
    actual.sort(null);
    List<String> expected = expected();
    assertTrue(expected.size() > 100, "a join worth the name: " + expected.size());
    assertEquals(expected, actual);
    assertTrue(r.summaryA().contains("\"rows_out\":" + expected.size()), r.summaryA());
    assertTrue(r.summaryA().contains("\"rows_quarantined\":" + nullKeys(A)), r.summaryA());
    assertTrue(r.summaryA().contains("\"rows_with_null_key\":" + nullKeys(A)), r.summaryA());
    assertTrue(r.summaryB().contains("\"rows_quarantined\":" + nullKeys(B)), r.summaryB());

    // every NULL key in the quarantine next to the output, with its reason
    List<Row> badA =
        TableReader.readAll(out + ".quarantine/a", TableFormat.CSV, QuarantineSink.SCHEMA).rows();
    assertEquals(nullKeys(A), badA.size());
    for (Row b : badA) {
      assertEquals("column 'card': NULL in a join key column (it can never match)", b.getField(2));
      assertTrue(((String) b.getField(0)).startsWith(rootA + "/data/a/part-"), b.toString());
    }
    assertEquals(
        nullKeys(B),
        TableReader.readAll(out + ".quarantine/b", TableFormat.CSV, QuarantineSink.SCHEMA)
            .rows()
            .size());
  }

  @Test
  void tooManyBadRowsFailTheJoinAndLeaveNoOutput() throws Exception {
    String out = rootA + "/results/strict";
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    Exception e =
        assertThrows(
            Exception.class,
            () ->
                LocalJoin.run(
                    options(out, "10"), new PrintStream(log, true, StandardCharsets.UTF_8)));
    assertTrue(e.getMessage().contains("the join failed"), e.getMessage());
    String text = log.toString(StandardCharsets.UTF_8);
    assertTrue(
        text.contains("too many bad rows: party A: table a: " + nullKeys(A) + " of 3,000 records"),
        text);
    assertTrue(
        text.contains(
            "more than --max-bad-rows 10 allows; each is in "
                + out
                + ".quarantine/a with its reason; the output was not written"),
        text);
    assertFalse(
        hdfsA.getFileSystem().exists(new org.apache.hadoop.fs.Path("/results/strict")),
        "no output at the target");
    // the quarantine says why
    assertEquals(
        nullKeys(A),
        TableReader.readAll(out + ".quarantine/a", TableFormat.CSV, QuarantineSink.SCHEMA)
            .rows()
            .size());
  }
}
