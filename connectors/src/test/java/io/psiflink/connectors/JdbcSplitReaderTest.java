package io.psiflink.connectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Column;
import io.psiflink.api.ColumnType;
import io.psiflink.api.TableSchema;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link JdbcSplitReader} driven directly, as Flink's fetcher thread drives it: bounded batches,
 * each split finished exactly once after its last row, splits read in order over the reader's one
 * connection, and a split that cannot be read failing with its name. The end-to-end reads through
 * Flink are {@link JdbcSourceTest}'s.
 */
class JdbcSplitReaderTest {
  private static PostgresServer pg;
  private static String url;

  @BeforeAll
  static void start() throws Exception {
    pg = PostgresServer.start();
    url = pg.createDatabase("splits");
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE t (id bigint PRIMARY KEY, v integer)");
      s.execute(
          "INSERT INTO t SELECT i, CASE WHEN i % 1000 = 0 THEN NULL ELSE i END"
              + " FROM generate_series(1, 5000) AS i");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (pg != null) {
      pg.close();
    }
  }

  private static final TableSchema SCHEMA =
      new TableSchema(
          List.of(
              new Column("id", ColumnType.BIGINT, false), new Column("v", ColumnType.INT, false)));

  private record Drained(List<Row> records, List<String> finished, int largestBatch) {}

  /** Calls fetch until every added split has finished, as the fetcher does. */
  private static Drained drain(JdbcSplitReader reader, int splits) throws IOException {
    List<Row> records = new ArrayList<>();
    List<String> finished = new ArrayList<>();
    int largest = 0;
    for (int calls = 0; finished.size() < splits; calls++) {
      assertTrue(calls < 1000, "no progress");
      RecordsWithSplitIds<Row> batch = reader.fetch();
      int n = 0;
      for (String id = batch.nextSplit(); id != null; id = batch.nextSplit()) {
        for (Row r = batch.nextRecordFromSplit(); r != null; r = batch.nextRecordFromSplit()) {
          records.add(r);
          n++;
        }
      }
      largest = Math.max(largest, n);
      finished.addAll(batch.finishedSplits());
      batch.recycle();
    }
    return new Drained(records, finished, largest);
  }

  @Test
  void readsSplitsInOrderInBoundedBatchesOverOneConnection() throws Exception {
    JdbcTable table = JdbcTable.parse(JdbcTable.withTable(url, "t"));
    List<JdbcSplit> splits =
        List.of(
            new JdbcSplit("0", "\"id\" <= 2500"),
            new JdbcSplit("1", "\"id\" > 2500"),
            new JdbcSplit("2", "\"id\" > 99999"));
    try (JdbcSourceReader.SharedConnection shared = new JdbcSourceReader.SharedConnection(table)) {
      JdbcSplitReader reader = new JdbcSplitReader(table, SCHEMA, shared);
      assertEquals(0, reader.fetch().finishedSplits().size(), "nothing assigned, nothing read");
      reader.handleSplitsChanges(new SplitsAddition<>(splits.subList(0, 2)));
      Drained d = drain(reader, 2);
      assertEquals(List.of("0", "1"), d.finished());
      assertTrue(d.largestBatch() <= JdbcSplitReader.BATCH_ROWS, "batch " + d.largestBatch());
      assertEquals(5000, d.records().size());
      Set<Long> ids = new HashSet<>();
      int bad = 0;
      for (Row r : d.records()) {
        if (SourceRecord.error(r) != null) {
          bad++;
          assertEquals("column 'v': NULL in a NOT NULL column", SourceRecord.error(r));
          assertTrue(SourceRecord.file(r).contains("(split "), SourceRecord.file(r));
          assertTrue(SourceRecord.raw(r).endsWith(","), SourceRecord.raw(r));
        } else {
          ids.add((Long) ((Row) SourceRecord.payload(r)).getField(0));
          assertNull(SourceRecord.raw(r));
        }
      }
      assertEquals(5, bad);
      assertEquals(4995, ids.size());
      // positions count the rows of each split from 1
      assertEquals(1L, SourceRecord.position(d.records().get(0)));
      assertEquals(2500L, SourceRecord.position(d.records().get(2499)));
      assertEquals(1L, SourceRecord.position(d.records().get(2500)));
      Connection first = shared.get();
      reader.close();
      // a later split reader of the same source reader (a new fetcher) keeps the connection
      JdbcSplitReader next = new JdbcSplitReader(table, SCHEMA, shared);
      next.handleSplitsChanges(new SplitsAddition<>(splits.subList(2, 3)));
      Drained empty = drain(next, 1);
      assertEquals(List.of("2"), empty.finished());
      assertEquals(0, empty.records().size());
      assertSame(first, shared.get());
      assertFalse(first.isClosed());
      next.close();
    }
  }

