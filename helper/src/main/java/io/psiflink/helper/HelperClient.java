package io.psiflink.helper;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.BridgeTimeoutException;
import io.psiflink.bridge.PartyCredentials;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A party's side of the server-aided sample filter: receives what the helper deals to this party
 * for the helper-dealt AND ({@link DealtAnd}; helper.proto has the wire). Party B receives a
 * 16-byte seed of its strings m0, m1; party A a 16-byte seed of its choice string σ and m_σ = m0 ⊕
 * σ·(m0 ⊕ m1) in full, chunk by chunk; {@link CorrelationStreams} expands the seeds. The party
 * sends the helper nothing but its signed HELLO (and, as the acknowledgement, the end of its
 * stream).
 *
 * <p>The stream to the helper goes through the relay like any peer's: {@link BridgeClient#open}
 * with the helper as callee, on (session, "prefilter-A"|"prefilter-B"). It is end-to-end
 * authenticated and sealed: signed HELLOs (this party's TLS key, the helper's), X25519, HKDF,
 * AES-256-GCM per frame, so the relay learns only the traffic volume (2^L bits to A, a seed to B).
 * The helper's certificate must chain to this party's CA, carry the helper's name and, when the
 * request pins it, have that SHA-256.
 */
public final class HelperClient {
  private static final Logger LOG = LoggerFactory.getLogger(HelperClient.class);

  /** Words (64 bits each) per chunk: 512 KiB, well below the relay's 4 MiB frame cap. */
  public static final int CHUNK_WORDS = 1 << 16;

  /** The smallest L: one 64-bit word. */
  public static final int MIN_FILTER_BITS = 6;

  /** The largest L the protocol allows (a helper may allow less). */
  public static final int MAX_FILTER_BITS = 36;

  private HelperClient() {}

  /** Chunk count for 2^filterBits bits. */
  public static int chunks(int filterBits) {
    long words = words(filterBits);
    return (int) ((words + CHUNK_WORDS - 1) / CHUNK_WORDS);
  }

  /** Words in chunk c. */
  public static int chunkWords(int filterBits, int c) {
    int n = chunks(filterBits);
    if (c < 0 || c >= n) {
      throw new IndexOutOfBoundsException("chunk " + c + " of " + n);
    }
    long rest = words(filterBits) - (long) c * CHUNK_WORDS;
    return (int) Math.min(CHUNK_WORDS, rest);
  }

  private static long words(int filterBits) {
    if (filterBits < MIN_FILTER_BITS || filterBits > MAX_FILTER_BITS) {
      throw new IllegalArgumentException(
          "filter bits must be "
              + MIN_FILTER_BITS
              + ".."
              + MAX_FILTER_BITS
              + ", got "
              + filterBits);
    }
    return 1L << (filterBits - 6);
  }

  /**
   * What the helper dealt to this party: its 16-byte seed (A: of σ, stream {@link
   * CorrelationStreams#SIGMA}; B: of m0 and m1, streams {@link CorrelationStreams#M0} and {@link
   * CorrelationStreams#M1}). Copies the seed in and out; toString does not show it.
   */
  public record Dealt(byte[] seed) {
    public Dealt {
      Objects.requireNonNull(seed, "seed");
      if (seed.length != CorrelationStreams.SEED_BYTES) {
        throw new IllegalArgumentException(
            "a dealt seed has " + CorrelationStreams.SEED_BYTES + " bytes, not " + seed.length);
      }
      seed = seed.clone();
    }

    @Override
    public byte[] seed() {
      return seed.clone();
    }

    /** The expansion of this seed (a new instance each call: one per thread). */
    public CorrelationStreams streams() {
      return new CorrelationStreams(seed);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Dealt d && MessageDigest.isEqual(seed, d.seed);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(seed);
    }

    @Override
    public String toString() {
      return "Dealt[seed=<" + seed.length + " bytes>]";
    }
  }

  /** Receives chunk {@code index} of m_σ (party A only), on the caller's thread. */
  @FunctionalInterface
  public interface ChunkSink {
    void accept(int index, long[] words);
  }

