package io.psiflink.bridge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.security.MessageDigest;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Test helpers that drive streams from background threads. */
final class StreamIo {
  private StreamIo() {}

  /**
   * Opens the same (session, channel) from both clients at once; returns {a's stream, b's stream}.
   */
  static BridgeStream[] openPair(
      ExecutorService pool, BridgeClient a, BridgeClient b, String session, String channel)
      throws Exception {
    Future<BridgeStream> fa = pool.submit(() -> a.open(session, channel));
    BridgeStream sb = b.open(session, channel);
    return new BridgeStream[] {fa.get(30, TimeUnit.SECONDS), sb};
  }

  /**
   * Sends {@code frames} deterministic frames, then FINISH; returns the SHA-256 of everything sent.
   */
  static Callable<String> sender(BridgeStream s, long seed, int frames, int size) {
    return () -> {
      MessageDigest sha = TestBed.sha256();
      for (int i = 0; i < frames; i++) {
        byte[] f = TestBed.frame(seed, i, size);
        sha.update(f);
        s.send(f);
      }
      s.finish();
      return TestBed.hex(sha.digest());
    };
  }

  /**
   * Receives until FINISH, checking each frame's boundary and content; returns the SHA-256 of
   * everything received.
   */
  static Callable<String> receiver(BridgeStream s, long seed, int frames, int size) {
    return () -> {
      MessageDigest sha = TestBed.sha256();
      for (int i = 0; i < frames; i++) {
        byte[] f = s.receive();
        assertNotNull(f, "stream ended early, after " + i + " frames");
        assertEquals(size, f.length, "frame " + i + " length (boundaries must be preserved)");
        assertArrayEquals(TestBed.frame(seed, i, size), f, "frame " + i + " content");
        sha.update(f);
      }
      assertNull(s.receive(), "after the last frame the peer's FINISH reads as null");
      assertNull(s.receive(), "and keeps reading as null");
      return TestBed.hex(sha.digest());
    };
  }

  static String expectedSha(long seed, int frames, int size) {
    MessageDigest sha = TestBed.sha256();
    for (int i = 0; i < frames; i++) {
      sha.update(TestBed.frame(seed, i, size));
    }
    return TestBed.hex(sha.digest());
  }
}
