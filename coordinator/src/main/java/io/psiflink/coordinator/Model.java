package io.psiflink.coordinator;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.psiflink.api.JoinMode;
import io.psiflink.api.OutputFormat;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.Prefilter;
import io.psiflink.api.Role;
import java.util.List;
import java.util.Locale;

/**
 * The records the coordinator stores and serves (as JSON, field names as here). Statuses,
 * directions and decisions are enums: the database stores their names ({@code PENDING}), the API
 * shows them in lower case ({@code pending}, {@link Wire}); roles are {@link Role}s (label A or B).
 */
public final class Model {
  private Model() {}

  /** An enum whose API (JSON) form is its name in lower case. */
  interface Wire {
    String name();

    /** The form the API and the audit log show. */
    @JsonValue
    default String wire() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The constant of {@code type} whose {@link Wire#wire()} form is {@code text}, or null. */
  static <E extends Enum<E> & Wire> E fromWire(Class<E> type, String text) {
    for (E e : type.getEnumConstants()) {
      if (e.wire().equals(text)) {
        return e;
      }
    }
    return null;
  }

  /** Whether a dataset may be used in new queries. */
  public enum DatasetStatus implements Wire {
    ACTIVE,
    RETIRED;

    @JsonCreator
    static DatasetStatus of(String wire) {
      return fromWire(DatasetStatus.class, wire);
    }
  }

  /**
   * Whether the owner of a dataset may learn the intersection of a join with it ({@code
   * revealIntersection}): {@code allowed} (default), or {@code never}: the coordinator refuses any
   * query that would tell the owner which keys (or how many) both tables hold (IntersectionPolicy).
   */
  public enum RevealIntersection implements Wire {
    ALLOWED,
    NEVER;

    @JsonCreator
    static RevealIntersection of(String wire) {
      return fromWire(RevealIntersection.class, wire);
    }
  }

  /** Who submitted a query: this party ({@code outgoing}) or the peer ({@code incoming}). */
  public enum Direction implements Wire {
    OUTGOING,
    INCOMING;

    @JsonCreator
    static Direction of(String wire) {
      return fromWire(Direction.class, wire);
    }
  }

  /** Where a query is in the approval protocol (Coordinator's class comment). */
  public enum QueryStatus implements Wire {
    PENDING,
    APPROVED,
    REJECTED,
    EXPIRED,
    /** The peer's validation refused it. */
    REFUSED,
    /** The peer could not be reached, or never received it. */
    FAILED;

    @JsonCreator
    static QueryStatus of(String wire) {
      return fromWire(QueryStatus.class, wire);
    }
  }

  /** A decision on a pending query. */
  public enum Decision implements Wire {
    APPROVED,
    REJECTED,
    EXPIRED;

    /** The query's status after this decision. */
    QueryStatus status() {
      return QueryStatus.valueOf(name());
    }

    @JsonCreator
    static Decision of(String wire) {
      return fromWire(Decision.class, wire);
    }
  }

  /** This party's job of a session. */
  public enum SessionStatus implements Wire {
    /** Approved, not launched. */
    CREATED,
    RUNNING,
    SUCCEEDED,
    FAILED,
    CANCELLED;

    public boolean ended() {
      return this == SUCCEEDED || this == FAILED || this == CANCELLED;
    }

    @JsonCreator
    static SessionStatus of(String wire) {
      return fromWire(SessionStatus.class, wire);
    }
  }

  /** How far a job is (FlinkProgress). */
  public enum Phase implements Wire {
    HANDSHAKE,
    TOKENIZE,
    BIN_SPILL,
    PSI,
    LOOKUP_PAYLOAD,
    WRITE,
    DONE;

    @JsonCreator
    static Phase of(String wire) {
      return fromWire(Phase.class, wire);
    }
  }

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
   * @param revealIntersection {@code never}: its owner must never learn an intersection with it
   */
  public record Dataset(
      String name,
      String location,
      OutputFormat format,
      List<ColumnSpec> schema,
      List<String> keyColumns,
      List<String> revealColumns,
      List<String> filterColumns,
      DatasetStatus status,
      long createdAt,
      Long retiredAt,
      String publicSize,
      RevealIntersection revealIntersection) {}

  /** A published column: what the peer coordinator may know about a dataset column. */
  public record PublishedColumn(
      String name, String type, boolean nullable, boolean key, boolean reveal, boolean filter) {}

  /**
   * What the peer may see of a dataset: its name, its usable columns, what the owner discloses of
   * its size ({@code publicSize}) and whether the owner may learn an intersection with it ({@code
   * revealIntersection}; null from a coordinator that does not publish it), nothing else.
   */
  public record PublishedDataset(
      String party,
      String name,
      List<PublishedColumn> columns,
      String publicSize,
      RevealIntersection revealIntersection) {}

  /**
   * Whether a query's parties shrink their sets before the PSI, and how: {@code prefilter} none, or
   * helper with the helper's name (its certificate's CN), the SHA-256 pin of its certificate (both
   * coordinators register the helper with this pin), and the filter's size 2^{@code filterBits} and
   * hash count {@code filterHashes} (0: the jobs choose), and with auto the share of the smaller
   * table's keys the query expects in common, in millionths ({@code expectedOverlapPpm}; {@link
   * #ALL} otherwise). The same in the query at both parties, the offer, the session and both jobs'
   * command lines. The canonical constructor refuses an inconsistent one (a peer's session is read
   * through it).
   */
  public record Prefiltering(
      Prefilter prefilter,
      String helper,
      String helperCertSha256,
      int filterBits,
      int filterHashes,
      int expectedOverlapPpm) {
    /** The expected overlap that assumes every key may be common: the default. */
    public static final int ALL = 1_000_000;

    /** No pre-filter. */
    public static final Prefiltering NONE = new Prefiltering(Prefilter.NONE, null, null, 0, 0, ALL);

    /** A pre-filter with the default expected overlap. */
    public Prefiltering(
        Prefilter prefilter,
        String helper,
        String helperCertSha256,
        int filterBits,
        int filterHashes) {
      this(prefilter, helper, helperCertSha256, filterBits, filterHashes, ALL);
    }

    // the one constructor Jackson reads a peer's session with
    @JsonCreator
    public Prefiltering {
      if (prefilter == null) {
        throw new IllegalArgumentException("prefilter must be none, helper or auto");
      }
      if (prefilter == Prefilter.NONE) {
        if (helper != null || helperCertSha256 != null || filterBits != 0 || filterHashes != 0) {
          throw new IllegalArgumentException(
              "prefilter none has no helper, helper pin, filter bits or filter hashes");
        }
      } else {
        if (helper == null || !Requests.PARTY_NAME.matcher(helper).matches()) {
          throw new IllegalArgumentException(
              "prefilter helper names its helper (" + Requests.PARTY_NAME.pattern() + ")");
        }
        if (!Confined.isFingerprint(helperCertSha256)) {
          throw new IllegalArgumentException(
              "helperCertSha256 must be a SHA-256 in hex (64 lower-case digits)");
        }
        if (!validBits(filterBits)) {
          throw new IllegalArgumentException("filterBits " + bitsRule());
        }
        if (!validHashes(filterHashes)) {
          throw new IllegalArgumentException("filterHashes " + hashesRule());
        }
      }
      if (prefilter != Prefilter.AUTO) {
        expectedOverlapPpm = ALL; // only auto reads it (and a peer of before sends none)
      }
      if (expectedOverlapPpm < 0 || expectedOverlapPpm > ALL) {
        throw new IllegalArgumentException(
            "expectedOverlapPpm must lie in [0, " + ALL + "], not " + expectedOverlapPpm);
      }
    }

    /** The expected overlap as a share in [0, 1], as the jobs' --expected-overlap takes it. */
    public double expectedOverlap() {
      return expectedOverlapPpm / (double) ALL;
    }

    /**
     * Whether a helper pre-filters, or may ({@link Prefilter#AUTO}: the jobs decide at their
     * handshake): either way both parties approve the helper and its leakage.
     */
    public boolean helped() {
      return prefilter.namesHelper();
    }

    static boolean validBits(int bits) {
      return bits == 0
          || (bits >= PartyOptions.FILTER_BITS_MIN && bits <= PartyOptions.FILTER_BITS_MAX);
    }

    static boolean validHashes(int hashes) {
      return hashes >= 0 && hashes <= PartyOptions.FILTER_HASHES_MAX;
    }

    static String bitsRule() {
      return "must be 0 (chosen by the jobs) or an integer in ["
          + PartyOptions.FILTER_BITS_MIN
          + ", "
          + PartyOptions.FILTER_BITS_MAX
          + "]";
    }

    static String hashesRule() {
      return "must be 0 (chosen by the jobs) or an integer in [1, "
          + PartyOptions.FILTER_HASHES_MAX
          + "]";
    }
  }

  /**
   * A query, as seen by this coordinator.
   *
   * @param direction {@code outgoing} (submitted here) or {@code incoming} (submitted at the peer)
   * @param localSide this party's table in the SQL: {@code A} (table a) or {@code B} (table b)
   * @param mode who learns the intersection: {@code both} parties, or only A ({@code labeled})
   * @param labelBytes labeled mode: the public size of every key's rows from B; null in mode both
   * @param prefiltering the pre-filter ({@link Prefiltering#NONE} when none)
   * @param status pending, approved, rejected, expired, refused (the peer's validation failed) or
   *     failed (the peer could not be reached)
   */
  public record QueryRecord(
      String id,
      Direction direction,
      String requester,
      String approver,
      Role localSide,
      String localDataset,
      String peerDataset,
      String sql,
      String fingerprint,
      int bins,
      int sigma,
      String protocol,
      JoinMode mode,
      Integer labelBytes,
      Prefiltering prefiltering,
      String requesterEndpoint,
      String requesterFingerprint,
      QueryStatus status,
      String statusReason,
      long createdAt,
      long expiresAt,
      Long decidedAt,
      Output output) {

    public QueryRecord {
      if (prefiltering == null) {
        throw new IllegalArgumentException("a query's prefiltering is required (NONE for none)");
      }
    }
  }

  /**
   * Where party A writes the joined table of a query (null fields: the coordinator's defaults,
   * {@code output.directory/<session id>} and {@code output.format}).
   */
  public record Output(String location, OutputFormat format) {}

  /** A decision on a query: approved, rejected or expired. */
  public record Approval(
      String queryId, Decision decision, String decidedBy, String reason, long decidedAt) {}

  /**
   * A session: the public parameters both parties' jobs run with, and this party's job. The token
   * PRF key and the bin seed are not here: the two jobs agree them between themselves
   * (SessionHandshake).
   *
   * @param mode who learns the intersection (QueryRecord), the same for both jobs
   * @param labelBytes labeled mode: the label size both jobs use; null in mode both
   * @param prefiltering the pre-filter both jobs run (QueryRecord); null only in a peer's malformed
   *     session, which PeerInput refuses
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
      JoinMode mode,
      Integer labelBytes,
      Prefiltering prefiltering,
      String aEndpoint,
      String aFingerprint,
      String bEndpoint,
      String bFingerprint,
      SessionStatus status,
      long createdAt,
      Progress progress,
      String error,
      Result result,
      Long startedAt,
      Long endedAt) {

    // the one constructor Jackson reads a peer's session with
    @JsonCreator
    public SessionRecord {}

    /** A new session: approved, no job launched yet. */
    public SessionRecord(
        String id,
        String queryId,
        String partyA,
        String partyB,
        int bins,
        int sigma,
        String protocol,
        JoinMode mode,
        Integer labelBytes,
        Prefiltering prefiltering,
        String aEndpoint,
        String aFingerprint,
        String bEndpoint,
        String bFingerprint,
        long createdAt) {
      this(
          id,
          queryId,
          partyA,
          partyB,
          bins,
          sigma,
          protocol,
          mode,
          labelBytes,
          prefiltering,
          aEndpoint,
          aFingerprint,
          bEndpoint,
          bFingerprint,
          SessionStatus.CREATED,
          createdAt,
          null,
          null,
          null,
          null,
          null);
    }

    /** The public parameters of this session as a new one here (the peer's job state dropped). */
    public SessionRecord fresh() {
      return new SessionRecord(
          id,
          queryId,
          partyA,
          partyB,
          bins,
          sigma,
          protocol,
          mode,
          labelBytes,
          prefiltering,
          aEndpoint,
          aFingerprint,
          bEndpoint,
          bFingerprint,
          createdAt);
    }

    public boolean ended() {
      return status.ended();
    }

    /** The organisation that plays {@code role} (A or B) in this session. */
    public String party(Role role) {
      return isA(role) ? partyA : partyB;
    }

    /** The bridge endpoint of {@code role}'s party. */
    public String endpoint(Role role) {
      return isA(role) ? aEndpoint : bEndpoint;
    }

    /** The SHA-256 of the certificate {@code role}'s job presents on the bridge. */
    public String fingerprint(Role role) {
      return isA(role) ? aFingerprint : bFingerprint;
    }

    private static boolean isA(Role role) {
      return role.peer().equals(Role.B); // peer(): a two-party role, or IllegalStateException
    }
  }

