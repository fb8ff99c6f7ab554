package io.psiflink.tools.local;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP forwarder on loopback that, once, drops every connection it carries after a given number of
 * bytes went from the client to the server: a network fault in the middle of a bin.
 */
final class CuttingProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int target;
  private final long cutAfter;
  private final AtomicLong forwarded = new AtomicLong();
  private final AtomicBoolean cut = new AtomicBoolean();
  private final List<Socket> open = new CopyOnWriteArrayList<>();

  CuttingProxy(int target, long cutAfter) throws IOException {
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.target = target;
    this.cutAfter = cutAfter;
    Thread t = new Thread(this::accept, "proxy accept");
    t.setDaemon(true);
    t.start();
  }

  int port() {
    return server.getLocalPort();
  }

  boolean hasCut() {
    return cut.get();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
        open.add(client);
        open.add(upstream);
        pipe(client, upstream, true);
        pipe(upstream, client, false);
      } catch (IOException e) {
        return;
      }
    }
  }

  private void pipe(Socket from, Socket to, boolean counts) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[16384];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) > 0) {
                  out.write(buf, 0, n);
                  if (counts
                      && forwarded.addAndGet(n) > cutAfter
                      && cut.compareAndSet(false, true)) {
                    for (Socket s : open) {
                      s.close();
                    }
                    open.clear();
                    return;
                  }
                }
              } catch (IOException e) {
                // connection closed
              } finally {
                try {
                  to.close();
                } catch (IOException ignored) {
                  // already closed
                }
              }
            },
            "proxy pipe");
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : open) {
      s.close();
    }
  }
}
