package io.psiflink.jobs.session;

import io.psiflink.jobs.SharedMiniCluster;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The session's secrets as one party's Flink job needs them: the token key, the bin seed, the bin
 * frame key and this party's protocol setup. They never enter the job graph (which the JobManager
 * keeps, in its HA store too): the job writes them to a file readable only by its user, {@link
 * #ship}s that to its tasks, and the functions read it when they open; the job graph carries only
 * the file's name. The job deletes its file when it ends.
 *
 * @param tokenKey HMAC key of the token PRF (32 bytes)
 * @param binSeed SipHash key of the bin hash (16 bytes)
 * @param frameKey key sealing every bin frame (32 bytes)
 * @param setup this party's exported protocol setup, or null when every bin runs its own
 * @param filterKey the prefilter's position key (32 bytes), or null without a prefilter
 * @param group an n-party join's keys for the bins ({@code GroupBins}: the group secret, the link
 *     to the provider, the pairs' frame keys), encoded; null in a two-party join
 */
public record JobSecrets(
    byte[] tokenKey,
    byte[] binSeed,
    byte[] frameKey,
    byte[] setup,
    byte[] filterKey,
    byte[] group) {
  /** The distributed-cache name of the secret file. */
  public static final String CACHE_NAME = "psi-flink-session-secrets";

  private static final int MAGIC = 0x50534b34; // "PSK4"
  private static final int MAX_FIELD = 64 << 20;
  private static final int FIELDS = 6;

  /** The secrets of a session without a prefilter. */
  public JobSecrets(byte[] tokenKey, byte[] binSeed, byte[] frameKey, byte[] setup) {
    this(tokenKey, binSeed, frameKey, setup, null, null);
  }

  /** The job's part of the handshake's secrets. */
  public static JobSecrets of(SessionSecrets s) {
    return new JobSecrets(s.tokenKey(), s.binSeed(), s.frameKey(), s.setup(), s.filterKey(), null);
  }

  public BinKeys binKeys() {
    return new BinKeys(frameKey, setup);
  }

  /**
   * Writes the secrets to a new file in {@code dir}, created with mode 0600 (never readable by
   * others, not even for a moment). The caller deletes it.
   */
  public Path writeTo(Path dir) throws IOException {
    Files.createDirectories(dir);
    Path file =
        Files.createTempFile(
            dir,
            "session-secrets-",
            ".bin",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    byte[] bytes = encode();
    try {
      Files.write(file, bytes);
    } catch (IOException e) {
      Files.deleteIfExists(file);
      throw e;
    } finally {
      Arrays.fill(bytes, (byte) 0);
    }
    return file;
  }

  /**
   * Makes the secret file {@code file} readable by the tasks of the job {@code env} builds, and
   * returns the name under which they {@link #read} it: through Flink's distributed cache as {@link
   * #CACHE_NAME}, or, where the job runs on a MiniCluster of this JVM (a local environment, or a
   * {@link SharedMiniCluster}'s), as the file's absolute path. Such a JVM ends with its job, and
   * the cache would hold its exit for 5 s: Flink deletes a job's cached files 5 s after the job and
   * waits for that when the JVM shuts down.
   */
  public static String ship(StreamExecutionEnvironment env, Path file) {
    if (env instanceof LocalStreamEnvironment || env instanceof SharedMiniCluster.Environment) {
      return file.toAbsolutePath().toString();
    }
    env.registerCachedFile(file.toUri().toString(), CACHE_NAME);
    return CACHE_NAME;
  }

  /**
   * Reads the secrets in a running function or operator, from where {@link #ship} put them: the
   * distributed cache, or a local file when {@code name} is an absolute path.
   */
  public static JobSecrets read(RuntimeContext rc, String name) throws IOException {
    Path path =
        name.startsWith("/") ? Path.of(name) : rc.getDistributedCache().getFile(name).toPath();
    byte[] bytes = Files.readAllBytes(path);
    try {
      return decode(bytes);
    } finally {
      Arrays.fill(bytes, (byte) 0);
    }
  }

  byte[] encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(MAGIC);
      for (byte[] b : new byte[][] {tokenKey, binSeed, frameKey, setup, filterKey, group}) {
        writeField(out, b);
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return bytes.toByteArray();
  }

  static JobSecrets decode(byte[] bytes) throws IOException {
    try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes))) {
      if (in.readInt() != MAGIC) {
        throw new IOException("not a psi-flink session secret file");
      }
      byte[][] f = new byte[FIELDS][];
      for (int i = 0; i < FIELDS; i++) {
        f[i] = readField(in, MAX_FIELD);
      }
      return new JobSecrets(f[0], f[1], f[2], f[3], f[4], f[5]);
    }
  }

  /** One field of a secret file: its length (-1 for null), then its bytes. */
  static void writeField(DataOutputStream out, byte[] b) throws IOException {
    out.writeInt(b == null ? -1 : b.length);
    if (b != null) {
      out.write(b);
    }
  }

  /** A field {@link #writeField} wrote, at most {@code max} bytes. */
  static byte[] readField(DataInputStream in, int max) throws IOException {
    int n = in.readInt();
    if (n < -1 || n > max) {
      throw new IOException("session secret file is corrupt (field length " + n + ")");
    }
    if (n < 0) {
      return null;
    }
    byte[] b = new byte[n];
    in.readFully(b);
    return b;
  }
}
