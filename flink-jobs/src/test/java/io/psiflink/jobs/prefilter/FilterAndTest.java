package io.psiflink.jobs.prefilter;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psiflink.api.Role;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The AND between the two jobs over a real relay, with correlations dealt here as the helper deals
 * them: both filters become x AND y (computed in the test); a peer that sends a c with bits outside
 * B's filter, a frame of the wrong type or length, or ends early is refused naming it.
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
      new CorrelationStreams(sb).expand(CorrelationStreams.M0, 0, m0, words);
      new CorrelationStreams(sb).expand(CorrelationStreams.M1, 0, m1, words);
      new CorrelationStreams(sa).expand(CorrelationStreams.SIGMA, 0, sigma, words);
      DealtAnd.dealChoice(m0, m1, sigma, words);
      return new Deal(new HelperClient.Dealt(sa), m0, new HelperClient.Dealt(sb));
    }

    /** A's side as the helper client drives it: the seed, then every chunk of m_σ. */
    void driveA(FilterAnd and, int bits) {
      and.seed(a);
      for (int c = 0; c < HelperClient.chunks(bits); c++) {
        int len = HelperClient.chunkWords(bits, c);
        long[] chunk = new long[len];
        System.arraycopy(mSigma, c * HelperClient.CHUNK_WORDS, chunk, 0, len);
        and.chunk(c, chunk);
      }
    }
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

  /** One partial chunk, two chunks, and more chunks than A sends ahead (FilterAnd.AHEAD). */
  @ParameterizedTest
  @ValueSource(ints = {12, BITS, 25})
  void bothFiltersBecomeTheirAnd(int bits) throws Exception {
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
              try (BridgeStream raw = parties.b.open(session, "prefilter");
                  SealedBinStream s = new SealedBinStream(raw, frameKey, -2, Role.B)) {
                FilterAnd and = new FilterAnd(s, y, bits, Role.B);
                and.seed(deal.b());
                endBoth(s);
                return and;
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    FilterAnd a;
    try (BridgeStream raw = parties.a.open(session, "prefilter");
        SealedBinStream s = new SealedBinStream(raw, frameKey, -2, Role.A)) {
      a = new FilterAnd(s, x, bits, Role.A);
      deal.driveA(a, bits);
      endBoth(s);
    }
    FilterAnd atB = b.get(30, TimeUnit.SECONDS);
    assertArrayEquals(expected, x, "A's filter is x AND y");
    assertArrayEquals(expected, y, "B's filter is x AND y");
    int chunks = HelperClient.chunks(bits);
    assertEquals(chunks, a.done());
    assertEquals(chunks, atB.done());
    long chunkFrames = chunks + 8L * x.length; // a type byte per frame
    assertEquals(2 * chunkFrames, a.sent()); // e and c
    assertEquals(chunkFrames, a.received()); // w
    assertEquals(a.sent(), atB.received());
  }

  /**
   * As PrefilterExchange ends the stream: finish, then wait for the peer's finish. Closing a stream
   * not finished both ways aborts it, which may overtake the last frames still in flight.
   */
  static void endBoth(SealedBinStream s) throws Exception {
    s.finish();
    assertNull(s.receive(), "nothing after the AND's frames");
  }

  /** A peer A that sends what it likes in place of its c, after an honest e of chunk 0. */
  private Throwable atBAgainst(java.util.function.Function<long[], byte[]> forgeC)
      throws Exception {
    SplittableRandom r = new SplittableRandom(2);
    long[] x = random(r, 0.5);
    long[] y = random(r, 0.5);
    Deal deal = Deal.of(r);
    String session = "hostile-" + sessions.incrementAndGet();
    CompletableFuture<Throwable> b =
        CompletableFuture.supplyAsync(
            () -> {
              try (BridgeStream raw = parties.b.open(session, "prefilter");
                  SealedBinStream s = new SealedBinStream(raw, frameKey, -2, Role.B)) {
                new FilterAnd(s, y, BITS, Role.B).seed(deal.b());
                return null;
              } catch (FilterAnd.Failure e) {
                return e.getCause();
              } catch (Exception e) {
                return e;
              }
            });
    try (BridgeStream raw = parties.a.open(session, "prefilter");
        SealedBinStream s = new SealedBinStream(raw, frameKey, -2, Role.A)) {
      int len = HelperClient.CHUNK_WORDS;
      long[] e = new long[len];
      new CorrelationStreams(deal.a().seed()).expand(CorrelationStreams.SIGMA, 0, e, len);
      DealtAnd.maskChoice(e, x, len);
      s.send(frame(FilterAnd.E, e, len));
      s.receive(); // w
      long[] notAnd = y.clone(); // B's own bits are fine ...
      byte[] forged = forgeC.apply(notAnd);
      if (forged != null) {
        s.send(forged);
      }
      s.finish();
      return b.get(30, TimeUnit.SECONDS);
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

  @Test
  void aHostilePeersAnswersAreRefusedNamingThem() throws Exception {
    // a c with a bit B does not have: A claims more than x AND y
    Throwable e =
        atBAgainst(
            y -> {
              int w = 0;
              while (~y[w] == 0) {
                w++;
              }
              y[w] |= Long.lowestOneBit(~y[w]);
              return frame(FilterAnd.C, y, HelperClient.CHUNK_WORDS);
            });
    assertInstanceOf(PeerProtocolException.class, e, String.valueOf(e));
    assertTrue(e.getMessage().contains("sets bits that B's filter does not have"), e.getMessage());
    // a frame of the wrong type
    e = atBAgainst(y -> frame(FilterAnd.W, y, HelperClient.CHUNK_WORDS));
    assertInstanceOf(PeerProtocolException.class, e, String.valueOf(e));
    assertTrue(e.getMessage().contains("where its c of chunk 0"), e.getMessage());
    // a short frame
    e = atBAgainst(y -> frame(FilterAnd.C, y, 7));
    assertTrue(e.getMessage().contains("56 bytes where its c of chunk 0"), e.getMessage());
    // the end of the stream instead of c
    e = atBAgainst(y -> null);
    assertTrue(
        e.getMessage().contains("ended the prefilter stream before its c of chunk 0"),
        e.getMessage());
  }
}
