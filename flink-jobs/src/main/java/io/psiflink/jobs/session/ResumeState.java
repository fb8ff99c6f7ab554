package io.psiflink.jobs.session;

import io.psiflink.api.ResumeDirectory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What a party keeps of a session so that a failed run can be resumed: the keys that decide which
 * token a row gets and which bin it falls in (the bins party A committed are only "done" under
 * these), the agreed bin count, and a fingerprint of the input (a resumed run over other rows would
 * mix two joins). The frame key and the protocol's setup are not kept: a resumed run makes fresh
 * ones in its own handshake, so no PSI randomness is ever used twice.
 *
 * <p>The file lives in the party's work directory ({@code WORK/resume/}, mode 0700, the file 0600),
 * is written right after the first run's handshake and deleted when the run succeeds. It holds the
 * session's token key as long as the session is resumable: an operator who abandons a failed run
 * deletes the work directory (docs/operations.md).
 *
 * @param session the session id
 * @param role this party's label (A or B)
 * @param peer the peer's party name
 * @param fingerprint the query's fingerprint
 * @param bins the agreed bin count
 * @param tokenKey the token PRF's key (32 bytes)
 * @param binSeed the bin hash's key (16 bytes)
 * @param filterKey the prefilter's position key (32 bytes), or null without a prefilter
 * @param input the fingerprint of the input as read by the first run ({@link InputFingerprint})
 */
public record ResumeState(
    String session,
    String role,
    String peer,
    String fingerprint,
    int bins,
    byte[] tokenKey,
    byte[] binSeed,
    byte[] filterKey,
    String input) {

  private static final int MAGIC = 0x50535253; // "PSRS"
  private static final int MAX_TEXT = 64 * 1024;

  /** The file of {@code session}'s state in {@code workDir}. */
  public static Path file(Path workDir, String session) {
    try {
      byte[] h =
          MessageDigest.getInstance("SHA-256").digest(session.getBytes(StandardCharsets.UTF_8));
      // the session id comes from a coordinator or the command line: never a path of its own
      return ResumeDirectory.of(workDir).resolve(HexFormat.of().formatHex(h, 0, 16) + ".state");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Writes the state atomically: a crash leaves the old file or the new one, never half. */
  public void write(Path workDir) throws IOException {
    Path file = file(workDir, session);
    Path dir = file.getParent();
    if (!Files.isDirectory(dir)) {
      Files.createDirectories(
          dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }
    Path tmp =
        Files.createTempFile(
            dir,
            ".state-",
            ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    byte[] bytes = encode();
    try {
      Files.write(tmp, bytes);
      try (var ch =
          java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
        ch.force(true);
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Arrays.fill(bytes, (byte) 0);
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * The state of {@code session} in {@code workDir}.
   *
   * @throws IOException naming the file when there is none (nothing to resume) or it is corrupt
   */
  public static ResumeState read(Path workDir, String session) throws IOException {
    Path file = file(workDir, session);
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new NoSuchFileException(
          file.toString(),
          null,
          "nothing to resume: no run of session '"
              + session
              + "' left its state in "
              + workDir
              + " (it never got past the handshake, succeeded, or ran with another work directory)");
    }
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      if (in.readInt() != MAGIC) {
        throw new IOException("resume state " + file + " is not one (wrong magic)");
      }
      ResumeState s =
          new ResumeState(
              text(in),
              text(in),
              text(in),
              text(in),
              in.readInt(),
              JobSecrets.readField(in, 64),
              JobSecrets.readField(in, 64),
              JobSecrets.readField(in, 64),
              text(in));
      if (!s.session.equals(session)
          || s.bins < 1
          || s.tokenKey == null
          || s.tokenKey.length != 32
          || s.binSeed == null
          || s.binSeed.length != 16
          || (s.filterKey != null && s.filterKey.length != 32)) {
        throw new IOException("resume state " + file + " is corrupt");
      }
      return s;
    } catch (java.io.EOFException e) {
      throw new IOException("resume state " + file + " is truncated", e);
    } finally {
      Arrays.fill(bytes, (byte) 0);
    }
  }

  /** Removes the state of {@code session} (the run succeeded); true if there was one. */
  public static boolean delete(Path workDir, String session) throws IOException {
    return Files.deleteIfExists(file(workDir, session));
  }

  /** Removes every resume state in a party's work directory ({@link ResumeDirectory#forget}). */
  public static boolean forget(Path workDir) throws IOException {
    return ResumeDirectory.forget(workDir);
  }

  /**
   * The resume tag both parties' HELLOs carry: HMAC-SHA256 keyed by the token key and bin seed over
   * the session and bin count. Equal tags prove both resume the same run (a PRF output: it tells
   * the relay, which sees it, nothing of the keys); a run that resumes alone, or with other keys,
   * stops at the handshake instead of intersecting tokens that cannot match.
   */
  public byte[] tag() {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      byte[] key = new byte[tokenKey.length + binSeed.length];
      System.arraycopy(tokenKey, 0, key, 0, tokenKey.length);
      System.arraycopy(binSeed, 0, key, tokenKey.length, binSeed.length);
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      Arrays.fill(key, (byte) 0);
      mac.update("psi-flink resume v1".getBytes(StandardCharsets.UTF_8));
      mac.update((byte) 0);
      mac.update(session.getBytes(StandardCharsets.UTF_8));
      mac.update((byte) 0);
      mac.update(java.nio.ByteBuffer.allocate(4).putInt(bins).array());
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private byte[] encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(MAGIC);
      for (String t : new String[] {session, role, peer, fingerprint}) {
        out.writeUTF(t);
      }
      out.writeInt(bins);
      JobSecrets.writeField(out, tokenKey);
      JobSecrets.writeField(out, binSeed);
      JobSecrets.writeField(out, filterKey);
      out.writeUTF(input);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return bytes.toByteArray();
  }

  private static String text(DataInputStream in) throws IOException {
    String s = in.readUTF();
    if (s.length() > MAX_TEXT) {
      throw new IOException("resume state has a field of " + s.length() + " characters");
    }
    return s;
  }

  @Override
  public String toString() {
    return "ResumeState[session=" + session + ", role=" + role + ", bins=" + bins + "]";
  }
}
