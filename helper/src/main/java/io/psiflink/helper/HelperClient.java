package io.psiflink.helper;

import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.BridgeTimeoutException;
import io.psiflink.bridge.PartyCredentials;
import java.security.KeyPair;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A party's side of the server-aided sample filter: sends this party's masked filter m_i to the
 * helper and receives the helper's B_C = m_A XNOR m_B, chunk by chunk (helper.proto has the wire).
 *
 * <p>The stream to the helper goes through the relay like any peer's: {@link BridgeClient#open}
 * with the helper as callee, on (session, "prefilter-A"|"prefilter-B"). It is end-to-end
 * authenticated and sealed: signed HELLOs (this party's TLS key, the helper's), X25519, HKDF,
 * AES-256-GCM per chunk, so the relay learns only the traffic volume (2^L bits each way). The
 * helper's certificate must chain to this party's CA, carry the helper's name and, when the request
 * pins it, have that SHA-256.
 *
 * <p>Chunks are sent ahead of the answers by a sender thread, so flow control cannot deadlock: the
 * helper answers chunk c once it has chunk c of both parties.
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

  /** Chunk {@code index} of this party's masked filter. */
  @FunctionalInterface
  public interface ChunkSource {
    /**
     * Called on a sender thread of the exchange, for index 0, 1, ... in order, concurrently with
     * {@link ChunkSink#accept} on the caller's thread; must return exactly {@link #chunkWords}
     * words (the array is not kept after the call returns).
     */
    long[] chunk(int index);
  }

  /** Receives chunk {@code index} of the helper's combined filter, on the caller's thread. */
  @FunctionalInterface
  public interface ChunkSink {
    void accept(int index, long[] words);
  }

  /**
   * Streams this party's masked filter, chunk c = source.chunk(c) (chunkWords long words, bit i of
   * the filter = bit (i &amp; 63) of word i &gt;&gt;&gt; 6), and hands the helper's combined chunk
   * c to sink.accept(c, words) in order (the array may be reused after return). Blocks until done.
   *
   * @throws BridgeException if the relay cannot give this party a stream to the helper (e.g. "party
   *     'h' is not connected to the relay", or it did not open the stream in time)
   * @throws HelperException if the helper refuses or aborts the session, sends anything that does
   *     not verify or open, or makes no progress within {@code request.timeout()}
   * @throws IllegalArgumentException if {@code source} returns a chunk of the wrong length
   */
  public static void exchange(
      BridgeClient bridge,
      PartyCredentials me,
      HelperRequest request,
      ChunkSource source,
      ChunkSink sink)
      throws BridgeException, HelperException {
    Objects.requireNonNull(bridge, "bridge");
    Objects.requireNonNull(me, "me");
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(source, "source");
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
    new Exchange(stream, me, request, source, sink).run(dh, hello, signed);
  }

  /** One exchange's state: the stream, its watchdog and the sender thread. */
  private static final class Exchange {
    private final BridgeStream stream;
    private final PartyCredentials me;
    private final HelperRequest request;
    private final ChunkSource source;
    private final ChunkSink sink;
    private final String helper;
    private final int chunks;
    private final AtomicReference<Throwable> senderFailure = new AtomicReference<>();
    private volatile long lastProgress = System.nanoTime();
    private volatile boolean timedOut;
    private volatile boolean done;

    Exchange(
        BridgeStream stream,
        PartyCredentials me,
        HelperRequest request,
        ChunkSource source,
        ChunkSink sink) {
      this.stream = stream;
      this.me = me;
      this.request = request;
      this.source = source;
      this.sink = sink;
      this.helper = "helper '" + request.helperParty() + "'";
      this.chunks = chunks(request.filterBits());
    }

    void run(KeyPair dh, byte[] hello, byte[] signed) throws HelperException {
      Thread watchdog = new Thread(this::watch, "psi-helper-watchdog-" + request.session());
      watchdog.setDaemon(true);
      watchdog.start();
      Thread sender = null;
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
        HelperWire.ChunkCipher out = new HelperWire.ChunkCipher(key);
        HelperWire.ChunkCipher in = new HelperWire.ChunkCipher(key);
        Arrays.fill(key, (byte) 0);
        sender = new Thread(() -> sendChunks(out), "psi-helper-sender-" + request.session());
        sender.setDaemon(true);
        sender.start();
        receiveChunks(in);
        sender.join();
        rethrowSenderFailure();
        done = true;
        stream.close();
        LOG.debug(
            "party '{}' exchanged its filter with {} for session {}",
            me.partyName(),
            helper,
            request.session());
      } catch (HelperException | RuntimeException e) {
        stream.abort(abortReason(e));
        joinQuietly(sender);
        throw e;
      } catch (InterruptedException e) {
        stream.abort("party '" + me.partyName() + "' was interrupted");
        Thread.currentThread().interrupt();
        throw new HelperException("interrupted while exchanging with " + helper, e);
      } finally {
        done = true;
        watchdog.interrupt();
      }
    }

    private void receiveChunks(HelperWire.ChunkCipher in) throws HelperException {
      long[] words = new long[chunkWords(request.filterBits(), 0)];
      for (int c = 0; c < chunks; c++) {
        byte[] sealed = receive("combined chunk " + c + " of " + chunks);
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
        sink.accept(c, words);
        lastProgress = System.nanoTime();
      }
      if (receive("the end of the stream") != null) {
        throw new HelperException(helper + " sent more than the " + chunks + " chunks");
      }
    }

    private void sendChunks(HelperWire.ChunkCipher out) {
      try {
        for (int c = 0; c < chunks; c++) {
          long[] words = source.chunk(c);
          int expected = chunkWords(request.filterBits(), c);
          if (words == null || words.length != expected) {
            throw new IllegalArgumentException(
                "the filter source gave chunk "
                    + c
                    + " with "
                    + (words == null ? "no array" : words.length + " words")
                    + ", expected "
                    + expected);
          }
          send(out.seal(HelperWire.TO_HELPER, c, HelperWire.toBytes(words, expected)));
        }
        stream.finish();
      } catch (Throwable t) {
        senderFailure.compareAndSet(null, t);
        stream.abort(abortReason(t)); // wakes the receiving thread
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
          Throwable s = senderFailure.get();
          if (s instanceof RuntimeException r) {
            throw r;
          }
          if (s instanceof Error err) {
            throw err;
          }
          throw new HelperException(
              "exchange with "
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
              + request.timeout()
              + " (waiting for "
              + what
              + "; the helper answers once both parties have arrived)");
    }

    private void rethrowSenderFailure() throws HelperException {
      Throwable t = senderFailure.get();
      if (t == null) {
        return;
      }
      if (t instanceof RuntimeException r) {
        throw r;
      }
      if (t instanceof Error e) {
        throw e;
      }
      if (timedOut) {
        throw timeout("the helper to take this party's chunks");
      }
      throw new HelperException("sending to " + helper + " failed: " + t.getMessage(), t);
    }

    /** Aborts the stream once the helper made no progress for the request's timeout. */
    private void watch() {
      long limit = request.timeout().toNanos();
      long tick = Math.max(10, Math.min(1000, request.timeout().toMillis() / 10));
      try {
        while (!done) {
          Thread.sleep(tick);
          if (!done && System.nanoTime() - lastProgress > limit) {
            timedOut = true;
            stream.abort(
                "party '"
                    + me.partyName()
                    + "' got nothing from the helper for "
                    + request.timeout());
            return;
          }
        }
      } catch (InterruptedException e) {
        // the exchange ended
      }
    }

    private String abortReason(Throwable t) {
      String what = t instanceof HelperException ? t.getMessage() : "it failed locally";
      return "party " + request.role().label() + " stopped: " + what;
    }

    private static void joinQuietly(Thread t) {
      if (t == null) {
        return;
      }
      try {
        t.join(Duration.ofSeconds(5).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