  /**
   * How far a job is: {@code phase} one of handshake, tokenize, bin_spill, psi, lookup_payload,
   * write, done; bins done of total (total null until the job has chosen m).
   */
  public record Progress(Phase phase, long binsDone, Long binsTotal) {}

  /**
   * A party of an n-party join: its organisation, its dataset (the table of its index in the
   * query's FROM), and the SHA-256 of the certificate its job presents (null until it approved;
   * P1's from the submission).
   */
  public record GroupMember(String party, String dataset, String fingerprint) {
    GroupMember withFingerprint(String fp) {
      return new GroupMember(party, dataset, fp);
    }
  }

  /**
   * An n-party query (three or more organisations), as seen by this coordinator. Party i holds the
   * i-th table of the query's FROM; P1, the first, submitted it (the requester), writes the result
   * and collects every other party's decision.
   *
   * @param localIndex this party's index (0: P1)
   * @param parties the parties in the query's order, with their datasets
   * @param requesterEndpoint P1's bridge endpoint: every party's job dials it
   * @param status pending until every party approved (approved), one rejected or refused, or the
   *     deadline passed
   * @param output at P1: where its job writes the joined table (null: the defaults)
   */
  public record GroupQueryRecord(
      String id,
      Direction direction,
      String requester,
      int localIndex,
      String sql,
      String fingerprint,
      int bins,
      int sigma,
      String provider,
      String providerCertSha256,
      List<GroupMember> parties,
      String requesterEndpoint,
      QueryStatus status,
      String statusReason,
      long createdAt,
      long expiresAt,
      Long decidedAt,
      Output output) {
    public GroupQueryRecord {
      parties = List.copyOf(parties);
    }

    /** This party's entry. */
    public GroupMember local() {
      return parties.get(localIndex);
    }

    /** This party's role: P{localIndex + 1} of n. */
    public Role role() {
      return Role.party(localIndex, parties.size());
    }
  }

