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
   * @param publicSize what the peer learns of the dataset's size in every join: {@code rounded}
   *     (default), {@code exact} or {@code declared:N} (flink-jobs PublicSize)
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
      Long retiredAt,
      String publicSize) {}

  /** A published column: what the peer coordinator may know about a dataset column. */
  public record PublishedColumn(String name, String type, boolean nullable, boolean key,
      boolean reveal, boolean filter) {}

  /**
   * What the peer may see of a dataset: its name, its usable columns and what the owner discloses
   * of its size ({@code publicSize}), nothing else.
   */
  public record PublishedDataset(String party, String name, List<PublishedColumn> columns,
      String publicSize) {}

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
      Long decidedAt,
      Output output) {}

  /**
   * Where party A writes the joined table of a query (null fields: the coordinator's defaults,
   * {@code output.directory/<session id>} and {@code output.format}).
   */
  public record Output(String location, String format) {}

  /** A decision on a query: approved, rejected or expired. */
  public record Approval(String queryId, String decision, String decidedBy, String reason,
      long decidedAt) {}

  /**
   * A session: the public parameters both parties' jobs run with, and this party's job. The token
   * PRF key and the bin seed are not here: the two jobs agree them between themselves
   * (SessionHandshake).
   *
   * @param status this party's job: {@code created} (approved, not launched), {@code running},
   *     {@code succeeded}, {@code failed}, {@code cancelled}
   * @param progress the job's phase and bins done of total, from Flink (null before it ran)
   * @param error why the job failed (null unless failed)
   * @param result at party A after success: where the joined table is (null otherwise)
   * @param startedAt when the job was launched (epoch ms, null before)
   * @param endedAt when it ended (epoch ms, null before)
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
      long createdAt,
      Progress progress,
      String error,
      Result result,
      Long startedAt,
      Long endedAt) {

    /** A new session: approved, no job launched yet. */
    public SessionRecord(String id, String queryId, String partyA, String partyB, int bins,
        int sigma, String protocol, String aEndpoint, String aFingerprint, String bEndpoint,
        String bFingerprint, long createdAt) {
      this(id, queryId, partyA, partyB, bins, sigma, protocol, aEndpoint, aFingerprint, bEndpoint,
          bFingerprint, "created", createdAt, null, null, null, null, null);
    }

    /** The public parameters of this session as a new one here (the peer's job state dropped). */
    public SessionRecord fresh() {
      return new SessionRecord(id, queryId, partyA, partyB, bins, sigma, protocol, aEndpoint,
          aFingerprint, bEndpoint, bFingerprint, createdAt);
    }

    public boolean ended() {
      return status.equals("succeeded") || status.equals("failed")
          || status.equals("cancelled");
    }
  }

  /**
   * How far a job is: {@code phase} one of handshake, tokenize, bin_spill, psi, lookup_payload,
   * write, done; bins done of total (total null until the job has chosen m).
   */
  public record Progress(String phase, long binsDone, Long binsTotal) {}

  /** The joined table party A wrote: location, format and rows. */
  public record Result(String location, String format, Long rowsOut) {}

  /** One entry of the append-only audit log. */
  public record AuditEntry(long seq, long at, String actor, String action, String objectType,
      String objectId, String detail) {}
}