  /**
   * Sends this party's HELLO to the helper and receives what it deals: for party A, chunk c of m_σ
   * goes to sink.accept(c, words) for c = 0 .. chunks(L)-1 in order ({@link #chunkWords} words, bit
   * i = bit (i &amp; 63) of word i &gt;&gt;&gt; 6; the array may be reused after return); for party
   * B the sink is never called. Blocks until the helper has dealt to both parties (B's call returns
   * once A has received all of m_σ too). Nothing reaches the sink unless it opened under this
   * stream's key as exactly that chunk. While the sink runs, the no-progress timeout waits (it is
   * the caller's work); a runtime exception it throws aborts the stream and comes out of this call
   * as it is.
   *
   * @return this party's seed
   * @throws BridgeException if the relay cannot give this party a stream to the helper (e.g. "party
   *     'h' is not connected to the relay", or it did not open the stream in time)
   * @throws HelperException if the helper refuses or aborts the session (e.g. the other party did
   *     not arrive within the helper's session timeout), sends anything that does not verify or
   *     open, or makes no progress within {@code request.timeout()} (party B, which sees nothing
   *     while A receives m_σ after B's seed: that timeout plus a second per MiB of m_σ)
   */
  public static Dealt receive(
      BridgeClient bridge, PartyCredentials me, HelperRequest request, ChunkSink sink)
      throws BridgeException, HelperException {
    Objects.requireNonNull(bridge, "bridge");
    Objects.requireNonNull(me, "me");
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(sink, "sink");
    if (request.helperParty().equals(me.partyName())
        || request.peerParty().equals(me.partyName())) {
      throw new IllegalArgumentException(
          "party '" + me.partyName() + "' cannot be its own peer or helper");
    }
    KeyPair dh = HelperWire.x25519();
    byte[] hello = HelperWire.partyHello(request, me, dh.getPublic().getEncoded());
    byte[] signed = HelperWire.sign(me, "party hello", request.session(), hello);
    BridgeStream stream =
        bridge.open(request.session(), HelperWire.channel(request.role()), request.helperParty());
    return new Session(stream, me, request, sink).run(dh, hello, signed);
  }

  /** One party's session with the helper: the stream and its watchdog. */
  private static final class Session {
    private final BridgeStream stream;
    private final PartyCredentials me;
    private final HelperRequest request;
    private final ChunkSink sink;
    private final String helper;
    private volatile long lastProgress = System.nanoTime();

    /** The no-progress limit: the request's timeout, longer for B's wait for the end. */
    private volatile Duration limit;

    private volatile boolean inCallback;
    private volatile boolean timedOut;
    private volatile boolean done;

    Session(BridgeStream stream, PartyCredentials me, HelperRequest request, ChunkSink sink) {
      this.stream = stream;
      this.me = me;
      this.request = request;
      this.sink = sink;
      this.helper = "helper '" + request.helperParty() + "'";
      this.limit = request.timeout();
    }

    Dealt run(KeyPair dh, byte[] hello, byte[] signed) throws HelperException {
      Thread watchdog = new Thread(this::watch, "psi-helper-watchdog-" + request.session());
      watchdog.setDaemon(true);
      watchdog.start();
      byte[] seed = null;
      try {
        try {
          send(signed);
        } catch (BridgeException e) {
          throw new HelperException(
              "cannot send this party's HELLO to " + helper + ": " + e.getMessage(), e);
        }
        byte[] answer = receive("its HELLO");
        if (answer == null) {
          throw new HelperException(helper + " ended the stream before its HELLO");
        }
        HelperWire.HelperHelloView h;
        try {
          h = HelperWire.verifyHelperHello(answer, me, request, hello);
        } catch (HelperWire.WireException e) {
          throw new HelperException("rejected the HELLO of " + helper + ": " + e.getMessage(), e);
        }
        byte[] key;
        try {
          key =
              HelperWire.frameKey(
                  dh.getPrivate(), h.dhPublic(), request.session(), hello, h.helloBytes());
        } catch (HelperWire.WireException e) {
          throw new HelperException(helper + ": " + e.getMessage(), e);
        }
        HelperWire.ChunkCipher in = new HelperWire.ChunkCipher(key);
        Arrays.fill(key, (byte) 0);
        seed = receiveSeed(in);
        boolean a = request.role().equals(Role.A);
        if (a) {
          receiveChunks(in);
        } else {
          // B sees nothing while the helper deals A's 2^L bits: allow for them at 1 MiB/s
          limit = request.timeout().plusSeconds(1L << Math.max(0, request.filterBits() - 23));
          lastProgress = System.nanoTime();
        }
        try {
          stream.finish(); // the acknowledgement: this party has all it was dealt
        } catch (BridgeException e) {
          throw new HelperException("cannot acknowledge to " + helper + ": " + e.getMessage(), e);
        }
        if (receive("the end of the stream") != null) {
          throw new HelperException(
              helper
                  + " sent more than "
                  + (a
                      ? "the seed and the " + chunks(request.filterBits()) + " chunks"
                      : "the seed"));
        }
        done = true;
        stream.close();
        LOG.debug(
            "party '{}' received its correlations from {} for session {}",
            me.partyName(),
            helper,
            request.session());
        return new Dealt(seed);
      } catch (HelperException | RuntimeException e) {
        stream.abort(abortReason(e));
        throw e;
      } finally {
        done = true;
        watchdog.interrupt();
        if (seed != null) {
          Arrays.fill(seed, (byte) 0);
        }
      }
    }

