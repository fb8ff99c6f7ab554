package io.psiflink.connectors;

import static io.psiflink.connectors.Tables.assertSameRows;
import static io.psiflink.connectors.Tables.drain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The PostgreSQL source against a real server (PostgresServer), at parallelism 2; the oracle is a
 * plain JDBC {@code SELECT} of the same table.
 */
class JdbcSourceTest {
  @RegisterExtension static final FlinkCluster FLINK = new FlinkCluster();

  private static PostgresServer pg;
  private static String url;

  @BeforeAll
  static void start() throws Exception {
    pg = PostgresServer.start();
    url = pg.createDatabase("conn");
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE people (id bigint PRIMARY KEY, name text, visits integer,"
              + " score double precision, ratio real, active boolean, blob bytea,"
              + " amount numeric(12,0), price numeric(10,2), born date NOT NULL)");
      s.execute(
          "INSERT INTO people SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE 'n' || i ||"
              + " ' z\u00fcrich' END, i * 7, i / 3.0, i / 4.0, i % 2 = 0, decode(lpad(to_hex(i % 256),"
              + " 2, '0'), 'hex'), i * 1000, i / 7.0, date '2020-01-01' + i::int"
              + " FROM generate_series(1, 2500) AS i");
      // no primary key: read by block ranges
      s.execute("CREATE TABLE events (kind text, n integer)");
      s.execute(
          "INSERT INTO events SELECT 'k' || (i % 13), CASE WHEN i % 50 = 0 THEN NULL ELSE i"
              + " END FROM generate_series(1, 20000) AS i");
      s.execute("CREATE TABLE \"Mixed Case\" (\"Key\" integer, v text)");
      s.execute("INSERT INTO \"Mixed Case\" VALUES (1, 'one'), (NULL, 'none'), (3, 'three')");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (pg != null) {
      pg.close();
    }
  }

