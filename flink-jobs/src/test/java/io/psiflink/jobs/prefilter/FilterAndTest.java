package io.psiflink.jobs.prefilter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgePeerException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.helper.CorrelationStreams;
import io.psiflink.helper.DealtAnd;
import io.psiflink.helper.HelperClient;
import io.psiflink.jobs.psi.PeerProtocolException;
import io.psiflink.jobs.psi.SealedBinStream;
import io.psiflink.jobs.psi.TwoParties;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The AND between the two jobs over a real relay, with correlations dealt here as the helper deals
 * them, either party choosing: both filters become x AND y (computed in the test); a chooser that
 * sends a c with bits outside the sender's filter, a frame of the wrong type or length, or ends
 * early is refused naming it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FilterAndTest {
  static final int BITS = 23; // two chunks
  private TwoParties parties;
  private final byte[] frameKey = new byte[32];
  private final AtomicInteger sessions = new AtomicInteger();

  @BeforeAll
  void start() throws Exception {
    parties = new TwoParties(Files.createTempDirectory("psi-filter-and-"));
    new SplittableRandom(3).nextBytes(frameKey);
  }

  @AfterAll
  void stop() throws Exception {
    parties.close();
  }

  /** What the helper deals: A's seed and m_σ, B's seed. */
  record Deal(HelperClient.Dealt a, long[] mSigma, HelperClient.Dealt b) {
    static Deal of(SplittableRandom r) {
      return of(r, BITS);
    }

    static Deal of(SplittableRandom r, int bits) {
      int words = words(bits);
      byte[] sa = new byte[16];
      byte[] sb = new byte[16];
      r.nextBytes(sa);
      r.nextBytes(sb);
      long[] m0 = new long[words];
      long[] m1 = new long[words];
      long[] sigma = new long[words];
      DealtAnd.deal(
          new CorrelationStreams(sa), new CorrelationStreams(sb), 0, m0, m1, sigma, words);
      return new Deal(new HelperClient.Dealt(sa), m0, new HelperClient.Dealt(sb));
    }

    /** Chunk c of m_σ, as HelperDeal hands it over. */
    long[] mSigmaChunk(int bits, int c) {
      int len = HelperClient.chunkWords(bits, c);
      long[] chunk = new long[len];
      System.arraycopy(mSigma, c * HelperClient.CHUNK_WORDS, chunk, 0, len);
      return chunk;
    }

    FilterAnd and(long[] filter, int bits, Role role, Role chooser) {
      return new FilterAnd(
          filter, bits, role, chooser, role.equals(Role.A) ? a : b, c -> mSigmaChunk(bits, c));
    }
  }

  /**
   * One party's side as the jobs drive it: the chooser's e on the choices' stream (received by the
   * sender's prefetch), then w and c on the AND's stream.
   */
  FilterAnd drive(BridgeClient client, String session, FilterAnd and, Role role, int bits)
      throws Exception {
    long[][] choices = null;
    try (BridgeStream raw = client.open(session, "prefilter-choices");
        SealedBinStream s = new SealedBinStream(raw, frameKey, -2, role)) {
      if (and.chooses()) {
        and.sendChoices(s);
        s.finish();
        assertNull(s.receive());
      } else {
        choices = FilterAnd.receiveChoices(s, bits, role, 1);
        assertNull(s.receive());
        s.finish();
      }
    }
    try (BridgeStream raw = client.open(session, "prefilter");
        SealedBinStream s = new SealedBinStream(raw, frameKey, -2, role)) {
      and.run(s, choices);
      endBoth(s);
    }
    return and;
  }

  static int words(int bits) {
    return Math.max(1, 1 << (bits - 6));
  }

  static long[] random(SplittableRandom r, double fill) {
    return random(r, fill, BITS);
  }

  static long[] random(SplittableRandom r, double fill, int bits) {
    long[] f = new long[words(bits)];
    for (int i = 0; i < f.length * 64; i++) {
      if (r.nextDouble() < fill) {
        f[i >>> 6] |= 1L << i;
      }
    }
    return f;
  }

  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> sizesAndChoosers() {
    return java.util.stream.Stream.of(12, BITS, 25)
        .flatMap(
            bits ->
                java.util.stream.Stream.of(Role.A, Role.B)
                    .map(c -> org.junit.jupiter.params.provider.Arguments.of(bits, c)));
  }

  /**
   * One partial chunk, two chunks, and more chunks than the sender answers ahead (FilterAnd.AHEAD);
   * A choosing with (σ, m_σ), and B choosing with the reversed OTs.
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.MethodSource("sizesAndChoosers")
  void bothFiltersBecomeTheirAnd(int bits, Role chooser) throws Exception {
    SplittableRandom r = new SplittableRandom(1);
    long[] x = random(r, 0.3, bits);
    long[] y = random(r, 0.6, bits);
    long[] expected = new long[x.length];
    for (int i = 0; i < x.length; i++) {
      expected[i] = x[i] & y[i];
    }
    Deal deal = Deal.of(r, bits);
    String session = "and-" + sessions.incrementAndGet();
    CompletableFuture<FilterAnd> b =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return drive(parties.b, session, deal.and(y, bits, Role.B, chooser), Role.B, bits);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    FilterAnd a = drive(parties.a, session, deal.and(x, bits, Role.A, chooser), Role.A, bits);
    FilterAnd atB = b.get(30, TimeUnit.SECONDS);
    assertArrayEquals(expected, x, "A's filter is x AND y");
    assertArrayEquals(expected, y, "B's filter is x AND y");
    int chunks = HelperClient.chunks(bits);
    assertEquals(chunks, a.done());
    assertEquals(chunks, atB.done());
    FilterAnd chose = chooser.equals(Role.A) ? a : atB;
    FilterAnd answered = chooser.equals(Role.A) ? atB : a;
    assertTrue(chose.chooses() && !answered.chooses());
    long chunkFrames = chunks + 8L * x.length; // a type byte per frame
    assertEquals(2 * chunkFrames, chose.sent()); // e and c
    assertEquals(chunkFrames, chose.received()); // w
    assertEquals(chose.sent(), answered.received());
  }

  /**
   * As PrefilterExchange ends the stream: finish, then wait for the peer's finish. Closing a stream
   * not finished both ways aborts it, which may overtake the last frames still in flight.
   */
  static void endBoth(SealedBinStream s) throws Exception {
    s.finish();
    assertNull(s.receive(), "nothing after the AND's frames");
  }

  /**
   * A chooser that sends what it likes in place of its c of chunk 0, after honest e frames: what
   * the sender (the other party) makes of it.
   */
  private Throwable senderAgainst(Role chooser, java.util.function.Function<long[], byte[]> forgeC)
      throws Exception {
    SplittableRandom r = new SplittableRandom(2);
    long[] x = random(r, 0.5);
    long[] y = random(r, 0.5);
    Deal deal = Deal.of(r);
    Role sender = chooser.peer();
    long[] senders = sender.equals(Role.A) ? x : y;
    long[] choosers = sender.equals(Role.A) ? y : x;
    String session = "hostile-" + sessions.incrementAndGet();
    BridgeClient senderSide = sender.equals(Role.A) ? parties.a : parties.b;
    BridgeClient chooserSide = sender.equals(Role.A) ? parties.b : parties.a;
    CompletableFuture<Throwable> result =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                drive(senderSide, session, deal.and(senders, BITS, sender, chooser), sender, BITS);
                return null;
              } catch (Exception e) {
                return e;
              }
            });
    try (BridgeStream raw = chooserSide.open(session, "prefilter-choices");
        SealedBinStream s = new SealedBinStream(raw, frameKey, -2, chooser)) {
      for (int c = 0; c < HelperClient.chunks(BITS); c++) {
        int len = HelperClient.CHUNK_WORDS;
        long[] e = new long[len];
        long[] f = new long[len];
        System.arraycopy(choosers, c * len, f, 0, len);
        if (chooser.equals(Role.A)) {
          new CorrelationStreams(deal.a().seed()).expand(CorrelationStreams.SIGMA, c * len, e, len);
        } else {
          long[] m0 = new long[len];
          new CorrelationStreams(deal.b().seed()).expand(CorrelationStreams.M0, c * len, m0, len);
          new CorrelationStreams(deal.b().seed()).expand(CorrelationStreams.M1, c * len, e, len);
          DealtAnd.reverseChooser(m0, e, len);
        }
        DealtAnd.maskChoice(e, f, len);
        s.send(frame(FilterAnd.E, e, len));
      }
      s.finish();
      assertNull(s.receive());
    }
    try (BridgeStream raw = chooserSide.open(session, "prefilter");
        SealedBinStream s = new SealedBinStream(raw, frameKey, -2, chooser)) {
      s.receive(); // w of chunk 0
      long[] notAnd = senders.clone(); // the sender's own bits are fine ...
      byte[] forged = forgeC.apply(notAnd);
      if (forged != null) {
        s.send(forged);
      }
      try {
        s.finish();
      } catch (BridgePeerException closedFirst) {
        // the sender refused the forged frame and closed the stream before this end finished it:
        // a race of the two ends, not the result; the sender's verdict is the result
      }
      return result.get(30, TimeUnit.SECONDS);
    }
  }

  static byte[] frame(byte type, long[] words, int len) {
    byte[] body = new byte[1 + 8 * len];
    body[0] = type;
    ByteBuffer.wrap(body, 1, 8 * len)
        .order(ByteOrder.LITTLE_ENDIAN)
        .asLongBuffer()
        .put(words, 0, len);
    return body;
  }

  @ParameterizedTest
  @ValueSource(strings = {"A", "B"})
  void aHostileChoosersAnswersAreRefusedNamingThem(String chooserLabel) throws Exception {
    Role chooser = Role.parse(chooserLabel);
    String sender = chooser.peer().label();
    // a c with a bit the sender does not have: the chooser claims more than x AND y
    Throwable e =
        senderAgainst(
            chooser,
            f -> {
              int w = 0;
              while (~f[w] == 0) {
                w++;
              }
              f[w] |= Long.lowestOneBit(~f[w]);
              return frame(FilterAnd.C, f, HelperClient.CHUNK_WORDS);
            });
    assertInstanceOf(PeerProtocolException.class, e, String.valueOf(e));
    assertTrue(
        e.getMessage().contains("sets bits that " + sender + "'s filter does not have"),
        e.getMessage());
    // a frame of the wrong type
    e = senderAgainst(chooser, f -> frame(FilterAnd.W, f, HelperClient.CHUNK_WORDS));
    assertInstanceOf(PeerProtocolException.class, e, String.valueOf(e));
    assertTrue(e.getMessage().contains("where its c of chunk 0"), e.getMessage());
    // a short frame
    e = senderAgainst(chooser, f -> frame(FilterAnd.C, f, 7));
    assertTrue(e.getMessage().contains("56 bytes where its c of chunk 0"), e.getMessage());
    // the end of the stream instead of c
    e = senderAgainst(chooser, f -> null);
    assertTrue(
        e.getMessage().contains("ended the prefilter stream before its c of chunk 0"),
        e.getMessage());
  }
}
