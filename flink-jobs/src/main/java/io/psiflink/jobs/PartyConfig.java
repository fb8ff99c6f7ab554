package io.psiflink.jobs;

import io.psiflink.api.HostPort;
import io.psiflink.api.JoinMode;
import io.psiflink.api.OutputFormat;
import io.psiflink.api.PartyConfiguration;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.Prefilter;
import io.psiflink.api.PublicSize;
import io.psiflink.api.Role;
import io.psiflink.api.TypedOption;
import io.psiflink.connectors.BadRowLimit;
import io.psiflink.connectors.CsvOptions;
import io.psiflink.connectors.JdbcTable;
import io.psiflink.connectors.TableFormat;
import io.psiflink.jobs.psi.BridgeEndpoint;
import io.psiflink.nativepsi.ProtocolInfo;
import io.psiflink.query.ExpectedColumns;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Everything one party's job needs: which side it plays, its table, the query, where the output
 * goes, and the session parameters, checked and in the job's own types: made from the typed options
 * of its command line by {@link #of(PartyConfiguration)}. Immutable.
 *
 * @param role {@link Role#A} (table {@code a}, PSI receiver, writes the joined rows) or {@link
 *     Role#B}
 * @param table this party's table: a .csv, .avro or .parquet file or a directory of such part files
 *     ({@link io.psiflink.connectors.TableFiles}), local or hdfs://; or a PostgreSQL JDBC URL
 *     naming a table ({@link io.psiflink.connectors.JdbcTable})
 * @param out output directory (party A only; null for B); it appears only when the job succeeded
 * @param outFormat format of the output (party A)
 * @param quarantine directory for rows that could not be read or have a NULL key (null: not
 *     written, only counted); replaced by each run whose Flink job finishes
 * @param maxBadRows how many quarantined rows fail the job
 * @param csv delimiter and quote of a CSV table
 * @param peer the peer's party name, as in its certificate
 * @param peerCertificateSha256 the SHA-256 of the peer's certificate as the session names it (the
 *     handshake refuses any other), or null to accept any certificate of {@code peer}
 * @param bins requested bin count m, or 0 to choose automatically
 * @param sigma statistical security parameter σ of the padding bound
 * @param protocol native PSI protocol name, one of {@link ProtocolInfo#all()}
 * @param protocolParams extra protocol parameters ("k=v,..."), may be empty
 * @param mode who learns the intersection ({@link JoinMode})
 * @param labelBytes the labeled mode's public label size (B's rows of one key, padded)
 * @param parallelism Flink parallelism of the job (and bins processed at once)
 * @param maxAttempts attempts per bin before the job fails
 * @param workDir local directory for the bins' and Flink's spill files
 * @param publicSize what the peer learns of this party's size ({@link PublicSize})
 * @param expectedColumns the registered columns of this party's dataset (names and types, in
 *     order), or null when there is no registry (e.g. {@code ./psi local}): the job refuses to
 *     start, before the handshake, when the table's columns differ from them
 * @param insecureTestOnly accept σ below {@link #MIN_SIGMA} and a session without a pin of the
 *     peer's (or the helper's) certificate: for tests only ({@value #INSECURE_FLAG})
 * @param prefilter whether a helper pre-filters both sets before the PSI ({@link Prefilter})
 * @param filterBits the prefilter's L (a filter of 2^L bits), 0 to choose it from both sizes
 * @param filterHashes the prefilter's k, 0 to choose it
 * @param expectedOverlap {@link Prefilter#AUTO}: the share of the smaller table's keys the query
 *     expects in the intersection, in [0, 1]
 * @param helper the helper's party name (with {@link Prefilter#HELPER} or {@link Prefilter#AUTO}),
 *     else null
 * @param helperCertificateSha256 the SHA-256 of the helper's certificate, or null to accept any
 *     certificate of {@code helper} from a trusted CA (only with {@code insecureTestOnly})
 * @param group the parties and provider of an n-party join (then {@code role} is party i of n and
 *     {@code peer} is null), or null for a two-party join
 * @param resume whether this run resumes the failed run of the same session whose state is in
 *     {@code workDir} ({@link io.psiflink.jobs.session.ResumeState})
 * @param resumable whether this run keeps what a resume needs (its state and, at party A, the
 *     journal of committed bins); false with {@code --no-resume}
 */
public record PartyConfig(
    Role role,
    String sql,
    String table,
    String out,
    TableFormat outFormat,
    String quarantine,
    BadRowLimit maxBadRows,
    CsvOptions csv,
    String session,
    BridgeEndpoint bridge,
    String peer,
    byte[] peerCertificateSha256,
    int bins,
    int sigma,
    String protocol,
    String protocolParams,
    JoinMode mode,
    int labelBytes,
    int parallelism,
    int maxAttempts,
    String workDir,
    PublicSize publicSize,
    java.util.List<io.psiflink.api.Column> expectedColumns,
    boolean insecureTestOnly,
    Prefilter prefilter,
    int filterBits,
    int filterHashes,
    double expectedOverlap,
    String helper,
    byte[] helperCertificateSha256,
    Group group,
    boolean resume,
    boolean resumable) {

  /**
   * The group of an n-party join: every party's name in index order (the query's table order), the
   * SHA-256 of each one's certificate as the session names it (null entries: not pinned; this
   * party's own is never used), and the outsourcing provider's name and pin.
   */
  public record Group(
      List<String> parties, List<byte[]> pins, String provider, byte[] providerPin) {
    public Group {
      parties = List.copyOf(parties);
      pins = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(pins));
      Objects.requireNonNull(provider, "provider");
      if (parties.size() < 3 || parties.size() > PartyOptions.MAX_PARTIES) {
        throw new IllegalArgumentException(
            PartyOptions.PARTIES.flagName()
                + " names "
                + parties.size()
                + " parties; an n-party join has 3 to "
                + PartyOptions.MAX_PARTIES
                + " (two parties: --peer)");
      }
      if (new java.util.HashSet<>(parties).size() != parties.size()) {
        throw new IllegalArgumentException(
            PartyOptions.PARTIES.flagName() + " names a party twice: " + parties);
      }
      if (pins.size() != parties.size()) {
        throw new IllegalArgumentException(
            PartyOptions.PARTY_CERT_SHA256S.flagName()
                + " has "
                + pins.size()
                + " entries for "
                + parties.size()
                + " parties");
      }
    }

    public int size() {
      return parties.size();
    }
  }

  /** The protocol of an n-party join. */
  public static final String MULTIPARTY_PROTOCOL = "mpsi";

  public static final int DEFAULT_SIGMA = PartyOptions.SIGMA.defaultValue();

  /** The least σ a real session accepts (DESIGN.md: σ >= 40). */
  public static final int MIN_SIGMA = 40;

  /** The command-line flag that lifts the σ and pin checks, named so nobody mistakes it. */
  public static final String INSECURE_FLAG = PartyOptions.INSECURE_TEST_ONLY.flagName();

  public static final int DEFAULT_ATTEMPTS = PartyOptions.ATTEMPTS.defaultValue();
  public static final Duration DEFAULT_PAIR_TIMEOUT = PartyOptions.PAIR_TIMEOUT.defaultValue();
  public static final Duration DEFAULT_IDLE_TIMEOUT = PartyOptions.IDLE_TIMEOUT.defaultValue();

  public PartyConfig {
    Objects.requireNonNull(role, "role");
    if (group == null && !role.equals(Role.A) && !role.equals(Role.B)) {
      throw new IllegalArgumentException(
          "a job plays party A or B of a two-party join, not "
              + role
              + " (an n-party join names its parties with "
              + PartyOptions.PARTIES.flagName()
              + ")");
    }
    if (group != null) {
      checkGroup(role, group, mode, prefilter, insecureTestOnly);
      if (resume) {
        throw new IllegalArgumentException(
            PartyOptions.RESUME.flagName()
                + " resumes a two-party join; run an n-party join again");
      }
    }
    if (resume && !resumable) {
      throw new IllegalArgumentException(
          PartyOptions.RESUME.flagName()
              + " and "
              + PartyOptions.NO_RESUME.flagName()
              + " contradict each other");
    }
    Objects.requireNonNull(sql, "sql");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(session, "session");
    Objects.requireNonNull(bridge, "bridge");
    if (group == null) {
      Objects.requireNonNull(peer, "peer");
    }
    Objects.requireNonNull(workDir, "workDir");
    Objects.requireNonNull(maxBadRows, "maxBadRows");
    Objects.requireNonNull(csv, "csv");
    Objects.requireNonNull(publicSize, "publicSize");
    Objects.requireNonNull(mode, "mode");
    if (labelBytes < PartyOptions.LABEL_BYTES_MIN || labelBytes > PartyOptions.LABEL_BYTES_MAX) {
      throw new IllegalArgumentException(
          PartyOptions.LABEL_BYTES.flagName()
              + " must lie in ["
              + PartyOptions.LABEL_BYTES_MIN
              + ", "
              + PartyOptions.LABEL_BYTES_MAX
              + "], not "
              + labelBytes);
    }
    expectedColumns = expectedColumns == null ? null : java.util.List.copyOf(expectedColumns);
    if (peerCertificateSha256 != null && peerCertificateSha256.length != 32) {
      throw new IllegalArgumentException("the peer certificate's SHA-256 has 32 bytes");
    }
    if (role.index() == 0 && out == null) {
      throw new IllegalArgumentException(
          "party " + role.label() + " writes the joined table: it needs --out");
    }
    if (group == null) {
      ProtocolInfo.byName(protocol); // an unknown name fails here, naming the known ones
    } else if (ProtocolInfo.multiparty().stream().noneMatch(p -> p.name().equals(protocol))) {
      throw new IllegalArgumentException(
          "an n-party join runs a multiparty protocol ("
              + String.join(
                  ", ", ProtocolInfo.multiparty().stream().map(ProtocolInfo::name).toList())
              + "), not '"
              + protocol
              + "'");
    }
    if (bins < 0 || sigma < 1 || sigma > 128 || parallelism < 1 || maxAttempts < 1) {
      throw new IllegalArgumentException(
          "bins >= 0, 1 <= sigma <= 128, parallelism >= 1 and attempts >= 1 are required");
    }
    if (!insecureTestOnly && sigma < MIN_SIGMA) {
      throw new IllegalArgumentException(
          "sigma "
              + sigma
              + " is below "
              + MIN_SIGMA
              + ": the "
              + "padding bound would overflow (and the job fail or leak) with probability above "
              + "2^-"
              + MIN_SIGMA
              + "; refused unless "
              + INSECURE_FLAG
              + " is given (tests only)");
    }
    if (group == null && !insecureTestOnly && peerCertificateSha256 == null) {
      throw new IllegalArgumentException(
          "no pin of the peer's certificate (--peer-cert-sha256): "
              + "any certificate the trusted CAs issued for '"
              + peer
              + "' would be accepted; refused "
              + "unless "
              + INSECURE_FLAG
              + " is given (tests only)");
    }
    Objects.requireNonNull(prefilter, "prefilter");
    if (!(expectedOverlap >= 0 && expectedOverlap <= 1)) {
      throw new IllegalArgumentException(
          PartyOptions.EXPECTED_OVERLAP.flagName() + " must lie in [0, 1], not " + expectedOverlap);
    }
    checkPrefilter(
        prefilter, filterBits, filterHashes, helper, helperCertificateSha256, insecureTestOnly);
  }

  /** An n-party job: its index among the parties, the mpsi options it supports, the pins. */
  private static void checkGroup(
      Role role, Group group, JoinMode mode, Prefilter prefilter, boolean insecureTestOnly) {
    if (!role.isParty() || role.parties() != group.size()) {
      throw new IllegalArgumentException(
          "party "
              + role.label()
              + " is not one of the "
              + group.size()
              + " parties of "
              + PartyOptions.PARTIES.flagName());
    }
    if (mode != JoinMode.BOTH || prefilter != Prefilter.NONE) {
      throw new IllegalArgumentException(
          "an n-party join runs with every party learning the intersection, without a prefilter"
              + " (--mode both, --prefilter none)");
    }
    if (insecureTestOnly) {
      return;
    }
    if (group.providerPin() == null) {
      throw new IllegalArgumentException(
          "no pin of the provider's certificate ("
              + PartyOptions.PROVIDER_CERT_SHA256.flagName()
              + "); refused unless "
              + INSECURE_FLAG
              + " is given (tests only)");
    }
    for (int i = 0; i < group.size(); i++) {
      if (i != role.index() && group.pins().get(i) == null) {
        throw new IllegalArgumentException(
            "no pin of the certificate of party '"
                + group.parties().get(i)
                + "' ("
                + PartyOptions.PARTY_CERT_SHA256S.flagName()
                + "); refused unless "
                + INSECURE_FLAG
                + " is given (tests only)");
      }
    }
  }

  /**
   * The prefilter's own options: L and k in range, and with {@code --prefilter helper} a helper
   * name and (unless insecure) its pin. Whether the query allows a prefilter at all (not COUNT, not
   * the labeled mode) is checked against the query, before the handshake ({@code
   * PrivateJoinJob.plan}).
   */
  private static void checkPrefilter(
      Prefilter prefilter,
      int filterBits,
      int filterHashes,
      String helper,
      byte[] helperCertificateSha256,
      boolean insecureTestOnly) {
    if (filterBits != 0
        && (filterBits < PartyOptions.FILTER_BITS_MIN
            || filterBits > PartyOptions.FILTER_BITS_MAX)) {
      throw new IllegalArgumentException(
          PartyOptions.FILTER_BITS.flagName()
              + " must be 0 (automatic) or lie in ["
              + PartyOptions.FILTER_BITS_MIN
              + ", "
              + PartyOptions.FILTER_BITS_MAX
              + "], not "
              + filterBits);
    }
    if (filterHashes < 0 || filterHashes > PartyOptions.FILTER_HASHES_MAX) {
      throw new IllegalArgumentException(
          PartyOptions.FILTER_HASHES.flagName()
              + " must be 0 (automatic) or lie in [1, "
              + PartyOptions.FILTER_HASHES_MAX
              + "], not "
              + filterHashes);
    }
    if (helperCertificateSha256 != null && helperCertificateSha256.length != 32) {
      throw new IllegalArgumentException("the helper certificate's SHA-256 has 32 bytes");
    }
    if (!prefilter.namesHelper()) {
      return;
    }
    if (helper == null || helper.isBlank()) {
      throw new IllegalArgumentException(
          "--prefilter "
              + prefilter.text()
              + " needs "
              + PartyOptions.HELPER.flagName()
              + ": the party name of the helper that deals the pre-filter's correlations");
    }
    if (!insecureTestOnly && helperCertificateSha256 == null) {
      throw new IllegalArgumentException(
          "no pin of the helper's certificate ("
              + PartyOptions.HELPER_CERT_SHA256.flagName()
              + "): any certificate the trusted CAs issued for '"
              + helper
              + "' would be accepted; refused unless "
              + INSECURE_FLAG
              + " is given (tests only)");
    }
  }

  /** The role's label: {@code A} or {@code B}, or {@code Pi} in an n-party join. */
  public String party() {
    return role.label();
  }

  /**
   * The job's configuration from its typed options: the defaults that depend on other options
   * (output format, work directory) filled in, a JDBC table name joined to its URL, and everything
   * checked.
   *
   * @throws IllegalArgumentException naming the option at fault
   */
  public static PartyConfig of(PartyConfiguration c) {
    Role role = require(c, PartyOptions.PARTY);
    Group group = group(c);
    if (group != null) {
      if (role.parties() == 2) {
        throw new IllegalArgumentException(
            "in an n-party join --party is P1..P" + group.size() + ", not " + role.label());
      }
      if (role.index() >= group.size()) {
        throw new IllegalArgumentException(
            "--party " + role.label() + ": the join has " + group.size() + " parties");
      }
      role = Role.party(role.index(), group.size());
    }
    HostPort hostPort = require(c, PartyOptions.BRIDGE);
    BridgeEndpoint bridge =
        new BridgeEndpoint(
            hostPort.host(),
            hostPort.port(),
            require(c, PartyOptions.CERT).toString(),
            require(c, PartyOptions.KEY).toString(),
            require(c, PartyOptions.CA).toString(),
            c.get(PartyOptions.PAIR_TIMEOUT),
            c.get(PartyOptions.IDLE_TIMEOUT));
    String out = c.get(PartyOptions.OUT);
    String table = require(c, PartyOptions.TABLE);
    if (c.has(PartyOptions.TABLE_NAME)) {
      if (!JdbcTable.isJdbc(table)) {
        throw new IllegalArgumentException(
            "--table-name is for a JDBC URL, not for '" + table + "'");
      }
      table = JdbcTable.withTable(table, c.get(PartyOptions.TABLE_NAME));
    }
    BadRowLimit maxBadRows;
    try {
      maxBadRows = BadRowLimit.parse(c.get(PartyOptions.MAX_BAD_ROWS));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--max-bad-rows: " + e.getMessage(), e);
    }
    String pin = c.get(PartyOptions.PEER_CERT_SHA256);
    String helperPin = c.get(PartyOptions.HELPER_CERT_SHA256);
    String work =
        c.has(PartyOptions.WORK)
            ? c.get(PartyOptions.WORK)
            : System.getProperty("java.io.tmpdir") + "/psi-flink-" + role.label();
    return new PartyConfig(
        role,
        require(c, PartyOptions.SQL),
        table,
        out,
        outputFormat(c.get(PartyOptions.FORMAT), out),
        c.get(PartyOptions.QUARANTINE),
        maxBadRows,
        CsvOptions.of(c.get(PartyOptions.CSV_DELIMITER), c.get(PartyOptions.CSV_QUOTE)),
        require(c, PartyOptions.SESSION),
        bridge,
        group == null ? require(c, PartyOptions.PEER) : null,
        pin == null ? null : java.util.HexFormat.of().parseHex(pin),
        c.get(PartyOptions.BINS),
        c.get(PartyOptions.SIGMA),
        group != null && !c.has(PartyOptions.PROTOCOL)
            ? MULTIPARTY_PROTOCOL
            : c.get(PartyOptions.PROTOCOL),
        c.get(PartyOptions.PROTOCOL_PARAMS),
        c.get(PartyOptions.MODE),
        c.get(PartyOptions.LABEL_BYTES),
        c.get(PartyOptions.PARALLELISM),
        c.get(PartyOptions.ATTEMPTS),
        work,
        c.get(PartyOptions.PUBLIC_SIZE),
        ExpectedColumns.parse(c.get(PartyOptions.EXPECTED_COLUMNS)),
        c.get(PartyOptions.INSECURE_TEST_ONLY),
        c.get(PartyOptions.PREFILTER),
        c.get(PartyOptions.FILTER_BITS),
        c.get(PartyOptions.FILTER_HASHES),
        c.get(PartyOptions.EXPECTED_OVERLAP),
        c.get(PartyOptions.HELPER),
        helperPin == null ? null : java.util.HexFormat.of().parseHex(helperPin),
        group,
        c.get(PartyOptions.RESUME),
        !c.get(PartyOptions.NO_RESUME));
  }

  /** The n-party group of the options, or null without {@code --parties}. */
  private static Group group(PartyConfiguration c) {
    List<String> parties = c.get(PartyOptions.PARTIES);
    if (parties == null) {
      for (TypedOption<?> o :
          List.of(
              PartyOptions.PARTY_CERT_SHA256S,
              PartyOptions.PROVIDER,
              PartyOptions.PROVIDER_CERT_SHA256)) {
        if (c.has(o)) {
          throw new IllegalArgumentException(
              o.flagName() + " is for an n-party join (" + PartyOptions.PARTIES.flagName() + ")");
        }
      }
      return null;
    }
    if (c.has(PartyOptions.PEER) || c.has(PartyOptions.PEER_CERT_SHA256)) {
      throw new IllegalArgumentException(
          "an n-party join (" + PartyOptions.PARTIES.flagName() + ") has no --peer");
    }
    List<String> pinTexts = c.get(PartyOptions.PARTY_CERT_SHA256S);
    List<byte[]> pins = new java.util.ArrayList<>();
    for (int i = 0; i < parties.size(); i++) {
      String t = pinTexts == null || i >= pinTexts.size() ? "-" : pinTexts.get(i);
      pins.add(t.equals("-") ? null : java.util.HexFormat.of().parseHex(t));
    }
    if (pinTexts != null && pinTexts.size() != parties.size()) {
      pins.add(null); // the group names the mismatch
    }
    String providerPin = c.get(PartyOptions.PROVIDER_CERT_SHA256);
    return new Group(
        parties,
        pins,
        require(c, PartyOptions.PROVIDER),
        providerPin == null ? null : java.util.HexFormat.of().parseHex(providerPin));
  }

  /**
   * The output format: {@code --format} if given, else the extension of {@code out} ({@code
   * /x/joined.parquet} is a directory of Parquet part files), else Avro.
   */
  public static TableFormat outputFormat(OutputFormat format, String out) {
    if (format != null) {
      return TableFormat.valueOf(format.name());
    }
    if (out != null) {
      String o = out.endsWith("/") ? out.substring(0, out.length() - 1) : out;
      try {
        return TableFormat.fromPath(o);
      } catch (IllegalArgumentException e) {
        return TableFormat.AVRO;
      }
    }
    return TableFormat.AVRO;
  }

  private static <T> T require(PartyConfiguration c, TypedOption<T> option) {
    T v = c.get(option);
    if (v == null) {
      throw new IllegalArgumentException(option.flagName() + " is required");
    }
    return v;
  }
}
