package io.psiflink.coordinator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psiflink.api.JoinMode;
import io.psiflink.api.Role;
import io.psiflink.coordinator.Model.Approval;
import io.psiflink.coordinator.Model.AuditEntry;
import io.psiflink.coordinator.Model.ColumnSpec;
import io.psiflink.coordinator.Model.Dataset;
import io.psiflink.coordinator.Model.DatasetStatus;
import io.psiflink.coordinator.Model.Decision;
import io.psiflink.coordinator.Model.Direction;
import io.psiflink.coordinator.Model.Phase;
import io.psiflink.coordinator.Model.QueryRecord;
import io.psiflink.coordinator.Model.QueryStatus;
import io.psiflink.coordinator.Model.SessionRecord;
import io.psiflink.coordinator.Model.SessionStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The repository: plain JDBC over {@link Db}. Every method takes the connection of the caller's
 * transaction, so a state change and its audit entry commit together. The audit log is only ever
 * inserted into. Enums are stored by their names ({@code PENDING}, V4_2), roles by their labels.
 */
public final class Store {
  private static final ObjectMapper JSON =
      new ObjectMapper().registerModule(Formats.jsonModule(false)); // lower case in the audit log

  // ------------------------------------------------------------------ datasets

  public static void insertDataset(Connection c, Dataset d) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO datasets (name, location, format,"
                + " schema_json, key_columns, reveal_columns, filter_columns, status, created_at,"
                + " retired_at, public_size, reveal_intersection) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)")) {
      ps.setString(1, d.name());
      ps.setString(2, d.location());
      ps.setString(3, Formats.store(d.format()));
      ps.setString(4, json(d.schema()));
      ps.setString(5, json(d.keyColumns()));
      ps.setString(6, json(d.revealColumns()));
      ps.setString(7, json(d.filterColumns()));
      ps.setString(8, d.status().name());
      ps.setLong(9, d.createdAt());
      setLong(ps, 10, d.retiredAt());
      ps.setString(11, d.publicSize());
      ps.setString(12, d.revealIntersection().name());
      ps.executeUpdate();
    }
  }

  public static Optional<Dataset> dataset(Connection c, String name) throws SQLException {
    List<Dataset> l = datasets(c, "WHERE name = ?", name);
    return l.isEmpty() ? Optional.empty() : Optional.of(l.get(0));
  }

  public static List<Dataset> datasets(Connection c, boolean includeRetired) throws SQLException {
    return includeRetired
        ? datasets(c, "")
        : datasets(c, "WHERE status = ?", DatasetStatus.ACTIVE.name());
  }

  private static List<Dataset> datasets(Connection c, String where, Object... args)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT name, location, format, schema_json,"
                + " key_columns, reveal_columns, filter_columns, status, created_at, retired_at,"
                + " public_size, reveal_intersection FROM datasets "
                + where
                + " ORDER BY name")) {
      bind(ps, args);
      List<Dataset> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new Dataset(
                  rs.getString(1),
                  rs.getString(2),
                  Formats.stored(rs.getString(3)),
                  fromJson(rs.getString(4), new TypeReference<List<ColumnSpec>>() {}),
                  strings(rs.getString(5)),
                  strings(rs.getString(6)),
                  strings(rs.getString(7)),
                  DatasetStatus.valueOf(rs.getString(8)),
                  rs.getLong(9),
                  getLong(rs, 10),
                  rs.getString(11),
                  Model.RevealIntersection.valueOf(rs.getString(12))));
        }
      }
      return out;
    }
  }

  /** Stores what each party learns from a query (JSON), computed when it was validated. */
  public static void setDisclosure(Connection c, String queryId, String json) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE queries SET disclosure_json = ? WHERE id = ?")) {
      ps.setString(1, json);
      ps.setString(2, queryId);
      ps.executeUpdate();
    }
  }

  /** The disclosure JSON of a query, if stored. */
  public static Optional<String> disclosure(Connection c, String queryId) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT disclosure_json FROM queries WHERE id = ?")) {
      ps.setString(1, queryId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.ofNullable(rs.getString(1)) : Optional.empty();
      }
    }
  }

  /** Marks a dataset retired; false if it was not active. */
  public static boolean retireDataset(Connection c, String name, long at) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE datasets SET status = ?, retired_at = ? WHERE name = ? AND status = ?")) {
      bind(ps, DatasetStatus.RETIRED.name(), at, name, DatasetStatus.ACTIVE.name());
      return ps.executeUpdate() == 1;
    }
  }

  // ------------------------------------------------------------------ queries

  private static final String QUERY_COLUMNS =
      "id, direction, requester, approver, local_side,"
          + " local_dataset, peer_dataset, sql_text, fingerprint, bins, sigma, protocol,"
          + " requester_endpoint, requester_fingerprint, status, status_reason, created_at,"
          + " expires_at, decided_at, output_location, output_format, mode, label_bytes,"
          + " prefilter, helper, helper_cert_sha256, filter_bits, filter_hashes,"
          + " expected_overlap_ppm";

  public static void insertQuery(Connection c, QueryRecord q) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO queries ("
                + QUERY_COLUMNS
                + ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) {
      bind(
          ps,
          q.id(),
          q.direction().name(),
          q.requester(),
          q.approver(),
          q.localSide().label(),
          q.localDataset(),
          q.peerDataset(),
          q.sql(),
          q.fingerprint(),
          q.bins(),
          q.sigma(),
          q.protocol(),
          q.requesterEndpoint(),
          q.requesterFingerprint(),
          q.status().name(),
          q.statusReason(),
          q.createdAt(),
          q.expiresAt(),
          q.decidedAt(),
          q.output() == null ? null : q.output().location(),
          q.output() == null ? null : Formats.store(q.output().format()),
          q.mode().name(),
          q.labelBytes(),
          q.prefiltering().prefilter().name(),
          q.prefiltering().helper(),
          q.prefiltering().helperCertSha256(),
          q.prefiltering().filterBits(),
          q.prefiltering().filterHashes(),
          q.prefiltering().expectedOverlapPpm());
      ps.executeUpdate();
    }
  }

  public static Optional<QueryRecord> query(Connection c, String id) throws SQLException {
    List<QueryRecord> l = queries(c, "WHERE id = ?", id);
    return l.isEmpty() ? Optional.empty() : Optional.of(l.get(0));
  }

  public static List<QueryRecord> queries(Connection c, QueryStatus status) throws SQLException {
    return status == null ? queries(c, "") : queries(c, "WHERE status = ?", status.name());
  }

  /** Pending queries whose deadline has passed. */
  public static List<QueryRecord> overdue(Connection c, long now) throws SQLException {
    return queries(c, "WHERE status = ? AND expires_at <= ?", QueryStatus.PENDING.name(), now);
  }

  private static List<QueryRecord> queries(Connection c, String where, Object... args)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT " + QUERY_COLUMNS + " FROM queries " + where + " ORDER BY created_at, id")) {
      bind(ps, args);
      List<QueryRecord> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new QueryRecord(
                  rs.getString(1),
                  Direction.valueOf(rs.getString(2)),
                  rs.getString(3),
                  rs.getString(4),
                  Role.parse(rs.getString(5)),
                  rs.getString(6),
                  rs.getString(7),
                  rs.getString(8),
                  rs.getString(9),
                  rs.getInt(10),
                  rs.getInt(11),
                  rs.getString(12),
                  JoinMode.valueOf(rs.getString(22)),
                  getInt(rs, 23),
                  prefiltering(rs, 24),
                  rs.getString(13),
                  rs.getString(14),
                  QueryStatus.valueOf(rs.getString(15)),
                  rs.getString(16),
                  rs.getLong(17),
                  rs.getLong(18),
                  getLong(rs, 19),
                  rs.getString(20) == null && rs.getString(21) == null
                      ? null
                      : new Model.Output(rs.getString(20), Formats.stored(rs.getString(21)))));
        }
      }
      return out;
    }
  }

  /**
   * Moves a query from {@code pending} to {@code status}; false if it was no longer pending
   * (another decision or the expiry got there first).
   */
  public static boolean decide(Connection c, String id, QueryStatus status, String reason, long at)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE queries SET status = ?,"
                + " status_reason = ?, decided_at = ? WHERE id = ? AND status = ?")) {
      bind(ps, status.name(), reason, at, id, QueryStatus.PENDING.name());
      return ps.executeUpdate() == 1;
    }
  }

  // ------------------------------------------------------------------ approvals, sessions

  public static void insertApproval(Connection c, Approval a) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO approvals (query_id, decision,"
                + " decided_by, reason, decided_at) VALUES (?,?,?,?,?)")) {
      bind(ps, a.queryId(), a.decision().name(), a.decidedBy(), a.reason(), a.decidedAt());
      ps.executeUpdate();
    }
  }

  public static Optional<Approval> approval(Connection c, String queryId) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT query_id, decision, decided_by, reason,"
                + " decided_at FROM approvals WHERE query_id = ?")) {
      ps.setString(1, queryId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next()
            ? Optional.of(
                new Approval(
                    rs.getString(1),
                    Decision.valueOf(rs.getString(2)),
                    rs.getString(3),
                    rs.getString(4),
                    rs.getLong(5)))
            : Optional.empty();
      }
    }
  }

  private static final String SESSION_COLUMNS =
      "id, query_id, party_a, party_b, bins, sigma,"
          + " protocol, a_endpoint, a_fingerprint, b_endpoint, b_fingerprint, status, created_at,"
          + " phase, bins_done, bins_total, error, result_location, result_format, rows_out,"
          + " started_at, ended_at, mode, label_bytes, prefilter, helper, helper_cert_sha256,"
          + " filter_bits, filter_hashes, expected_overlap_ppm";

  public static void insertSession(Connection c, SessionRecord s) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO sessions ("
                + SESSION_COLUMNS
                + ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) {
      bind(
          ps,
          s.id(),
          s.queryId(),
          s.partyA(),
          s.partyB(),
          s.bins(),
          s.sigma(),
          s.protocol(),
          s.aEndpoint(),
          s.aFingerprint(),
          s.bEndpoint(),
          s.bFingerprint(),
          s.status().name(),
          s.createdAt(),
          s.progress() == null ? null : s.progress().phase().name(),
          s.progress() == null ? null : s.progress().binsDone(),
          s.progress() == null ? null : s.progress().binsTotal(),
          s.error(),
          s.result() == null ? null : s.result().location(),
          s.result() == null ? null : Formats.store(s.result().format()),
          s.result() == null ? null : s.result().rowsOut(),
          s.startedAt(),
          s.endedAt(),
          s.mode().name(),
          s.labelBytes(),
          s.prefiltering().prefilter().name(),
          s.prefiltering().helper(),
          s.prefiltering().helperCertSha256(),
          s.prefiltering().filterBits(),
          s.prefiltering().filterHashes(),
          s.prefiltering().expectedOverlapPpm());
      ps.executeUpdate();
    }
  }

  /**
   * The tables of sessions, which share their job state columns: one launcher follows the jobs of
   * both.
   */
  public enum SessionTable {
    /** Two-party sessions. */
    TWO_PARTY("sessions"),
    /** n-party sessions. */
    GROUP("group_sessions");

    final String table;

    SessionTable(String table) {
      this.table = table;
    }
  }

  /** created → running (the job is launched); false if the session was not {@code created}. */
  public static boolean startSession(Connection c, String id, long at) throws SQLException {
    return startSession(c, SessionTable.TWO_PARTY, id, at);
  }

  /** As above, in the sessions table {@code t}. */
  public static boolean startSession(Connection c, SessionTable t, String id, long at)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE "
                + t.table
                + " SET status = ?,"
                + " phase = ?, bins_done = 0, started_at = ? WHERE id = ? AND status = ?")) {
      bind(
          ps,
          SessionStatus.RUNNING.name(),
          Phase.HANDSHAKE.name(),
          at,
          id,
          SessionStatus.CREATED.name());
      return ps.executeUpdate() == 1;
    }
  }

  /** Records a running job's progress; false if it is no longer running. */
  public static boolean progress(Connection c, String id, Model.Progress p) throws SQLException {
    return progress(c, SessionTable.TWO_PARTY, id, p);
  }

  /** As above, in the sessions table {@code t}. */
  public static boolean progress(Connection c, SessionTable t, String id, Model.Progress p)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE "
                + t.table
                + " SET phase = ?, bins_done = ?,"
                + " bins_total = ? WHERE id = ? AND status = ?")) {
      bind(ps, p.phase().name(), p.binsDone(), p.binsTotal(), id, SessionStatus.RUNNING.name());
      return ps.executeUpdate() == 1;
    }
  }

  /**
   * Ends a session that has not ended yet (created or running): its final status, error, result and
   * the job's summary JSON; false if it had already ended.
   */
  public static boolean endSession(
      Connection c,
      String id,
      SessionStatus status,
      String error,
      Model.Progress progress,
      Model.Result result,
      String summaryJson,
      long at)
      throws SQLException {
    return endSession(
        c, SessionTable.TWO_PARTY, id, status, error, progress, result, summaryJson, at);
  }

  /** As above, in the sessions table {@code t}. */
  public static boolean endSession(
      Connection c,
      SessionTable t,
      String id,
      SessionStatus status,
      String error,
      Model.Progress progress,
      Model.Result result,
      String summaryJson,
      long at)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE "
                + t.table
                + " SET status = ?, error = ?,"
                + " phase = COALESCE(?, phase), bins_done = COALESCE(?, bins_done),"
                + " bins_total = COALESCE(?, bins_total), result_location = ?, result_format = ?,"
                + " rows_out = ?, summary_json = ?, ended_at = ?"
                + " WHERE id = ? AND status IN (?, ?)")) {
      bind(
          ps,
          status.name(),
          error,
          progress == null ? null : progress.phase().name(),
          progress == null ? null : progress.binsDone(),
          progress == null ? null : progress.binsTotal(),
          result == null ? null : result.location(),
          result == null ? null : Formats.store(result.format()),
          result == null ? null : result.rowsOut(),
          summaryJson,
          at,
          id,
          SessionStatus.CREATED.name(),
          SessionStatus.RUNNING.name());
      return ps.executeUpdate() == 1;
    }
  }

  /**
   * A failed two-party session is created again, to be launched with {@code --resume}: its error,
   * end, result and progress are cleared and its resume count goes up. False unless it was one of
   * {@code from}.
   */
  public static boolean resumeSession(Connection c, String id, SessionStatus... from)
      throws SQLException {
    String in = String.join(", ", java.util.Collections.nCopies(from.length, "?"));
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE sessions SET status = ?, error = NULL, ended_at = NULL, started_at = NULL,"
                + " result_location = NULL, result_format = NULL, rows_out = NULL,"
                + " summary_json = NULL, job_process = NULL, bins_done = 0,"
                + " resumes = resumes + 1 WHERE id = ? AND status IN ("
                + in
                + ")")) {
      Object[] args = new Object[2 + from.length];
      args[0] = SessionStatus.CREATED.name();
      args[1] = id;
      for (int i = 0; i < from.length; i++) {
        args[2 + i] = from[i].name();
      }
      bind(ps, args);
      return ps.executeUpdate() == 1;
    }
  }

  /** How often two-party session {@code id} was resumed (0: a first run). */
  public static int sessionResumes(Connection c, String id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT resumes FROM sessions WHERE id = ?")) {
      bind(ps, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getInt(1) : 0;
      }
    }
  }

  /** Every two-party session's resume count that is not 0, by id. */
  public static Map<String, Integer> sessionResumes(Connection c) throws SQLException {
    Map<String, Integer> m = new java.util.HashMap<>();
    try (PreparedStatement ps =
            c.prepareStatement("SELECT id, resumes FROM sessions WHERE resumes > 0");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        m.put(rs.getString(1), rs.getInt(2));
      }
    }
    return m;
  }

  /** Records how a session's job runs (JSON; JobLauncher.JobProcess), for a re-attach. */
  public static void setJobProcess(Connection c, SessionTable t, String id, String json)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE " + t.table + " SET job_process = ? WHERE id = ?")) {
      bind(ps, json, id);
      ps.executeUpdate();
    }
  }

  /** How a session's job runs, as recorded at its launch (null if not recorded). */
  public static String jobProcess(Connection c, SessionTable t, String id) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT job_process FROM " + t.table + " WHERE id = ?")) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  /** How many sessions of either kind have a running job here. */
  public static int runningJobs(Connection c) throws SQLException {
    int n = 0;
    for (SessionTable t : SessionTable.values()) {
      try (PreparedStatement ps =
          c.prepareStatement("SELECT COUNT(*) FROM " + t.table + " WHERE status = ?")) {
        ps.setString(1, SessionStatus.RUNNING.name());
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          n += rs.getInt(1);
        }
      }
    }
    return n;
  }

  /** The job summary JSON a session ended with (null if none). */
  public static String sessionSummary(Connection c, String id) throws SQLException {
    return sessionSummary(c, SessionTable.TWO_PARTY, id);
  }

  /** As above, in the sessions table {@code t}. */
  public static String sessionSummary(Connection c, SessionTable t, String id) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT summary_json FROM " + t.table + " WHERE id = ?")) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  public static List<SessionRecord> sessionsWithStatus(Connection c, SessionStatus status)
      throws SQLException {
    return sessions(c, "WHERE status = ?", status.name());
  }

  public static Optional<SessionRecord> session(Connection c, String id) throws SQLException {
    List<SessionRecord> l = sessions(c, "WHERE id = ?", id);
    return l.isEmpty() ? Optional.empty() : Optional.of(l.get(0));
  }

  public static Optional<SessionRecord> sessionOfQuery(Connection c, String queryId)
      throws SQLException {
    List<SessionRecord> l = sessions(c, "WHERE query_id = ?", queryId);
    return l.isEmpty() ? Optional.empty() : Optional.of(l.get(0));
  }

  public static List<SessionRecord> sessions(Connection c) throws SQLException {
    return sessions(c, "");
  }

  private static List<SessionRecord> sessions(Connection c, String where, Object... args)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT " + SESSION_COLUMNS + " FROM sessions " + where + " ORDER BY created_at, id")) {
      bind(ps, args);
      List<SessionRecord> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new SessionRecord(
                  rs.getString(1),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getInt(5),
                  rs.getInt(6),
                  rs.getString(7),
                  JoinMode.valueOf(rs.getString(23)),
                  getInt(rs, 24),
                  prefiltering(rs, 25),
                  rs.getString(8),
                  rs.getString(9),
                  rs.getString(10),
                  rs.getString(11),
                  SessionStatus.valueOf(rs.getString(12)),
                  rs.getLong(13),
                  jobProgress(rs, 14),
                  rs.getString(17),
                  jobResult(rs, 18),
                  getLong(rs, 21),
                  getLong(rs, 22)));
        }
      }
      return out;
    }
  }

  /**
   * A job's progress from the columns phase, bins_done, bins_total from {@code first} on (both
   * session tables have them); null before the job ran.
   */
  static Model.Progress jobProgress(ResultSet rs, int first) throws SQLException {
    String phase = rs.getString(first);
    Long done = getLong(rs, first + 1);
    return phase == null
        ? null
        : new Model.Progress(Phase.valueOf(phase), done == null ? 0 : done, getLong(rs, first + 2));
  }

  /**
   * A job's result from the columns result_location, result_format, rows_out from {@code first} on;
   * null unless it wrote one.
   */
  static Model.Result jobResult(ResultSet rs, int first) throws SQLException {
    String location = rs.getString(first);
    return location == null
        ? null
        : new Model.Result(
            location, Formats.stored(rs.getString(first + 1)), getLong(rs, first + 2));
  }

  // ------------------------------------------------------------------ audit log (append-only)

  public static void audit(
      Connection c,
      long at,
      String actor,
      String action,
      String objectType,
      String objectId,
      String detail)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO audit_log (at, actor, action,"
                + " object_type, object_id, detail) VALUES (?,?,?,?,?,?)")) {
      bind(ps, at, actor, action, objectType, objectId, detail);
      ps.executeUpdate();
    }
  }

  /** Entries with {@code seq > after}, oldest first, at most {@code limit}. */
  public static List<AuditEntry> audit(Connection c, long after, int limit) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT seq, at, actor, action, object_type,"
                + " object_id, detail FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?")) {
      bind(ps, after, limit);
      List<AuditEntry> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new AuditEntry(
                  rs.getLong(1),
                  rs.getLong(2),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getString(5),
                  rs.getString(6),
                  rs.getString(7)));
        }
      }
      return out;
    }
  }

  // ------------------------------------------------------------------ helpers

  static void bind(PreparedStatement ps, Object... args) throws SQLException {
    for (int i = 0; i < args.length; i++) {
      Object a = args[i];
      if (a == null) {
        ps.setNull(i + 1, Types.NULL); // untyped, so PostgreSQL infers the column type
      } else if (a instanceof String s) {
        ps.setString(i + 1, s);
      } else if (a instanceof Integer n) {
        ps.setInt(i + 1, n);
      } else if (a instanceof Long n) {
        ps.setLong(i + 1, n);
      } else {
        throw new IllegalArgumentException("cannot bind " + a.getClass());
      }
    }
  }

  private static void setLong(PreparedStatement ps, int i, Long v) throws SQLException {
    if (v == null) {
      ps.setNull(i, Types.BIGINT);
    } else {
      ps.setLong(i, v);
    }
  }

  /**
   * The six prefilter columns from {@code first} on (prefilter, helper, pin, bits, hashes, expected
   * overlap).
   */
  private static Model.Prefiltering prefiltering(ResultSet rs, int first) throws SQLException {
    return new Model.Prefiltering(
        io.psiflink.api.Prefilter.valueOf(rs.getString(first)),
        rs.getString(first + 1),
        rs.getString(first + 2),
        rs.getInt(first + 3),
        rs.getInt(first + 4),
        rs.getInt(first + 5));
  }

  static Integer getInt(ResultSet rs, int i) throws SQLException {
    int v = rs.getInt(i);
    return rs.wasNull() ? null : v;
  }

  static Long getLong(ResultSet rs, int i) throws SQLException {
    long v = rs.getLong(i);
    return rs.wasNull() ? null : v;
  }

  static String json(Object o) {
    try {
      return JSON.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static <T> T fromJson(String s, TypeReference<T> type) {
    try {
      return JSON.readValue(s, type);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("corrupt JSON in the database: " + e.getMessage(), e);
    }
  }

  private static List<String> strings(String s) {
    return fromJson(s, new TypeReference<List<String>>() {});
  }
}
