package io.psiflink.jobs.read;

import io.psiflink.connectors.JdbcTable;
import io.psiflink.connectors.TableException;
import io.psiflink.connectors.TableFiles;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What a resumed run checks of its input against the first run's: the table's files, each with its
 * length and modification time, hashed. A resumed run over changed files would join the committed
 * bins of one table version with the other bins of another; it is refused instead. A JDBC table
 * cannot be fingerprinted without reading it (its rows may change under the same name), so a run
 * over one is not resumable.
 */
public final class InputFingerprint {
  private InputFingerprint() {}

  /**
   * The fingerprint of the table at {@code location}: {@code files:<sha-256 hex>}, or {@code jdbc}
   * for a JDBC table (never equal to a resumable fingerprint: see {@link #resumable}).
   */
  public static String of(String location) throws TableException {
    if (JdbcTable.isJdbc(location)) {
      return "jdbc";
    }
    TableFiles files = TableFiles.of(location);
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    // the times as the listing gave them: no further call per file (a name node's, on HDFS)
    for (int i = 0; i < files.files().size(); i++) {
      sha.update(files.files().get(i).getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
      sha.update(Long.toString(files.lengths().get(i)).getBytes(StandardCharsets.US_ASCII));
      sha.update((byte) 0);
      sha.update(Long.toString(files.modified().get(i)).getBytes(StandardCharsets.US_ASCII));
      sha.update((byte) '\n');
    }
    return "files:" + HexFormat.of().formatHex(sha.digest());
  }

  /** Whether a run over an input of this fingerprint can be resumed. */
  public static boolean resumable(String fingerprint) {
    return fingerprint.startsWith("files:");
  }
}
