package io.psiflink.coordinator;

import com.fasterxml.jackson.core.type.TypeReference;
import io.psiflink.coordinator.Model.Decision;
import io.psiflink.coordinator.Model.Direction;
import io.psiflink.coordinator.Model.GroupDecision;
import io.psiflink.coordinator.Model.GroupMember;
import io.psiflink.coordinator.Model.GroupQueryRecord;
import io.psiflink.coordinator.Model.GroupSessionRecord;
import io.psiflink.coordinator.Model.QueryStatus;
import io.psiflink.coordinator.Model.SessionStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The repository of n-party joins (tables group_queries, group_decisions, group_sessions), plain
 * JDBC in the caller's transaction as {@link Store}; the job state of a group session is written
 * through Store's session methods ({@link Store.SessionTable#GROUP}).
 */
final class GroupStore {
  private GroupStore() {}

  private static final TypeReference<List<GroupMember>> MEMBERS = new TypeReference<>() {};

  private static final String QUERY_COLUMNS =
      "id, direction, requester, local_index, sql_text, fingerprint, bins, sigma, provider,"
          + " provider_cert_sha256, parties_json, requester_endpoint, status, status_reason,"
          + " created_at, expires_at, decided_at, output_location, output_format";

  static void insertQuery(Connection c, GroupQueryRecord q, String disclosure) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO group_queries ("
                + QUERY_COLUMNS
                + ", disclosure_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) {
      Store.bind(
          ps,
          q.id(),
          q.direction().name(),
          q.requester(),
          q.localIndex(),
          q.sql(),
          q.fingerprint(),
          q.bins(),
          q.sigma(),
          q.provider(),
          q.providerCertSha256(),
          Store.json(q.parties()),
          q.requesterEndpoint(),
          q.status().name(),
          q.statusReason(),
          q.createdAt(),
          q.expiresAt(),
          q.decidedAt(),
          q.output() == null ? null : q.output().location(),
          q.output() == null ? null : Formats.store(q.output().format()),
          disclosure);
      ps.executeUpdate();
    }
  }

  static Optional<GroupQueryRecord> query(Connection c, String id) throws SQLException {
    List<GroupQueryRecord> l = queries(c, "WHERE id = ?", id);
    return l.isEmpty() ? Optional.empty() : Optional.of(l.get(0));
  }

  /** All, or those with {@code status}. */
  static List<GroupQueryRecord> queries(Connection c, QueryStatus status) throws SQLException {
    return status == null ? queries(c, "") : queries(c, "WHERE status = ?", status.name());
  }

  static List<GroupQueryRecord> overdue(Connection c, long now) throws SQLException {
    return queries(c, "WHERE status = ? AND expires_at <= ?", QueryStatus.PENDING.name(), now);
  }

  private static List<GroupQueryRecord> queries(Connection c, String where, Object... args)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT "
                + QUERY_COLUMNS
                + " FROM group_queries "
                + where
                + " ORDER BY created_at, id")) {
      Store.bind(ps, args);
      List<GroupQueryRecord> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new GroupQueryRecord(
                  rs.getString(1),
                  Direction.valueOf(rs.getString(2)),
                  rs.getString(3),
                  rs.getInt(4),
                  rs.getString(5),
                  rs.getString(6),
                  rs.getInt(7),
                  rs.getInt(8),
                  rs.getString(9),
                  rs.getString(10),
                  Store.fromJson(rs.getString(11), MEMBERS),
                  rs.getString(12),
                  QueryStatus.valueOf(rs.getString(13)),
                  rs.getString(14),
                  rs.getLong(15),
                  rs.getLong(16),
                  Store.getLong(rs, 17),
                  rs.getString(18) == null && rs.getString(19) == null
                      ? null
                      : new Model.Output(rs.getString(18), Formats.stored(rs.getString(19)))));
        }
      }
      return out;
    }
  }

  static Optional<String> disclosure(Connection c, String id) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT disclosure_json FROM group_queries WHERE id = ?")) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.ofNullable(rs.getString(1)) : Optional.empty();
      }
    }
  }

  /** pending → {@code status}; false if it was no longer pending. */
  static boolean finish(Connection c, String id, QueryStatus status, String reason, long at)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE group_queries SET status = ?, status_reason = ?, decided_at = ?"
                + " WHERE id = ? AND status = ?")) {
      Store.bind(ps, status.name(), reason, at, id, QueryStatus.PENDING.name());
      return ps.executeUpdate() == 1;
    }
  }

  /** Records a party's decision; false if that party had decided already. */
  static boolean insertDecision(Connection c, String queryId, GroupDecision d) throws SQLException {
    if (decisions(c, queryId).stream().anyMatch(x -> x.party().equals(d.party()))) {
      return false;
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO group_decisions (query_id, party, decision, reason, fingerprint,"
                + " decided_at) VALUES (?,?,?,?,?,?)")) {
      Store.bind(
          ps, queryId, d.party(), d.decision().name(), d.reason(), d.fingerprint(), d.decidedAt());
      ps.executeUpdate();
      return true;
    }
  }

  /** The decisions on a query so far, in the order they were made. */
  static List<GroupDecision> decisions(Connection c, String queryId) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT party, decision, reason, fingerprint, decided_at FROM group_decisions"
                + " WHERE query_id = ? ORDER BY decided_at, party")) {
      ps.setString(1, queryId);
      List<GroupDecision> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new GroupDecision(
                  rs.getString(1),
                  Decision.valueOf(rs.getString(2)),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getLong(5)));
        }
      }
      return out;
    }
  }

  private static final String SESSION_COLUMNS =
      "id, query_id, endpoint, parties_json, status, created_at, phase, bins_done, bins_total,"
          + " error, result_location, result_format, rows_out, started_at, ended_at";

  static void insertSession(Connection c, GroupSessionRecord s) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO group_sessions (id, query_id, endpoint, parties_json, status,"
                + " created_at) VALUES (?,?,?,?,?,?)")) {
      Store.bind(
          ps,
          s.id(),
          s.queryId(),
          s.endpoint(),
          Store.json(s.parties()),
          s.status().name(),
          s.createdAt());
      ps.executeUpdate();
    }
  }

  static Optional<GroupSessionRecord> session(Connection c, String id) throws SQLException {
    List<GroupSessionRecord> l = sessions(c, "WHERE id = ?", id);
    return l.isEmpty() ? Optional.empty() : Optional.of(l.get(0));
  }

  static Optional<GroupSessionRecord> sessionOfQuery(Connection c, String queryId)
      throws SQLException {
    List<GroupSessionRecord> l = sessions(c, "WHERE query_id = ?", queryId);
    return l.isEmpty() ? Optional.empty() : Optional.of(l.get(0));
  }

  static List<GroupSessionRecord> sessions(Connection c, SessionStatus status) throws SQLException {
    return status == null ? sessions(c, "") : sessions(c, "WHERE status = ?", status.name());
  }

  private static List<GroupSessionRecord> sessions(Connection c, String where, Object... args)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT "
                + SESSION_COLUMNS
                + " FROM group_sessions "
                + where
                + " ORDER BY created_at, id")) {
      Store.bind(ps, args);
      List<GroupSessionRecord> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new GroupSessionRecord(
                  rs.getString(1),
                  rs.getString(2),
                  rs.getString(3),
                  Store.fromJson(rs.getString(4), MEMBERS),
                  SessionStatus.valueOf(rs.getString(5)),
                  rs.getLong(6),
                  Store.jobProgress(rs, 7),
                  rs.getString(10),
                  Store.jobResult(rs, 11),
                  Store.getLong(rs, 14),
                  Store.getLong(rs, 15)));
        }
      }
      return out;
    }
  }
}
