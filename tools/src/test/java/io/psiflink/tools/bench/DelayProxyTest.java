package io.psiflink.tools.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
