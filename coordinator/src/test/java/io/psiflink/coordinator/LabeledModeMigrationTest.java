package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.psiflink.api.JoinMode;
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
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * V4_4 (labeled mode): rows written before it (plain SQL, as a 4.3 coordinator wrote them) read
 * back in mode both, without a label size, and their datasets allow the intersection; rows written
 * after it keep a labeled mode, its label size and {@code never}, stored by name.
 */
class LabeledModeMigrationTest {
  private static final String Q = "00000000-0000-4000-8000-000000000001";
  private static final String S = "00000000-0000-4000-8000-000000000002";
  private static final String Q2 = "00000000-0000-4000-8000-000000000003";
  private static final String S2 = "00000000-0000-4000-8000-000000000004";

  @Test
  void sqlite(@TempDir Path dir) throws Exception {
    check(new Db("jdbc:sqlite:" + dir.resolve("c.db"), null, null));
  }

  @Test
  void postgresql() throws Exception {
    try (PostgresServer pg = PostgresServer.start()) {
      check(new Db(pg.createDatabase("labeled_mode"), null, null));
    }
  }

  private static void check(Db db) throws Exception {
    db.migrate("4.3");
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.executeUpdate(
          "INSERT INTO datasets (name, location, format, schema_json, key_columns,"
              + " reveal_columns, filter_columns, status, created_at, retired_at, public_size) VALUES"
              + " ('d', '/x', 'CSV', '[{\"name\":\"k\",\"type\":\"BIGINT\",\"nullable\":false}]',"
              + " '[\"k\"]', '[]', '[]', 'ACTIVE', 1, null, 'rounded')");
      s.executeUpdate(
          "INSERT INTO queries (id, direction, requester, approver, local_side,"
              + " local_dataset, peer_dataset, sql_text, fingerprint, bins, sigma, protocol,"
              + " requester_endpoint, requester_fingerprint, status, status_reason, created_at,"
              + " expires_at, decided_at, output_location, output_format) VALUES ('"
              + Q
              + "', 'INCOMING', 'bob', 'alice', 'B', 'd', 'e', 'SELECT 1', 'f', 0, 40, 'kkrt',"
              + " 'b:1', 'fp', 'APPROVED', null, 1, 2, 3, null, null)");
      s.executeUpdate(
          "INSERT INTO sessions (id, query_id, party_a, party_b, bins, sigma,"
              + " protocol, a_endpoint, a_fingerprint, b_endpoint, b_fingerprint, status,"
              + " created_at) VALUES ('"
              + S
              + "', '"
              + Q
              + "', 'bob', 'alice', 0, 40, 'kkrt', 'b:1', 'fa', 'a:1', 'fb', 'CREATED', 3)");
    }
    db.migrate();

    // before the labeled mode there was only mode both, and no dataset refused it
    Dataset d = db.tx(c -> Store.dataset(c, "d")).orElseThrow();
    assertEquals(Model.RevealIntersection.ALLOWED, d.revealIntersection());
    QueryRecord q = db.tx(c -> Store.query(c, Q)).orElseThrow();
    assertEquals(JoinMode.BOTH, q.mode());
    assertNull(q.labelBytes());
    SessionRecord s = db.tx(c -> Store.session(c, S)).orElseThrow();
    assertEquals(JoinMode.BOTH, s.mode());
    assertNull(s.labelBytes());

    // new rows keep what they were written with
    Dataset never =
        new Dataset(
            "n",
            "/n",
            OutputFormat.CSV,
            List.of(new Model.ColumnSpec("k", "BIGINT", false)),
            List.of("k"),
            List.of(),
            List.of(),
            Model.DatasetStatus.ACTIVE,
            5,
            null,
            "exact",
            Model.RevealIntersection.NEVER);
    QueryRecord labeled =
        new QueryRecord(
            Q2,
            Model.Direction.OUTGOING,
            "alice",
            "bob",
            Role.B,
            "n",
            "e",
            "SELECT a.x FROM a JOIN b ON a.k = b.k",
            "f2",
            0,
            40,
            "rr22",
            JoinMode.LABELED,
            4096,
            Model.Prefiltering.NONE,
            "a:1",
            "fp",
            Model.QueryStatus.APPROVED,
            null,
            5,
            6,
            7L,
            null);
    SessionRecord session =
        new SessionRecord(
            S2,
            Q2,
            "bob",
            "alice",
            0,
            40,
            "rr22",
            JoinMode.LABELED,
            4096,
            Model.Prefiltering.NONE,
            "b:1",
            "fa",
            "a:1",
            "fb",
            7);
    db.tx(
        c -> {
          Store.insertDataset(c, never);
          Store.insertQuery(c, labeled);
          Store.insertSession(c, session);
          return null;
        });
    assertEquals(never, db.tx(c -> Store.dataset(c, "n")).orElseThrow());
    assertEquals(labeled, db.tx(c -> Store.query(c, Q2)).orElseThrow());
    assertEquals(session, db.tx(c -> Store.session(c, S2)).orElseThrow());
    try (Connection c = db.connect();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT q.mode, q.label_bytes, s.mode, s.label_bytes, d.reveal_intersection"
                    + " FROM queries q, sessions s, datasets d WHERE q.id = '"
                    + Q2
                    + "' AND s.id = '"
                    + S2
                    + "' AND d.name = 'n'")) {
      rs.next();
      assertEquals(
          "LABELED 4096 LABELED 4096 NEVER",
          String.join(
              " ",
              rs.getString(1),
              rs.getString(2),
              rs.getString(3),
              rs.getString(4),
              rs.getString(5)));
    }
  }
}
