package io.psiflink.jobs;

import io.psiflink.query.PublicSize;
import io.psiflink.connectors.BadRowLimit;
import io.psiflink.connectors.CsvOptions;
import io.psiflink.connectors.TableFormat;
import io.psiflink.jobs.psi.BridgeEndpoint;
import io.psiflink.nativepsi.ProtocolInfo;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything one party's job needs: which side it plays, its table, the query, where the output
 * goes, and the session parameters. Immutable.
 *
 * @param partyB false for party A (table {@code a}, PSI receiver, writes the joined rows), true for B
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
 * @param parallelism Flink parallelism of the job (and bins processed at once)
 * @param maxAttempts attempts per bin before the job fails
 * @param workDir local directory for Flink's RocksDB and spill files
 * @param publicSize what the peer learns of this party's size ({@link PublicSize})
 * @param expectedColumns the registered columns of this party's dataset (names and types, in
 *     order), or null when there is no registry (e.g. {@code ./psi local}): the job refuses to
 *     start, before the handshake, when the table's columns differ from them
 * @param insecureTestOnly accept σ below {@link #MIN_SIGMA} and a session without a pin of the
 *     peer's certificate: for tests only ({@value #INSECURE_FLAG})
 */
public record PartyConfig(
    boolean partyB,
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
    int parallelism,
    int maxAttempts,
    String workDir,
    PublicSize publicSize,
    java.util.List<io.psiflink.api.Column> expectedColumns,
    boolean insecureTestOnly) {

  public static final int DEFAULT_SIGMA = 40;
  /** The least σ a real session accepts (DESIGN.md: σ >= 40). */
  public static final int MIN_SIGMA = 40;
  /** The command-line flag that lifts the σ and pin checks, named so nobody mistakes it. */
  public static final String INSECURE_FLAG = "--insecure-test-only";
  public static final int DEFAULT_ATTEMPTS = 3;
  public static final Duration DEFAULT_PAIR_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);

  public PartyConfig {
    Objects.requireNonNull(sql, "sql");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(session, "session");
    Objects.requireNonNull(bridge, "bridge");
    Objects.requireNonNull(peer, "peer");
    Objects.requireNonNull(workDir, "workDir");
    Objects.requireNonNull(maxBadRows, "maxBadRows");
    Objects.requireNonNull(csv, "csv");
    Objects.requireNonNull(publicSize, "publicSize");
    expectedColumns = expectedColumns == null ? null : java.util.List.copyOf(expectedColumns);
    if (peerCertificateSha256 != null && peerCertificateSha256.length != 32) {
      throw new IllegalArgumentException("the peer certificate's SHA-256 has 32 bytes");
    }
    if (!partyB && out == null) {
      throw new IllegalArgumentException("party A needs an output directory");
    }
    ProtocolInfo.byName(protocol); // an unknown name fails here, naming the known ones
    if (bins < 0 || sigma < 1 || sigma > 128 || parallelism < 1 || maxAttempts < 1) {
      throw new IllegalArgumentException("bins >= 0, 1 <= sigma <= 128, parallelism >= 1 and "
          + "attempts >= 1 are required");
    }
    if (!insecureTestOnly && sigma < MIN_SIGMA) {
      throw new IllegalArgumentException("sigma " + sigma + " is below " + MIN_SIGMA + ": the "
          + "padding bound would overflow (and the job fail or leak) with probability above "
          + "2^-" + MIN_SIGMA + "; refused unless " + INSECURE_FLAG + " is given (tests only)");
    }
    if (!insecureTestOnly && peerCertificateSha256 == null) {
      throw new IllegalArgumentException("no pin of the peer's certificate (--peer-cert-sha256): "
          + "any certificate the trusted CAs issued for '" + peer + "' would be accepted; refused "
          + "unless " + INSECURE_FLAG + " is given (tests only)");
    }
  }

  public String party() {
    return partyB ? "B" : "A";
  }
}