    private byte[] receiveSeed(HelperWire.ChunkCipher in) throws HelperException {
      byte[] sealed = receive("this party's seed");
      if (sealed == null) {
        throw new HelperException(helper + " ended the stream before this party's seed");
      }
      int expected = CorrelationStreams.SEED_BYTES + HelperWire.TAG_BYTES;
      if (sealed.length != expected) {
        throw new HelperException(
            helper + " sent a seed frame of " + sealed.length + " bytes, expected " + expected);
      }
      byte[] seed = in.open(HelperWire.SEED, 0, sealed);
      if (seed == null) {
        throw new HelperException(
            helper
                + "'s seed failed authentication (altered, forged, replayed, reordered or not"
                + " sealed for this stream)");
      }
      return seed;
    }

    private void receiveChunks(HelperWire.ChunkCipher in) throws HelperException {
      int chunks = chunks(request.filterBits());
      long[] words = new long[chunkWords(request.filterBits(), 0)];
      for (int c = 0; c < chunks; c++) {
        byte[] sealed = receive("chunk " + c + " of " + chunks);
        if (sealed == null) {
          throw new HelperException(
              helper + " ended the stream after " + c + " of " + chunks + " chunks");
        }
        int expected = chunkWords(request.filterBits(), c);
        if (sealed.length != expected * 8 + HelperWire.TAG_BYTES) {
          throw new HelperException(
              helper
                  + " sent chunk "
                  + c
                  + " of "
                  + sealed.length
                  + " bytes, expected "
                  + (expected * 8 + HelperWire.TAG_BYTES));
        }
        byte[] plain = in.open(HelperWire.TO_PARTY, c, sealed);
        if (plain == null) {
          throw new HelperException(
              helper
                  + "'s chunk "
                  + c
                  + " failed authentication (altered, forged, replayed,"
                  + " reordered or not sealed for this stream)");
        }
        if (words.length != expected) {
          words = new long[expected];
        }
        HelperWire.toWords(plain, words);
        int index = c;
        long[] chunk = words;
        callback(() -> sink.accept(index, chunk));
      }
    }

    /** Runs the caller's callback with the no-progress timeout held; its end is progress. */
    private void callback(Runnable r) {
      inCallback = true;
      try {
        r.run();
      } finally {
        lastProgress = System.nanoTime();
        inCallback = false;
      }
    }

    /** Sends, waiting out the bridge's idle timeout while the watchdog allows. */
    private void send(byte[] frame) throws BridgeException {
      while (true) {
        try {
          stream.send(frame);
          return;
        } catch (BridgeTimeoutException e) {
          if (timedOut) {
            throw e;
          }
        }
      }
    }

    /** The next frame, waiting out the bridge's idle timeout while the watchdog allows. */
    private byte[] receive(String what) throws HelperException {
      while (true) {
        try {
          byte[] f = stream.receive();
          lastProgress = System.nanoTime();
          return f;
        } catch (BridgeTimeoutException e) {
          if (timedOut) {
            throw timeout(what);
          }
        } catch (BridgeException e) {
          if (timedOut) {
            throw timeout(what);
          }
          throw new HelperException(
              "session with "
                  + helper
                  + " failed while waiting for "
                  + what
                  + ": "
                  + e.getMessage(),
              e);
        }
      }
    }

    private HelperException timeout(String what) {
      return new HelperException(
          helper
              + " made no progress for "
              + limit
              + " (waiting for "
              + what
              + "; the helper deals once both parties have arrived)");
    }

    /** Aborts the stream once the helper made no progress for the request's timeout. */
    private void watch() {
      long tick = Math.max(10, Math.min(1000, request.timeout().toMillis() / 10));
      try {
        while (!done) {
          Thread.sleep(tick);
          Duration now = limit;
          if (!done && !inCallback && System.nanoTime() - lastProgress > now.toNanos()) {
            timedOut = true;
            stream.abort("party '" + me.partyName() + "' got nothing from the helper for " + now);
            return;
          }
        }
      } catch (InterruptedException e) {
        // the session ended
      }
    }

    private String abortReason(Throwable t) {
      String what = t instanceof HelperException ? t.getMessage() : "it failed locally";
      return "party " + request.role().label() + " stopped: " + what;
    }
  }
}
