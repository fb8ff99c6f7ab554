package io.psiflink.tools.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The delaying proxy against a plain loopback server: bytes intact and in order, none earlier than
 * the delay, and the delay adds latency without capping throughput.
 */
class DelayProxyTest {
  private static final InetSocketAddress ANY =
      new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

  /** A server that accepts one connection and hands it to {@code handler} on its own thread. */
  private static CompletableFuture<Void> serveOnce(ServerSocket server, SocketHandler handler) {
    return CompletableFuture.runAsync(
        () -> {
          try (Socket s = server.accept()) {
            handler.handle(s);
          } catch (IOException e) {
            throw new RuntimeException(e);
          }
        });
  }

  private interface SocketHandler {
    void handle(Socket s) throws IOException;
  }

  private static ServerSocket listen() throws IOException {
    ServerSocket s = new ServerSocket();
    s.bind(ANY);
    return s;
  }

  private static DelayProxy proxy(ServerSocket target, Duration delay, int maxQueued)
      throws IOException {
    InetSocketAddress t = (InetSocketAddress) target.getLocalSocketAddress();
    return DelayProxy.start(ANY, () -> t, delay, maxQueued);
  }

  private static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  @Test
  void aMegabyteArrivesIntactInOrderAfterTheDelayAndIsNotThrottledToAChunkPerDelay()
      throws Exception {
    byte[] data = random(1 << 20, 1);
    Duration delay = Duration.ofMillis(50);
    try (ServerSocket server = listen();
        DelayProxy p = proxy(server, delay, DelayProxy.DEFAULT_MAX_QUEUED_BYTES)) {
      long[] firstByteAt = new long[1];
      long[] lastByteAt = new long[1];
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      CompletableFuture<Void> done =
          serveOnce(
              server,
              s -> {
                InputStream in = s.getInputStream();
                byte[] buf = new byte[16384];
                int n;
                while ((n = in.read(buf)) > 0) {
                  if (got.size() == 0) {
                    firstByteAt[0] = System.nanoTime();
                  }
                  got.write(buf, 0, n);
                }
                lastByteAt[0] = System.nanoTime();
              });
      long sent;
      try (Socket c = new Socket()) {
        c.connect(p.address());
        OutputStream out = c.getOutputStream();
        sent = System.nanoTime();
        // 64 writes of 16 KiB: a proxy that slept per chunk would take 64 x 50 ms = 3.2 s
        for (int off = 0; off < data.length; off += 16384) {
          out.write(data, off, 16384);
        }
        c.shutdownOutput();
        done.get(30, TimeUnit.SECONDS);
      }
      assertArrayEquals(data, got.toByteArray());
      double firstMs = (firstByteAt[0] - sent) / 1e6;
      double allMs = (lastByteAt[0] - sent) / 1e6;
      assertTrue(firstMs >= 50, "first byte after " + firstMs + " ms, before the 50 ms delay");
      // 1 MB on loopback takes a few ms; allow the shared machine's noise, far below 3.2 s
      assertTrue(allMs < 50 + 700, "1 MB took " + allMs + " ms through a 50 ms proxy");
      assertEquals(data.length, p.bytesForwarded());
    }
  }