  /**
   * A server restart: between splits the next split reconnects and every row is read exactly once;
   * in the middle of a split, after rows of it went on, the read fails naming the server.
   */
  @Test
  void aServerRestartBetweenSplitsIsSurvivedAndOneMidSplitFailsNamingTheServer() throws Exception {
    JdbcTable table = JdbcTable.parse(JdbcTable.withTable(url, "t"));
    try (JdbcSourceReader.SharedConnection shared = new JdbcSourceReader.SharedConnection(table)) {
      JdbcSplitReader reader = new JdbcSplitReader(table, SCHEMA, shared);
      reader.handleSplitsChanges(
          new SplitsAddition<>(
              List.of(new JdbcSplit("0", "\"id\" <= 2500"), new JdbcSplit("1", "\"id\" > 2500"))));
      Drained first = drain(reader, 1);
      assertEquals(List.of("0"), first.finished());
      Connection before = shared.get();
      pg.restart();
      Drained second = drain(reader, 1);
      assertEquals(List.of("1"), second.finished());
      assertTrue(before.isClosed(), "the lost connection was dropped");
      Set<String> seen = new HashSet<>();
      for (Drained d : List.of(first, second)) {
        for (Row r : d.records()) {
          // the raw text of bad rows and the id of good ones; each row once
          String key =
              SourceRecord.error(r) != null
                  ? SourceRecord.raw(r)
                  : ((Row) SourceRecord.payload(r)).getField(0).toString();
          assertTrue(seen.add(key), "read twice: " + key);
        }
      }
      assertEquals(5000, seen.size());
      reader.close();

      JdbcSplitReader cut = new JdbcSplitReader(table, SCHEMA, shared);
      cut.handleSplitsChanges(new SplitsAddition<>(List.of(new JdbcSplit("2", "true"))));
      RecordsWithSplitIds<Row> batch = cut.fetch();
      assertEquals("2", batch.nextSplit());
      batch.recycle();
      pg.restart();
      long start = System.nanoTime();
      IOException e = assertThrows(IOException.class, cut::fetch);
      assertTrue((System.nanoTime() - start) / 1e9 < 10, "took too long to fail");
      assertTrue(
          e.getMessage().startsWith("lost the connection to the PostgreSQL server while reading")
              && e.getMessage().contains(pg.address())
              && e.getMessage().contains("(split 2: true) after 2000 of the split's rows"),
          e.getMessage());
      cut.close();
    }
  }

  @Test
  void aSplitThatCannotBeReadFailsNamingItWithoutThePassword() throws Exception {
    JdbcTable table = JdbcTable.parse(JdbcTable.withTable(url, "t"));
    try (JdbcSourceReader.SharedConnection shared = new JdbcSourceReader.SharedConnection(table)) {
      JdbcSplitReader reader = new JdbcSplitReader(table, SCHEMA, shared);
      reader.handleSplitsChanges(new SplitsAddition<>(List.of(new JdbcSplit("7", "nope > 1"))));
      IOException e = assertThrows(IOException.class, reader::fetch);
      assertTrue(e.getMessage().startsWith("cannot read "), e.getMessage());
      assertTrue(e.getMessage().contains("(split 7: nope > 1)"), e.getMessage());
      assertFalse(e.getMessage().contains(PostgresServer.PASSWORD), e.getMessage());
      reader.close();
    }
  }
}
