package io.psiflink.provider;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.HelloCrypto.Rejected;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * What the relay between a party and the provider can do to sealed frames, against the two ends of
 * a link: it reads nothing (no plaintext in the frame) and every alteration, reordering, drop,
 * replay, reflection or transplant into another session, bin, attempt or run fails to open.
 */
class SealedLinkTest {
  private static final byte[] KEY = new byte[32];
  private static final byte[] PN = new byte[32];
  private static final byte[] ON = new byte[32];

  static {
    Random r = new Random(3);
    r.nextBytes(KEY);
    r.nextBytes(PN);
    r.nextBytes(ON);
  }

  /** Only the session matters to a link's keys; the rest of a stream is not used here. */
  private static BridgeStream stream(String session) {
    return (BridgeStream)
        java.lang.reflect.Proxy.newProxyInstance(
            SealedLinkTest.class.getClassLoader(),
            new Class<?>[] {BridgeStream.class},
            (proxy, method, args) -> {
              if (method.getName().equals("session")) {
                return session;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  /** The party's or the provider's end of bin {@code bin}, attempt {@code attempt}, keyed. */
  private static SealedLink end(String session, int bin, int attempt, boolean party, byte[] on) {
    SealedLink l = new SealedLink(stream(session), bin, attempt, party, null, "peer").withKey(KEY);
    l.keyOut(PN, on);
    l.keyIn(PN, on);
    return l;
  }

  private static byte[] seal(SealedLink l, String text) {
    byte[] p = text.getBytes(StandardCharsets.US_ASCII);
    return l.seal(new byte[0], p, 0, p.length);
  }

  @Test
  void framesOpenInOrderAndShowNoPlaintext() throws Exception {
    SealedLink party = end("s", 3, 0, true, ON);
    SealedLink provider = end("s", 3, 0, false, ON);
    for (String m : List.of("first frame", "second frame", "third frame")) {
      byte[] f = seal(party, m);
      assertFalse(new String(f, StandardCharsets.ISO_8859_1).contains("frame"));
      assertArrayEquals(m.getBytes(StandardCharsets.US_ASCII), provider.open(f, 0));
    }
    assertArrayEquals(
        "back".getBytes(StandardCharsets.US_ASCII), party.open(seal(provider, "back"), 0));
  }

  @Test
  void anAlteredReorderedDroppedOrReplayedFrameDoesNotOpen() throws Exception {
    SealedLink party = end("s", 3, 0, true, ON);
    byte[] f0 = seal(party, "zero");
    byte[] f1 = seal(party, "one");
    byte[] altered = f0.clone();
    altered[2] ^= 1;
    assertThrows(Rejected.class, () -> end("s", 3, 0, false, ON).open(altered, 0));
    // f0 dropped, or f1 before f0
    assertThrows(Rejected.class, () -> end("s", 3, 0, false, ON).open(f1, 0));
    SealedLink provider = end("s", 3, 0, false, ON);
    assertArrayEquals("zero".getBytes(StandardCharsets.US_ASCII), provider.open(f0, 0));
    assertThrows(Rejected.class, () -> provider.open(f0, 0)); // replayed
  }

  @Test
  void aFrameOfAnotherSessionBinAttemptRunOrDirectionDoesNotOpen() {
    byte[] f = seal(end("s", 3, 0, true, ON), "frame");
    byte[] otherRun = ON.clone();
    otherRun[0] ^= 1;
    for (SealedLink wrong :
        List.of(
            end("t", 3, 0, false, ON),
            end("s", 4, 0, false, ON),
            end("s", 3, 1, false, ON),
            end("s", 3, 0, false, otherRun),
            end("s", 3, 0, true, ON))) { // its own direction reflected back
      assertThrows(Rejected.class, () -> wrong.open(f, 0));
    }
    // and the keys of the two directions differ
    assertNotEquals(
        Arrays.toString(seal(end("s", 3, 0, true, ON), "x")),
        Arrays.toString(seal(end("s", 3, 0, false, ON), "x")));
  }
}
