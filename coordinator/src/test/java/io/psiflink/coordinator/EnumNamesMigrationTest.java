package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.psiflink.api.OutputFormat;
import io.psiflink.api.Role;
import io.psiflink.connectors.PostgresServer;
import io.psiflink.coordinator.Model.Dataset;
import io.psiflink.coordinator.Model.QueryRecord;
import io.psiflink.coordinator.Model.SessionRecord;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * V4_2 and V4_3 (table formats): rows written before them, with the lower-case words the
 * coordinator stored then (written here as plain SQL, as that coordinator wrote them), read back as
 * enums afterwards; and new rows hold the enum names.
 */
class EnumNamesMigrationTest {
  private static final String Q = "00000000-0000-4000-8000-000000000001";
  private static final String S = "00000000-0000-4000-8000-000000000002";

  @Test
  void sqlite(@TempDir Path dir) throws Exception {
    check(new Db("jdbc:sqlite:" + dir.resolve("c.db"), null, null));
  }

  @Test
  void postgresql() throws Exception {
    try (PostgresServer pg = PostgresServer.start()) {
      check(new Db(pg.createDatabase("enum_names"), null, null));
    }
  }

  private static void check(Db db) throws Exception {
    db.migrate("4.1");
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.executeUpdate(
          "INSERT INTO datasets (name, location, format, schema_json, key_columns,"
              + " reveal_columns, filter_columns, status, created_at, retired_at, public_size) VALUES"
              + " ('d', '/x', 'csv', '[{\"name\":\"k\",\"type\":\"BIGINT\",\"nullable\":false}]',"
              + " '[\"k\"]', '[]', '[]', 'retired', 1, 2, 'exact')");
      s.executeUpdate(
          "INSERT INTO queries (id, direction, requester, approver, local_side,"
              + " local_dataset, peer_dataset, sql_text, fingerprint, bins, sigma, protocol,"
              + " requester_endpoint, requester_fingerprint, status, status_reason, created_at,"
              + " expires_at, decided_at, output_location, output_format) VALUES ('"
              + Q
              + "',"
              + " 'incoming', 'bob', 'alice', 'B', 'd', 'e', 'SELECT 1', 'f', 0, 40, 'kkrt', 'b:1',"
              + " 'fp', 'approved', null, 1, 2, 3, '/o', 'csv')");
      s.executeUpdate(
          "INSERT INTO approvals (query_id, decision, decided_by, reason, decided_at)"
              + " VALUES ('"
              + Q
              + "', 'approved', 'alice', null, 3)");
      s.executeUpdate(
          "INSERT INTO sessions (id, query_id, party_a, party_b, bins, sigma,"
              + " protocol, a_endpoint, a_fingerprint, b_endpoint, b_fingerprint, status, created_at,"
              + " phase, bins_done, bins_total, result_location, result_format) VALUES ('"
              + S
              + "', '"
              + Q
              + "', 'bob', 'alice', 0, 40, 'kkrt', 'b:1', 'fa', 'a:1', 'fb', 'running',"
              + " 3, 'lookup_payload', 2, 8, '/r', 'avro')");
    }
    db.migrate();

    Dataset d = db.tx(c -> Store.dataset(c, "d")).orElseThrow();
    assertEquals(Model.DatasetStatus.RETIRED, d.status());
    assertEquals(OutputFormat.CSV, d.format());
    QueryRecord q = db.tx(c -> Store.query(c, Q)).orElseThrow();
    assertEquals(Model.Direction.INCOMING, q.direction());
    assertEquals(Model.QueryStatus.APPROVED, q.status());
    assertEquals(Role.B, q.localSide());
    assertEquals(new Model.Output("/o", OutputFormat.CSV), q.output());
    assertEquals(
        Model.Decision.APPROVED, db.tx(c -> Store.approval(c, Q)).orElseThrow().decision());
    SessionRecord s = db.tx(c -> Store.session(c, S)).orElseThrow();
    assertEquals(Model.SessionStatus.RUNNING, s.status());
    assertEquals(new Model.Progress(Model.Phase.LOOKUP_PAYLOAD, 2, 8L), s.progress());
    assertEquals(OutputFormat.AVRO, s.result().format());

    // what the store writes from now on: the names
    assertEquals(
        true,
        db.tx(
            c -> Store.endSession(c, S, Model.SessionStatus.CANCELLED, null, null, null, null, 4)));
    try (Connection c = db.connect();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT s.status, s.phase, q.status, q.direction,"
                    + " q.local_side, a.decision, d.status, d.format, q.output_format FROM sessions s,"
                    + " queries q, approvals a, datasets d")) {
      rs.next();
      assertEquals(
          "CANCELLED LOOKUP_PAYLOAD APPROVED INCOMING B APPROVED RETIRED CSV CSV",
          String.join(
              " ",
              rs.getString(1),
              rs.getString(2),
              rs.getString(3),
              rs.getString(4),
              rs.getString(5),
              rs.getString(6),
              rs.getString(7),
              rs.getString(8),
              rs.getString(9)));
    }
  }
}
