package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.psiflink.api.JoinMode;
import io.psiflink.api.Prefilter;
import io.psiflink.api.Role;
import io.psiflink.connectors.PostgresServer;
import io.psiflink.coordinator.Model.Prefiltering;
import io.psiflink.coordinator.Model.QueryRecord;
import io.psiflink.coordinator.Model.SessionRecord;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * V4_5 (the helper's pre-filter): queries and sessions written before it (plain SQL, as a 4.4
 * coordinator wrote them) read back without a pre-filter; rows written after it keep the helper,
 * its pin and the filter's parameters, the prefilter stored by name.
 */
class PrefilterMigrationTest {
  private static final String Q = "00000000-0000-4000-8000-000000000011";
  private static final String S = "00000000-0000-4000-8000-000000000012";
  private static final String Q2 = "00000000-0000-4000-8000-000000000013";
  private static final String S2 = "00000000-0000-4000-8000-000000000014";
  private static final String PIN = "9a".repeat(32);

  @Test
  void sqlite(@TempDir Path dir) throws Exception {
    check(new Db("jdbc:sqlite:" + dir.resolve("c.db"), null, null));
  }

  @Test
  void postgresql() throws Exception {
    try (PostgresServer pg = PostgresServer.start()) {
      check(new Db(pg.createDatabase("prefilter"), null, null));
    }
  }

  private static void check(Db db) throws Exception {
    db.migrate("4.4");
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.executeUpdate(
          "INSERT INTO queries (id, direction, requester, approver, local_side,"
              + " local_dataset, peer_dataset, sql_text, fingerprint, bins, sigma, protocol,"
              + " requester_endpoint, requester_fingerprint, status, status_reason, created_at,"
              + " expires_at, decided_at, output_location, output_format, mode, label_bytes)"
              + " VALUES ('"
              + Q
              + "', 'INCOMING', 'bob', 'alice', 'B', 'd', 'e', 'SELECT 1', 'f', 0, 40, 'kkrt',"
              + " 'b:1', 'fp', 'APPROVED', null, 1, 2, 3, null, null, 'BOTH', null)");
      s.executeUpdate(
          "INSERT INTO sessions (id, query_id, party_a, party_b, bins, sigma,"
              + " protocol, a_endpoint, a_fingerprint, b_endpoint, b_fingerprint, status,"
              + " created_at, mode, label_bytes) VALUES ('"
              + S
              + "', '"
              + Q
              + "', 'bob', 'alice', 0, 40, 'kkrt', 'b:1', 'fa', 'a:1', 'fb', 'CREATED', 3,"
              + " 'LABELED', 256)");
    }
    db.migrate();

    // before the pre-filter, no query had one
    assertEquals(Prefiltering.NONE, db.tx(c -> Store.query(c, Q)).orElseThrow().prefiltering());
    SessionRecord old = db.tx(c -> Store.session(c, S)).orElseThrow();
    assertEquals(Prefiltering.NONE, old.prefiltering());
    assertEquals(JoinMode.LABELED, old.mode());

    Prefiltering carol = new Prefiltering(Prefilter.HELPER, "carol", PIN, 24, 5);
    QueryRecord q =
        new QueryRecord(
            Q2,
            Model.Direction.OUTGOING,
            "alice",
            "bob",
            Role.A,
            "n",
            "e",
            "SELECT b.x FROM a JOIN b ON a.k = b.k",
            "f2",
            0,
            40,
            "rr22",
            JoinMode.BOTH,
            null,
            carol,
            "a:1",
            "fp",
            Model.QueryStatus.APPROVED,
            null,
            5,
            6,
            7L,
            null);
    SessionRecord s =
        new SessionRecord(
            S2,
            Q2,
            "alice",
            "bob",
            0,
            40,
            "rr22",
            JoinMode.BOTH,
            null,
            carol,
            "a:1",
            "fa",
            "b:1",
            "fb",
            7);
    db.tx(
        c -> {
          Store.insertQuery(c, q);
          Store.insertSession(c, s);
          return null;
        });
    assertEquals(q, db.tx(c -> Store.query(c, Q2)).orElseThrow());
    assertEquals(s, db.tx(c -> Store.session(c, S2)).orElseThrow());
    try (Connection c = db.connect();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT q.prefilter, q.helper, q.filter_bits, s.prefilter, s.helper_cert_sha256,"
                    + " s.filter_hashes FROM queries q, sessions s WHERE q.id = '"
                    + Q2
                    + "' AND s.id = '"
                    + S2
                    + "'")) {
      rs.next();
      assertEquals(
          "HELPER carol 24 HELPER " + PIN + " 5",
          String.join(
              " ",
              rs.getString(1),
              rs.getString(2),
              rs.getString(3),
              rs.getString(4),
              rs.getString(5),
              rs.getString(6)));
    }
  }

  /** An inconsistent pre-filter cannot be built (a peer's session is read through this). */
  @Test
  void anInconsistentPrefilterIsRefusedNamingWhy() {
    for (Object[] bad :
        new Object[][] {
          {Prefilter.NONE, "carol", null, 0, 0, "prefilter none has no helper"},
          {Prefilter.NONE, null, null, 20, 0, "prefilter none has no helper"},
          {Prefilter.HELPER, null, PIN, 0, 0, "names its helper"},
          {Prefilter.HELPER, "carol", "xyz", 0, 0, "helperCertSha256"},
          {Prefilter.HELPER, "carol", PIN.toUpperCase(), 0, 0, "helperCertSha256"},
          {Prefilter.HELPER, "carol", PIN, 15, 0, "filterBits"},
          {Prefilter.HELPER, "carol", PIN, 37, 0, "filterBits"},
          {Prefilter.HELPER, "carol", PIN, 0, 17, "filterHashes"},
          {Prefilter.HELPER, "carol", PIN, 0, -1, "filterHashes"},
          {null, null, null, 0, 0, "none, helper or auto"}
        }) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  new Prefiltering(
                      (Prefilter) bad[0],
                      (String) bad[1],
                      (String) bad[2],
                      (Integer) bad[3],
                      (Integer) bad[4]));
      org.junit.jupiter.api.Assertions.assertTrue(
          e.getMessage().contains((String) bad[5]), e.getMessage());
    }
    // the bounds themselves are accepted
    new Prefiltering(Prefilter.HELPER, "carol", PIN, 16, 1);
    new Prefiltering(Prefilter.HELPER, "carol", PIN, 36, 16);
  }
}
