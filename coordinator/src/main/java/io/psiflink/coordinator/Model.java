package io.psiflink.coordinator;

import java.util.List;

/** The records the coordinator stores and serves (as JSON, field names as here). */
public final class Model {
  private Model() {}

  /** One column of a dataset's schema; {@code type} is a flink-jobs ColumnType name. */
  public record ColumnSpec(String name, String type, Boolean nullable) {}

  /**
   * A dataset of this party.
   *
   * @param keyColumns columns the other party's queries may use in ON
   * @param revealColumns columns that may appear in SELECT (be revealed to the result's receiver)
   * @param filterColumns further columns that may appear in WHERE (key and reveal columns may too)
   * @param status {@code active} or {@code retired}
   */
  public record Dataset(
      String name,
      String location,
      String format,
      List<ColumnSpec> schema,
      List<String> keyColumns,
      List<String> revealColumns,
      List<String> filterColumns,
      String status,
      long createdAt,
      Long retiredAt) {}

  /** A published column: what the peer coordinator may know about a dataset column. */
  public record PublishedColumn(String name, String type, boolean nullable, boolean key,
      boolean reveal, boolean filter) {}

  /** What the peer may see of a dataset: its name and its usable columns, nothing else. */
  public record PublishedDataset(String party, String name, List<PublishedColumn> columns) {}

  /**
   * A query, as seen by this coordinator.
   *
   * @param direction {@code outgoing} (submitted here) or {@code incoming} (submitted at the peer)
   * @param localSide this party's table in the SQL: {@code A} (table a) or {@code B} (table b)
   * @param status pending, approved, rejected, expired, refused (the peer's validation failed) or
   *     failed (the peer could not be reached)
   */
  public record QueryRecord(
      String id,
      String direction,
      String requester,
      String approver,
      String localSide,
      String localDataset,
      String peerDataset,
      String sql,
      String fingerprint,
      int bins,
      int sigma,
      String protocol,
      String requesterEndpoint,
      String requesterFingerprint,
      String status,
      String statusReason,
      long createdAt,
      long expiresAt,
      Long decidedAt) {}

  /** A decision on a query: approved, rejected or expired. */
  public record Approval(String queryId, String decision, String decidedBy, String reason,
      long decidedAt) {}

  /**
   * A session: the public parameters both parties' jobs run with. The token PRF key and the bin
   * seed are not here: the two jobs agree them between themselves (SessionHandshake).
   */
  public record SessionRecord(
      String id,
      String queryId,
      String partyA,
      String partyB,
      int bins,
      int sigma,
      String protocol,
      String aEndpoint,
      String aFingerprint,
      String bEndpoint,
      String bFingerprint,
      String status,
      long createdAt) {}

  /** One entry of the append-only audit log. */
  public record AuditEntry(long seq, long at, String actor, String action, String objectType,
      String objectId, String detail) {}
}