  @Test
  void eachDirectionPaysTheDelayOnItsOwn() throws Exception {
    Duration delay = Duration.ofMillis(40);
    try (ServerSocket server = listen();
        DelayProxy p = proxy(server, delay, DelayProxy.DEFAULT_MAX_QUEUED_BYTES)) {
      CompletableFuture<Void> echo =
          serveOnce(server, s -> s.getInputStream().transferTo(s.getOutputStream()));
      try (Socket c = new Socket()) {
        c.connect(p.address());
        c.setTcpNoDelay(true);
        for (int round = 0; round < 5; round++) {
          long t0 = System.nanoTime();
          c.getOutputStream().write(round);
          int b = c.getInputStream().read();
          double rttMs = (System.nanoTime() - t0) / 1e6;
          assertEquals(round, b);
          assertTrue(rttMs >= 80, "round trip " + rttMs + " ms under 2 x 40 ms");
          assertTrue(rttMs < 80 + 500, "round trip " + rttMs + " ms");
        }
        c.shutdownOutput();
        // the server's end of stream comes back through the proxy as ours
        assertEquals(-1, c.getInputStream().read());
      }
      echo.get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aSmallQueuePushesBackOnTheSenderAndLosesNothing() throws Exception {
    byte[] data = random(4 << 20, 2);
    int maxQueued = 64 * 1024;
    try (ServerSocket server = listen();
        DelayProxy p = proxy(server, Duration.ofMillis(5), maxQueued)) {
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      CompletableFuture<Void> done =
          serveOnce(
              server,
              s -> {
                InputStream in = s.getInputStream();
                byte[] buf = new byte[1000];
                int n;
                while ((n = in.read(buf)) > 0) {
                  got.write(buf, 0, n);
                }
              });
      try (Socket c = new Socket()) {
        c.connect(p.address());
        c.getOutputStream().write(data);
        c.shutdownOutput();
        done.get(60, TimeUnit.SECONDS);
      }
      assertArrayEquals(data, got.toByteArray());
    }
  }

  @Test
  void aBrokenUpstreamClosesTheClient() throws Exception {
    try (ServerSocket server = listen();
        DelayProxy p = proxy(server, Duration.ofMillis(1), DelayProxy.DEFAULT_MAX_QUEUED_BYTES)) {
      CompletableFuture<Void> closer = serveOnce(server, s -> s.setSoLinger(true, 0));
      try (Socket c = new Socket()) {
        c.connect(p.address());
        c.setSoTimeout(10_000);
        closer.get(10, TimeUnit.SECONDS);
        // an end of stream or a reset, not a hang
        try {
          assertEquals(-1, c.getInputStream().read());
        } catch (IOException e) {
          // reset: fine
        }
      }
    }
  }

  /**
   * Sends {@code data} through a proxy with {@code faults}, one connection after another, each
   * resending from where the server's bytes stopped (as a retried bin starts again); checks that
   * each connection delivered an intact piece of the data and ended, by the proxy's drop or by the
   * data's end. Returns the proxy's drop points.
   */
  private static List<Long> sendThroughDrops(byte[] data, Faults faults) throws Exception {
    List<Long> lengths = new ArrayList<>();
    try (ServerSocket server = listen();
        DelayProxy p =
            DelayProxy.start(
                ANY,
                () -> (InetSocketAddress) server.getLocalSocketAddress(),
                Duration.ZERO,
                DelayProxy.DEFAULT_MAX_QUEUED_BYTES,
                faults)) {
      int offset = 0;
      while (offset < data.length) {
        int from = offset;
        CompletableFuture<Long> received =
            CompletableFuture.supplyAsync(
                () -> {
                  try (Socket s = server.accept()) {
                    InputStream in = s.getInputStream();
                    byte[] buf = new byte[8192];
                    long n = 0;
                    try {
                      for (int k; (k = in.read(buf)) > 0; n += k) {
                        // what arrives is exactly what was sent, from where this connection began
                        assertArrayEquals(
                            Arrays.copyOfRange(data, from + (int) n, from + (int) n + k),
                            Arrays.copyOf(buf, k));
                      }
                    } catch (IOException reset) {
                      // the proxy's reset: the bytes counted so far are what got through
                    }
                    return n;
                  } catch (IOException e) {
                    throw new RuntimeException(e);
                  }
                });
        try (Socket c = new Socket()) {
          c.connect(p.address());
          c.setSoTimeout(20_000);
          try {
            c.getOutputStream().write(data, from, data.length - from);
            c.shutdownOutput();
            // the server's end of stream, or the reset: never a hang
            assertEquals(-1, c.getInputStream().read());
          } catch (java.net.SocketTimeoutException e) {
            throw new AssertionError("the client hangs after a drop", e);
          } catch (IOException reset) {
            // the client sees the drop as a reset
          }
        }
        long n = received.get(30, TimeUnit.SECONDS);
        lengths.add(n);
        offset += (int) n;
      }
      List<Long> points = p.dropPoints();
      assertEquals(lengths.size() - 1, points.size(), "a drop per connection but the last");
      for (int k = 0; k < points.size(); k++) {
        // sequential connections: the k-th carried the bytes between two drop points; the server
        // got them all but what the reset discarded from the proxy's send buffer
        long carried = points.get(k) - (k == 0 ? 0 : points.get(k - 1));
        assertTrue(lengths.get(k) <= carried, lengths + " against the drops at " + points);
      }
      // the last connection ended with the data, in order, and nothing was lost on it
      long last = lengths.get(lengths.size() - 1);
      assertEquals(
          (points.isEmpty() ? 0 : points.get(points.size() - 1)) + last, p.bytesForwarded());
      return points;
    }
  }

  @Test
  void dropsResetConnectionsAtSeededPointsOnePerEveryBytesAndLoseNothingBeforeThem()
      throws Exception {
    byte[] data = random(3 << 20, 3);
    long every = 256 * 1024;
    List<Long> first = sendThroughDrops(data, new Faults(every, Duration.ZERO, 42));
    // 3 MiB sent and more resent: a drop per ~256 KiB, each gap within [every/2, 3every/2]
    assertTrue(first.size() >= 8, "only " + first.size() + " drops: " + first);
    for (int k = 0; k < first.size(); k++) {
      long gap = first.get(k) - (k == 0 ? 0 : first.get(k - 1));
      assertTrue(gap >= every / 2 && gap <= every * 3 / 2, "gap " + gap + " in " + first);
    }
    // the seed fixes the points: the same again, and others with another seed
    // the seed fixes the points: the same again (as far as both got: what a reset loses is resent,
    // so the number of drops may differ), and others with another seed
    List<Long> again = sendThroughDrops(data, new Faults(every, Duration.ZERO, 42));
    int n = Math.min(first.size(), again.size());
    assertEquals(first.subList(0, n), again.subList(0, n));
    assertNotEquals(
        first.get(0), sendThroughDrops(data, new Faults(every, Duration.ZERO, 43)).get(0));
  }

  @Test
  void jitterDelaysEachChunkRandomlyWithinItsBoundAndKeepsTheOrder() throws Exception {
    Duration delay = Duration.ofMillis(10);
    Duration jitter = Duration.ofMillis(30);
    try (ServerSocket server = listen();
        DelayProxy p =
            DelayProxy.start(
                ANY,
                () -> (InetSocketAddress) server.getLocalSocketAddress(),
                delay,
                DelayProxy.DEFAULT_MAX_QUEUED_BYTES,
                new Faults(0, jitter, 7))) {
      CompletableFuture<Void> echo =
          serveOnce(server, s -> s.getInputStream().transferTo(s.getOutputStream()));
      try (Socket c = new Socket()) {
        c.connect(p.address());
        c.setTcpNoDelay(true);
        c.setSoTimeout(10_000);
        double min = Double.MAX_VALUE;
        double max = 0;
        for (int round = 0; round < 20; round++) {
          long t0 = System.nanoTime();
          // three writes in a row: each its own chunk, each its own jitter, in order on arrival
          for (int k = 0; k < 3; k++) {
            c.getOutputStream().write(3 * round + k);
          }
          for (int k = 0; k < 3; k++) {
            assertEquals(3 * round + k, c.getInputStream().read());
          }
          double ms = (System.nanoTime() - t0) / 1e6;
          min = Math.min(min, ms);
          max = Math.max(max, ms);
          // two delays at least; at most two delays and two jitters, and a loaded machine's noise
          assertTrue(ms >= 20, "round trip " + ms + " ms under 2 x 10 ms");
          assertTrue(ms < 20 + 60 + 500, "round trip " + ms + " ms");
        }
        // uniform jitter of 0..30 ms each way: 20 round trips within 2 ms of each other are not
        assertTrue(max - min > 2, "no jitter: round trips from " + min + " to " + max + " ms");
        c.shutdownOutput();
        assertEquals(-1, c.getInputStream().read());
      }
      echo.get(10, TimeUnit.SECONDS);
      assertEquals(0, p.connectionsDropped());
    }
  }

  @Test
  void faultsRejectWhatCannotBeMeantAndParseSizes() {
    assertEquals(64_000_000L, Faults.parseBytes("64MB"));
    assertEquals(64L << 20, Faults.parseBytes("64MiB"));
    assertEquals(32_000_000L, Faults.parseBytes("32e6"));
    assertEquals(1_000L, Faults.parseBytes("1_000"));
    assertEquals(Duration.ofMillis(5), Faults.parseJitter("5ms"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Faults.parseBytes("lots"));
    assertTrue(e.getMessage().contains("'lots'"), e.getMessage());
    // drops closer than the session handshake's bytes would never let a join start
    assertThrows(IllegalArgumentException.class, () -> new Faults(1000, Duration.ZERO, 1));
    assertThrows(IllegalArgumentException.class, () -> new Faults(0, Duration.ofSeconds(11), 1));
    assertThrows(IllegalArgumentException.class, () -> Faults.parseJitter("5 parsecs"));
  }

  @Test
  void theProgramRejectsAWrongCommandLineAndTheAddressParserNamesTheText() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> DelayProxy.hostPort("nohost"));
    assertTrue(e.getMessage().contains("'nohost'"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> DelayProxy.start(ANY, () -> ANY, Duration.ofMillis(-1), 1 << 20));
    assertThrows(
        IllegalArgumentException.class, () -> DelayProxy.start(ANY, () -> ANY, Duration.ZERO, 10));
  }
}
