package io.psiflink.jobs.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.jobs.read.InputFingerprint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResumeStateTest {
  @TempDir Path dir;

  private static ResumeState state(String session, byte fill) {
    byte[] token = new byte[32];
    byte[] bin = new byte[16];
    Arrays.fill(token, fill);
    Arrays.fill(bin, (byte) (fill + 1));
    return new ResumeState(session, "B", "party-a", "fp", 16, token, bin, null, "files:abc");
  }

  @Test
  void theStateRoundTripsInAFileOnlyItsOwnerReads() throws Exception {
    ResumeState s = state("s-1", (byte) 7);
    s.write(dir);
    Path file = ResumeState.file(dir, "s-1");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    assertEquals(
        "rwx------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
    ResumeState r = ResumeState.read(dir, "s-1");
    assertArrayEquals(s.tokenKey(), r.tokenKey());
    assertArrayEquals(s.binSeed(), r.binSeed());
    assertNull(r.filterKey());
    assertEquals(16, r.bins());
    assertEquals("files:abc", r.input());
    assertArrayEquals(s.tag(), r.tag());
    // the file name does not carry the session id as given (it is not a path)
    assertFalse(
        ResumeState.file(dir, "../../etc/x")
            .normalize()
            .startsWith(dir.getParent().resolve("etc")));
    assertTrue(ResumeState.file(dir, "../../etc/x").getParent().equals(dir.resolve("resume")));
  }

  @Test
  void tagsDifferWithTheKeysTheSessionOrTheBinCount() {
    byte[] t = state("s", (byte) 1).tag();
    assertEquals(32, t.length);
    assertFalse(Arrays.equals(t, state("s", (byte) 2).tag()));
    assertFalse(Arrays.equals(t, state("t", (byte) 1).tag()));
    ResumeState s = state("s", (byte) 1);
    ResumeState other =
        new ResumeState(
            "s", "B", "party-a", "fp", 17, s.tokenKey(), s.binSeed(), null, "files:abc");
    assertFalse(Arrays.equals(t, other.tag()));
  }

  @Test
  void noStateATruncatedOrForeignOneIsAnErrorNamingTheFile() throws Exception {
    IOException none = assertThrows(IOException.class, () -> ResumeState.read(dir, "s-2"));
    assertTrue(none.getMessage().contains("nothing to resume"), none.getMessage());
    state("s-2", (byte) 3).write(dir);
    Path file = ResumeState.file(dir, "s-2");
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, Arrays.copyOf(bytes, bytes.length - 5));
    IOException torn = assertThrows(IOException.class, () -> ResumeState.read(dir, "s-2"));
    assertTrue(torn.getMessage().contains(file.toString()), torn.getMessage());
    // another session's state copied under this one's name
    state("s-3", (byte) 3).write(dir);
    Files.copy(
        ResumeState.file(dir, "s-3"), file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    assertThrows(IOException.class, () -> ResumeState.read(dir, "s-2"));
    assertTrue(ResumeState.forget(dir));
    assertFalse(Files.exists(dir.resolve("resume")));
  }

  @Test
  void theInputFingerprintChangesWithAFileItsLengthOrItsTime() throws Exception {
    Path t = Files.createDirectories(dir.resolve("t"));
    Files.writeString(t.resolve("part-0.csv"), "id\n1\n");
    String f0 = InputFingerprint.of(t.toString());
    assertTrue(InputFingerprint.resumable(f0));
    assertEquals(f0, InputFingerprint.of(t.toString()));
    FileTime time = Files.getLastModifiedTime(t.resolve("part-0.csv"));
    Files.setLastModifiedTime(t.resolve("part-0.csv"), FileTime.fromMillis(time.toMillis() + 1000));
    String f1 = InputFingerprint.of(t.toString());
    assertFalse(f0.equals(f1));
    Files.writeString(t.resolve("part-1.csv"), "id\n2\n");
    assertFalse(f1.equals(InputFingerprint.of(t.toString())));
    assertFalse(InputFingerprint.resumable(InputFingerprint.of("jdbc:postgresql://db/x?table=t")));
  }
}
