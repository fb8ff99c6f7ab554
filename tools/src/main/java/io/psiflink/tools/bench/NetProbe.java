package io.psiflink.tools.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;

/**
 * Measures a link as the benchmark's parties see it: a client ({@link #main}, run where party B
 * runs) talks to a {@link Server} (where the relay runs) and reports the round trip of one byte
 * (median of 5) and the throughput of a bulk transfer each way, net of one round trip.
 *
 * <p>Protocol: {@code 'P'} is echoed; {@code 'U'}, a long N and N bytes are answered by {@code 'K'}
 * once all arrived; {@code 'D'} and a long N are answered by N bytes.
 */
public final class NetProbe {
  private NetProbe() {}

  /** The server end, on loopback, one connection at a time, until closed. */
  public static final class Server implements AutoCloseable {
    private final ServerSocket server;

    public Server() throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread t = new Thread(this::serve, "net-probe server");
      t.setDaemon(true);
      t.start();
    }

    public InetSocketAddress address() {
      return (InetSocketAddress) server.getLocalSocketAddress();
    }

    private void serve() {
      while (!server.isClosed()) {
        try (Socket s = server.accept()) {
          s.setTcpNoDelay(true);
          DataInputStream in = new DataInputStream(s.getInputStream());
          DataOutputStream out = new DataOutputStream(s.getOutputStream());
          byte[] buf = new byte[1 << 16];
          for (int op; (op = in.read()) >= 0; ) {
            switch (op) {
              case 'P' -> out.write('P');
              case 'U' -> {
                long n = in.readLong();
                while (n > 0) {
                  int k = in.read(buf, 0, (int) Math.min(buf.length, n));
                  if (k < 0) {
                    throw new IOException("upload cut short");
                  }
                  n -= k;
                }
                out.write('K');
              }
              case 'D' -> {
                long n = in.readLong();
                while (n > 0) {
                  int k = (int) Math.min(buf.length, n);
                  out.write(buf, 0, k);
                  n -= k;
                }
              }
              default -> throw new IOException("unknown probe op " + op);
            }
            out.flush();
          }
        } catch (IOException e) {
          // next connection (or closed)
        }
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }

  /**
   * The client: connects to {@code address}, moves {@code bytes} each way and returns {@code
   * rtt_ms}, {@code a_to_b_bits_per_second} (download: towards the client) and {@code
   * b_to_a_bits_per_second} (upload).
   */
  static ObjectNode measure(InetSocketAddress address, long bytes) throws IOException {
    try (Socket s = new Socket()) {
      s.setTcpNoDelay(true);
      s.connect(address, 10_000);
      s.setSoTimeout(120_000);
      DataInputStream in = new DataInputStream(s.getInputStream());
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      double[] rtts = new double[5];
      for (int i = 0; i < rtts.length; i++) {
        long t0 = System.nanoTime();
        out.write('P');
        out.flush();
        expect(in, 'P');
        rtts[i] = (System.nanoTime() - t0) / 1e9;
      }
      Arrays.sort(rtts);
      double rtt = rtts[rtts.length / 2];
      byte[] buf = new byte[1 << 16];

      long t0 = System.nanoTime();
      out.write('U');
      out.writeLong(bytes);
      for (long n = bytes; n > 0; ) {
        int k = (int) Math.min(buf.length, n);
        out.write(buf, 0, k);
        n -= k;
      }
      out.flush();
      expect(in, 'K');
      double up = (System.nanoTime() - t0) / 1e9 - rtt;

      t0 = System.nanoTime();
      out.write('D');
      out.writeLong(bytes);
      out.flush();
      InputStream raw = in;
      for (long n = bytes; n > 0; ) {
        int k = raw.read(buf, 0, (int) Math.min(buf.length, n));
        if (k < 0) {
          throw new IOException("download cut short");
        }
        n -= k;
      }
      double down = (System.nanoTime() - t0) / 1e9 - rtt;

      ObjectNode n = Json.object();
      n.put("bytes", bytes);
      n.put("rtt_ms", Json.three(rtt * 1e3));
      n.put("a_to_b_bits_per_second", Math.round(bytes * 8 / down));
      n.put("b_to_a_bits_per_second", Math.round(bytes * 8 / up));
      return n;
    }
  }

  private static void expect(InputStream in, int c) throws IOException {
    int got = in.read();
    if (got != c) {
      throw new IOException("probe: expected " + (char) c + ", got " + got);
    }
  }

  /** {@code NetProbe HOST:PORT BYTES}: prints the measurement as one JSON line. */
  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: NetProbe HOST:PORT BYTES");
      System.exit(2);
      return;
    }
    OutputStream o = System.out;
    o.write(
        (Json.write(measure(DelayProxy.hostPort(args[0]), Long.parseLong(args[1]))) + "\n")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8));
    o.flush();
  }
}