  /** The oracle: the table read with plain JDBC, each column converted by the JDBC driver. */
  private static List<Row> plainRead(String sql, int columns) throws Exception {
    List<Row> rows = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        Row r = new Row(columns);
        for (int i = 0; i < columns; i++) {
          r.setField(i, rs.getObject(i + 1));
        }
        rows.add(r);
      }
    }
    return rows;
  }

  private record Outcome(
      List<Row> rows, List<BadRow> bad, JobExecutionResult result, Set<Integer> readers) {}

  private Outcome read(String location, TableSchema schema, List<String> keys) throws Exception {
    StreamExecutionEnvironment env = FLINK.batchEnv();
    SourceResult<Row> read = TableSource.read(env, "t", location, schema, CsvOptions.DEFAULT, keys);
    // which parallel readers produced rows: the subtask index of the (chained) parser's map
    CloseableIterator<Integer> subtasks =
        read.rows()
            .map(
                new RichMapFunction<Row, Integer>() {
                  @Override
                  public Integer map(Row r) {
                    return getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
                  }
                })
            .collectAsync();
    CloseableIterator<Row> rows = read.rows().collectAsync();
    CloseableIterator<BadRow> bad = read.quarantined().collectAsync();
    JobExecutionResult result = env.execute("read jdbc");
    return new Outcome(drain(rows), drain(bad), result, new HashSet<>(drain(subtasks)));
  }

  @Test
  void discoversTheSchemaFromTheTable() throws Exception {
    TableSchema schema = SchemaDiscovery.discover(url + "&table=people");
    assertEquals(
        new TableSchema(
            List.of(
                new Column("id", ColumnType.BIGINT, false),
                new Column("name", ColumnType.STRING, true),
                new Column("visits", ColumnType.INT, true),
                new Column("score", ColumnType.DOUBLE, true),
                new Column("ratio", ColumnType.FLOAT, true),
                new Column("active", ColumnType.BOOLEAN, true),
                new Column("blob", ColumnType.BYTES, true),
                new Column("amount", ColumnType.BIGINT, true),
                new Column("price", ColumnType.STRING, true),
                new Column("born", ColumnType.STRING, false))),
        schema);
  }

  @Test
  void readsByPrimaryKeyRangesInParallelLikeAPlainSelect() throws Exception {
    String location = url + "&table=people";
    TableSchema schema = SchemaDiscovery.discover(location);
    Outcome out = read(location, schema, List.of());
    List<Row> expected = new ArrayList<>();
    for (Row r :
        plainRead(
            "SELECT id, name, visits, score, ratio, active, blob, amount,"
                + " price::text, born::text FROM people",
            10)) {
      r.setField(
          7,
          r.getField(7) == null ? null : ((java.math.BigDecimal) r.getField(7)).longValueExact());
      expected.add(r);
    }
    assertEquals(2500, expected.size());
    assertSameRows(expected, out.rows());
    assertEquals(List.of(), out.bad());
    assertEquals(Set.of(0, 1), out.readers(), "both parallel readers got splits");

    List<JdbcSplit> splits = JdbcTable.parse(location).plan(2);
    assertEquals(4, splits.size(), splits.toString()); // 2 x parallelism, the key is NOT NULL
    assertTrue(splits.get(0).where().startsWith("\"id\" < "), splits.toString());
  }

  @Test
  void readsATableWithoutKeyByBlocksAndQuarantinesNullKeys() throws Exception {
    String location = url + "&table=events&partitions=5";
    TableSchema schema = SchemaDiscovery.discover(location);
    Outcome out = read(location, schema, List.of("n"));
    List<Row> all = plainRead("SELECT kind, n FROM events", 2);
    List<Row> expected = all.stream().filter(r -> r.getField(1) != null).toList();
    assertEquals(19600, expected.size());
    assertSameRows(expected, out.rows());
    assertEquals(400, out.bad().size());
    for (BadRow b : out.bad()) {
      assertEquals("column 'n': NULL in a join key column (it can never match)", b.reason());
      assertTrue(b.source().contains("table events (split "), b.source());
      assertTrue(b.raw().matches("k\\d+,"), b.raw());
    }
    assertEquals(400L, (Long) out.result().getAccumulatorResult("t.rowsQuarantined"));
    assertEquals(
        400L,
        (Long)
            out.result()
                .getAccumulatorResult(
                    io.psiflink.api.JobMetricNames.Accumulators.rowsWithNullKeyQuarantined("t")));
    assertEquals(Set.of(0, 1), out.readers());
    List<JdbcSplit> splits = JdbcTable.parse(location).plan(2);
    assertEquals(5, splits.size(), splits.toString());
    assertTrue(splits.get(0).where().startsWith("ctid < "), splits.toString());
  }

  @Test
  void aTextPartitionColumnSplitsByHashAndANullablePartitionColumnKeepsItsNulls() throws Exception {
    String byText = url + "&table=events&partition-column=kind&partitions=3";
    Outcome out = read(byText, SchemaDiscovery.discover(byText), List.of());
    assertSameRows(plainRead("SELECT kind, n FROM events", 2), out.rows());

    String byNullable = url + "&table=events&partition-column=n&partitions=4";
    Outcome out2 = read(byNullable, SchemaDiscovery.discover(byNullable), List.of());
    assertSameRows(plainRead("SELECT kind, n FROM events", 2), out2.rows());
    List<JdbcSplit> splits = JdbcTable.parse(byNullable).plan(2);
    assertEquals("\"n\" IS NULL", splits.get(splits.size() - 1).where());
  }

  @Test
  void quotedNamesAndANotNullSchemaOverANullableColumn() throws Exception {
    String location = JdbcTable.withTable(url, "Mixed Case");
    TableSchema schema =
        new TableSchema(
            List.of(
                new Column("Key", ColumnType.BIGINT, false),
                new Column("v", ColumnType.STRING, true)));
    Outcome out = read(location, schema, List.of());
    assertSameRows(List.of(Row.of(1L, "one"), Row.of(3L, "three")), out.rows());
    assertEquals(1, out.bad().size());
    assertEquals("column 'Key': NULL in a NOT NULL column", out.bad().get(0).reason());
    assertEquals(",none", out.bad().get(0).raw());
  }

  @Test
  void hostileLocationsFailNamingTheCause() throws Exception {
    TableException noTable =
        assertThrows(TableException.class, () -> SchemaDiscovery.discover(url));
    assertTrue(noTable.getMessage().contains("names no table"), noTable.getMessage());
    TableException missing =
        assertThrows(TableException.class, () -> SchemaDiscovery.discover(url + "&table=nope"));
    assertTrue(missing.getMessage().contains("nope"), missing.getMessage());
    TableException other =
        assertThrows(
            TableException.class,
            () -> JdbcTable.parse("jdbc:mysql://h/db?table=t&password=secret"));
    assertTrue(other.getMessage().contains("only PostgreSQL"), other.getMessage());
    assertTrue(other.getMessage().contains("password=***"), other.getMessage());
    TableException wrongType =
        assertThrows(
            TableException.class,
            () ->
                TableSource.read(
                    FLINK.batchEnv(),
                    "t",
                    url + "&table=events",
                    new TableSchema(List.of(new Column("kind", ColumnType.BIGINT, true))),
                    CsvOptions.DEFAULT,
                    List.of()));
    assertTrue(
        wrongType.getMessage().contains("column 'kind' is STRING, not BIGINT"),
        wrongType.getMessage());
    assertThrows(IllegalArgumentException.class, () -> JdbcTable.withTable(url + "&table=a", "b"));
  }

  @Test
  void passwordFromTheUrlIsNotPassedOnWithOurParameters() throws Exception {
    JdbcTable t = JdbcTable.parse(url + "&table=people&partition-column=id&partitions=3");
    assertEquals(url, t.url());
    assertEquals("people", t.table());
    assertEquals("id", t.partitionColumn());
    assertEquals(3, t.partitions());
    try (Connection c = t.connect();
        PreparedStatement p = c.prepareStatement("SELECT count(*) FROM people")) {
      try (ResultSet rs = p.executeQuery()) {
        rs.next();
        assertEquals(2500, rs.getInt(1));
      }
    }
  }
}