  /** One party's decision on an n-party query, with its job's certificate pin when it approved. */
  public record GroupDecision(
      String party, Decision decision, String reason, String fingerprint, long decidedAt) {}

  /**
   * The session of an n-party query, which P1 creates once every party approved: its public
   * parameters (P1's bridge endpoint, every party's certificate pin; the rest is the query's) and
   * this party's job.
   */
  public record GroupSessionRecord(
      String id,
      String queryId,
      String endpoint,
      List<GroupMember> parties,
      SessionStatus status,
      long createdAt,
      Progress progress,
      String error,
      Result result,
      Long startedAt,
      Long endedAt) {
    public GroupSessionRecord {
      parties = parties == null ? null : List.copyOf(parties);
    }

    /** A new session: every party approved, no job launched yet. */
    public GroupSessionRecord(
        String id, String queryId, String endpoint, List<GroupMember> parties, long createdAt) {
      this(
          id,
          queryId,
          endpoint,
          parties,
          SessionStatus.CREATED,
          createdAt,
          null,
          null,
          null,
          null,
          null);
    }

    /**
     * Its public parameters as a new session (what P1 sends; another party's job state dropped).
     */
    public GroupSessionRecord fresh() {
      return new GroupSessionRecord(id, queryId, endpoint, parties, createdAt);
    }

    public boolean ended() {
      return status.ended();
    }
  }

  /** The joined table party A wrote: location, format and rows. */
  public record Result(String location, OutputFormat format, Long rowsOut) {}

  /** One entry of the append-only audit log. */
  public record AuditEntry(
      long seq,
      long at,
      String actor,
      String action,
      String objectType,
      String objectId,
      String detail) {}
}
