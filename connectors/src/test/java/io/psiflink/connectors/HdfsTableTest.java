package io.psiflink.connectors;

import static io.psiflink.connectors.Tables.assertSameRows;
import static io.psiflink.connectors.Tables.drain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads CSV and Avro tables from, and writes Avro and CSV outputs to, an in-process HDFS.
 *
 * <p>Nothing special is needed for Flink to reach {@code hdfs://}: with flink-hadoop-fs and the
 * Hadoop client on the class path, Flink's FileSystem falls back to its HadoopFsFactory for schemes
 * it has no factory for, and a full {@code hdfs://host:port/...} URI names the NameNode, so no
 * {@code fs.defaultFS}, HADOOP_CONF_DIR or {@code FileSystem.initialize} is required (a path
 * without authority would need fs.defaultFS from a Hadoop configuration). MiniDFSCluster runs on
 * Java 17 without extra JVM flags.
 */
class HdfsTableTest {
  @RegisterExtension static final FlinkCluster FLINK = new FlinkCluster();

  @TempDir static Path base;

  private static MiniDFSCluster hdfs;
  private static String root;

  @BeforeAll
  static void startHdfs() throws IOException {
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.resolve("dfs").toString());
    hdfs = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
    hdfs.waitActive();
    root = "hdfs://localhost:" + hdfs.getNameNodePort();
  }

  @AfterAll
  static void stopHdfs() {
    if (hdfs != null) {
      hdfs.shutdown();
    }
  }

  private static OutputStream create(String path) throws IOException {
    org.apache.flink.core.fs.Path p = new org.apache.flink.core.fs.Path(path);
    return p.getFileSystem().create(p, FileSystem.WriteMode.NO_OVERWRITE);
  }

  @Test
  void readsAndWritesTablesOnHdfs() throws Exception {
    String csvPath = root + "/in/a.csv";
    try (OutputStream out = create(csvPath)) {
      out.write(
          ("card,zip,spend\n"
                  + "4111,\"01234\",100\n"
                  + "4222,10115,-5\n"
                  + "4333,\"80331\",abc\n"
                  + "4444,,7\n")
              .getBytes(StandardCharsets.UTF_8));
    }
    Schema avro =
        SchemaBuilder.record("B")
            .fields()
            .requiredLong("card")
            .optionalString("country")
            .requiredBytes("token")
            .endRecord();
    String avroPath = root + "/in/b.avro";
    List<Row> expectedB = new ArrayList<>();
    try (OutputStream out = create(avroPath);
        DataFileWriter<GenericRecord> w =
            new DataFileWriter<GenericRecord>(new GenericDatumWriter<>(avro))) {
      w.create(avro, out);
      for (long i = 0; i < 500; i++) {
        GenericData.Record r = new GenericData.Record(avro);
        r.put("card", 4000 + i);
        r.put("country", i % 10 == 0 ? null : i % 2 == 0 ? "DE" : "FR");
        r.put("token", ByteBuffer.wrap(new byte[] {(byte) i, (byte) (i >> 8)}));
        w.append(r);
        expectedB.add(
            Row.of(
                4000 + i,
                i % 10 == 0 ? null : i % 2 == 0 ? "DE" : "FR",
                new byte[] {(byte) i, (byte) (i >> 8)}));
      }
    }

    // discovery works on hdfs:// too: zip keeps its leading zero as STRING
    TableSchema a = SchemaDiscovery.discover(csvPath);
    assertEquals(
        List.of(ColumnType.BIGINT, ColumnType.STRING, ColumnType.STRING),
        a.columns().stream().map(Column::type).toList());
    TableSchema typedA =
        new TableSchema(
            List.of(
                new Column("card", ColumnType.BIGINT, false),
                new Column("zip", ColumnType.STRING, true),
                new Column("spend", ColumnType.BIGINT, true)));
    TableSchema b = SchemaDiscovery.discover(avroPath);

    StreamExecutionEnvironment env = FLINK.batchEnv();
    SourceResult<Row> ra = TableSource.read(env, "a", csvPath, typedA);
    SourceResult<Row> rb = TableSource.read(env, "b", avroPath, b);
    TableSink.write(ra.rows(), typedA, root + "/out/a", TableFormat.AVRO);
    TableSink.write(rb.rows(), b, root + "/out/b", TableFormat.AVRO);
    TableSink.write(rb.rows(), b, root + "/out/b-csv", TableFormat.CSV);
    QuarantineSink.write(ra.quarantined().union(rb.quarantined()), root + "/out/bad");
    JobExecutionResult result = env.execute("hdfs");

    assertEquals(3L, (Long) result.getAccumulatorResult("a.rowsRead"));
    assertEquals(1L, (Long) result.getAccumulatorResult("a.rowsQuarantined"));
    assertEquals(500L, (Long) result.getAccumulatorResult("b.rowsRead"));
    assertEquals(0L, (Long) result.getAccumulatorResult("b.rowsQuarantined"));

    assertSameRows(
        List.of(Row.of(4111L, "01234", 100L), Row.of(4222L, "10115", -5L), Row.of(4444L, null, 7L)),
        TableReader.readAll(root + "/out/a", TableFormat.AVRO).rows());
    assertSameRows(expectedB, TableReader.readAll(root + "/out/b", TableFormat.AVRO, b).rows());
    assertSameRows(expectedB, TableReader.readAll(root + "/out/b-csv", TableFormat.CSV, b).rows());
    assertSameRows(
        List.of(Row.of(csvPath, 4L, "column 'spend': 'abc' is not a BIGINT", "4333,\"80331\",abc")),
        TableReader.readAll(root + "/out/bad", TableFormat.CSV, QuarantineSink.SCHEMA).rows());

    // seen through the Hadoop API: only committed, visible part files remain
    for (String out : List.of("/out/a", "/out/b")) {
      FileStatus[] files = hdfs.getFileSystem().listStatus(new org.apache.hadoop.fs.Path(out));
      assertTrue(files.length >= 1, out);
      for (FileStatus f : files) {
        String name = f.getPath().getName();
        assertTrue(name.matches("part-[0-9a-f-]{36}-\\d+\\.avro") && f.getLen() > 0, name);
      }
    }
  }

  @Test
  void readsADirectoryOfPartsOnHdfs() throws Exception {
    String dir = root + "/in/parts";
    for (String[] part :
        List.of(
            new String[] {"part-0.csv", "card,spend\n1,10\n2,20\n"},
            new String[] {"part-1.csv", "card,spend\n3,x\n4,40\n"},
            new String[] {"_SUCCESS", ""})) {
      try (OutputStream out = create(dir + "/" + part[0])) {
        out.write(part[1].getBytes(StandardCharsets.UTF_8));
      }
    }
    // both parts vote: the x of part-1 makes spend STRING
    assertEquals(
        List.of(ColumnType.BIGINT, ColumnType.STRING),
        SchemaDiscovery.discover(dir).columns().stream().map(Column::type).toList());
    TableSchema schema =
        new TableSchema(
            List.of(
                new Column("card", ColumnType.BIGINT, false),
                new Column("spend", ColumnType.BIGINT, true)));

    StreamExecutionEnvironment env = FLINK.batchEnv();
    SourceResult<Row> r = TableSource.read(env, "parts", dir, schema);
    CloseableIterator<Row> rows = r.rows().collectAsync();
    CloseableIterator<BadRow> bad = r.quarantined().collectAsync();
    env.execute("hdfs parts");
    assertSameRows(List.of(Row.of(1L, 10L), Row.of(2L, 20L), Row.of(4L, 40L)), drain(rows));
    assertEquals(
        List.of(new BadRow(dir + "/part-1.csv", 2, "column 'spend': 'x' is not a BIGINT", "3,x")),
        drain(bad));
  }

  @Test
  void parquetOnHdfsWrittenIndependentlyAndByTheStagedSink() throws Exception {
    // written with parquet-avro through Hadoop's own HDFS client, not Flink's
    org.apache.avro.Schema avro =
        SchemaBuilder.record("p")
            .fields()
            .requiredLong("card")
            .optionalString("country")
            .optionalDouble("spend")
            .endRecord();
    String in = root + "/in/p/part-0.parquet";
    List<Row> expected = new ArrayList<>();
    try (org.apache.parquet.hadoop.ParquetWriter<GenericRecord> w =
        org.apache.parquet.avro.AvroParquetWriter.<GenericRecord>builder(
                org.apache.parquet.hadoop.util.HadoopOutputFile.fromPath(
                    new org.apache.hadoop.fs.Path(in), hdfs.getConfiguration(0)))
            .withSchema(avro)
            .build()) {
      for (long i = 0; i < 1000; i++) {
        GenericData.Record r = new GenericData.Record(avro);
        String country = i % 7 == 0 ? null : "c" + (i % 5);
        Double spend = i % 11 == 0 ? null : i * 0.5;
        r.put("card", i);
        r.put("country", country);
        r.put("spend", spend);
        w.write(r);
        expected.add(Row.of(i, country, spend));
      }
    }
    TableSchema schema = SchemaDiscovery.discover(root + "/in/p");
    assertEquals(
        new TableSchema(
            List.of(
                new Column("card", ColumnType.BIGINT, false),
                new Column("country", ColumnType.STRING, true),
                new Column("spend", ColumnType.DOUBLE, true))),
        schema);

    String out = root + "/out/p.parquet";
    StagedOutput staged = StagedOutput.prepare(out);
    StreamExecutionEnvironment env = FLINK.batchEnv();
    SourceResult<Row> r = TableSource.read(env, "p", root + "/in/p", schema);
    TableSink.write(r.rows(), schema, staged.stagingDir(), TableFormat.PARQUET);
    env.execute("hdfs parquet");
    assertTrue(
        !hdfs.getFileSystem().exists(new org.apache.hadoop.fs.Path("/out/p.parquet")),
        "not visible before the commit");
    staged.commit();
    assertTrue(TableSink.isComplete(out));
    assertSameRows(expected, TableReader.readAll(out, TableFormat.PARQUET).rows());
    assertEquals(schema.names(), SchemaDiscovery.discover(out).names());
  }
}
