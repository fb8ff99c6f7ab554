package io.psiflink.tools.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A TCP proxy that delays every byte by a fixed time in each direction: what a link with that
 * one-way latency does, without netem (which these machines' kernels lack).
 *
 * <p>Each direction of a connection has a reader that stamps what it reads with the time it arrived
 * and queues it, and a writer that forwards each chunk once {@code delay} has passed since its
 * stamp. The writer waits only for the oldest chunk; later chunks that are already due go out at
 * once, so the delay adds latency but does not cap throughput (a link of rate R and delay D holds R
 * · D bytes in flight; so does the queue). Order is kept, a half-close is forwarded after the delay
 * too, and a direction's queue holds at most {@code maxQueuedBytes} (then its reader stops reading,
 * and TCP pushes back on the sender).
 *
 * <p>With {@link Faults} it also injects faults: it resets connections at seeded random points of
 * the byte stream, and adds a random jitter to the delay ({@code ./psi bench join --drop-every}, a
 * fault drill).
 *
 * <p>As a program ({@link #main}), it runs until its standard input closes (its parent died or
 * closed it), so that a proxy started in a network namespace never outlives the benchmark.
 */
public final class DelayProxy implements AutoCloseable {
  /** What a direction's queue holds at most by default. */
  public static final int DEFAULT_MAX_QUEUED_BYTES = 64 << 20;

  private static final int CHUNK = 64 * 1024;

  private final ServerSocket server;
  private final Supplier<InetSocketAddress> target;
  private final long delayNanos;
  private final int maxQueuedBytes;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final AtomicLong forwarded = new AtomicLong();
  private final Faults faults;
  private final Faults.DropSchedule drops;
  private final SplittableRandom jitterRandom;
  private volatile boolean dropsEnabled = true;

  private DelayProxy(
      ServerSocket server,
      Supplier<InetSocketAddress> target,
      Duration delay,
      int maxQueuedBytes,
      Faults faults) {
    this.server = server;
    this.target = target;
    this.delayNanos = delay.toNanos();
    this.maxQueuedBytes = maxQueuedBytes;
    this.faults = faults;
    this.drops =
        faults.drops() ? new Faults.DropSchedule(faults.dropEveryBytes(), faults.seed()) : null;
    // its own stream, so that the jitter does not move the drop points of a seed
    this.jitterRandom = new SplittableRandom(faults.seed() ^ 0x5DEECE66DL);
  }

  /**
   * Listens on {@code listen} (port 0: any) and forwards each connection to the address {@code
   * target} gives when the connection arrives.
   *
   * @param maxQueuedBytes at least 64 KiB
   */
  public static DelayProxy start(
      InetSocketAddress listen,
      Supplier<InetSocketAddress> target,
      Duration delay,
      int maxQueuedBytes)
      throws IOException {
    return start(listen, target, delay, maxQueuedBytes, Faults.NONE);
  }

  /** {@link #start(InetSocketAddress, Supplier, Duration, int)} injecting {@code faults}. */
  public static DelayProxy start(
      InetSocketAddress listen,
      Supplier<InetSocketAddress> target,
      Duration delay,
      int maxQueuedBytes,
      Faults faults)
      throws IOException {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("negative delay " + delay);
    }
    if (maxQueuedBytes < CHUNK) {
      throw new IllegalArgumentException("maxQueuedBytes must be at least " + CHUNK);
    }
    ServerSocket s = new ServerSocket();
    s.bind(listen, 50);
    DelayProxy p = new DelayProxy(s, target, delay, maxQueuedBytes, faults);
    daemon(p::accept, "delay-proxy accept " + s.getLocalSocketAddress());
    return p;
  }

  /** Where it listens. */
  public InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  /** Bytes forwarded so far, both directions. */
  public long bytesForwarded() {
    return forwarded.get();
  }

  /** The connections it reset on purpose so far ({@link Faults#dropEveryBytes()}). */
  public long connectionsDropped() {
    return drops == null ? 0 : drops.drops();
  }

  /**
   * Turns the drops off (bytes forwarded meanwhile do not count towards the next drop point) or on
   * again, e.g. while measuring the link.
   */
  public void dropsEnabled(boolean on) {
    dropsEnabled = on;
  }

  /**
   * Where its drops fell so far, each as the bytes it had forwarded (both directions, all
   * connections) when it reset the connection. What was still in the reset socket's send buffer is
   * lost, as on a real network.
   */
  public List<Long> dropPoints() {
    return drops == null ? List.of() : drops.points();
  }

  /** The faults it injects. */
  public Faults faults() {
    return faults;
  }

  /** Stops listening and drops every connection. */
  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : open) {
      closeQuietly(s);
    }
    open.clear();
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      Socket upstream = new Socket();
      try {
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        upstream.connect(target.get(), 10_000);
      } catch (IOException | RuntimeException e) {
        closeQuietly(client);
        closeQuietly(upstream);
        continue;
      }
      open.add(client);
      open.add(upstream);
      Connection c = new Connection(client, upstream);
      direction(c, client, upstream, "up");
      direction(c, upstream, client, "down");
    }
  }

  /** Both sockets of one proxied connection; closed once both directions ended. */
  private final class Connection {
    final Socket a;
    final Socket b;
    int ended;

    Connection(Socket a, Socket b) {
      this.a = a;
      this.b = b;
    }

    /** A network fault: both ends get a reset (RST), not an orderly close. */
    synchronized void reset() {
      for (Socket s : new Socket[] {a, b}) {
        try {
          s.setSoLinger(true, 0);
        } catch (IOException e) {
          // already closed
        }
      }
      end(true);
    }

    synchronized void end(boolean failed) {
      if (failed || ++ended == 2) {
        closeQuietly(a);
        closeQuietly(b);
        open.remove(a);
        open.remove(b);
      }
    }
  }

  /**
   * A chunk to forward at {@code due} (System.nanoTime: when it was read, plus the delay and its
   * jitter), or the end of the stream (data null).
   */
  private record Chunk(long due, byte[] data) {}

  /** When a chunk read now is due. */
  private long due() {
    long now = System.nanoTime();
    long j = faults.jitter().toNanos();
    if (j == 0) {
      return now + delayNanos;
    }
    synchronized (jitterRandom) {
      return now + delayNanos + jitterRandom.nextLong(j + 1);
    }
  }

  /** The chunks in flight in one direction, at most {@code maxQueuedBytes} of them. */
  private final class Queue {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Condition notFull = lock.newCondition();
    private final ArrayDeque<Chunk> chunks = new ArrayDeque<>();
    private long bytes;
    private boolean dead;

    void put(Chunk c) throws InterruptedException, IOException {
      int n = c.data() == null ? 0 : c.data().length;
      lock.lock();
      try {
        while (!dead && bytes + n > maxQueuedBytes) {
          notFull.await();
        }
        if (dead) {
          throw new IOException("the other end closed");
        }
        chunks.addLast(c);
        bytes += n;
        notEmpty.signal();
      } finally {
        lock.unlock();
      }
    }

    Chunk take() throws InterruptedException {
      lock.lock();
      try {
        while (chunks.isEmpty()) {
          notEmpty.await();
        }
        return chunks.peekFirst();
      } finally {
        lock.unlock();
      }
    }

    void remove(Chunk c) {
      lock.lock();
      try {
        chunks.pollFirst();
        bytes -= c.data() == null ? 0 : c.data().length;
        notFull.signal();
      } finally {
        lock.unlock();
      }
    }

    void kill() {
      lock.lock();
      try {
        dead = true;
        notFull.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  private void direction(Connection c, Socket from, Socket to, String name) {
    Queue q = new Queue();
    String label = "delay-proxy " + name + " " + from.getRemoteSocketAddress();
    Thread[] threads = new Thread[2];
    threads[0] =
        new Thread(
            () -> {
              try {
                // not closed here: the socket's other direction may still be in use
                InputStream in = from.getInputStream();
                byte[] buf = new byte[CHUNK];
                int n;
                while ((n = in.read(buf)) > 0) {
                  q.put(new Chunk(due(), Arrays.copyOf(buf, n)));
                }
                q.put(new Chunk(due(), null));
              } catch (IOException | InterruptedException e) {
                // the connection broke: drop it, and wake the writer, which waits for chunks
                c.end(true);
                threads[1].interrupt();
              }
            },
            label + " read");
    threads[1] =
        new Thread(
            () -> {
              boolean failed = true;
              try {
                OutputStream out = to.getOutputStream();
                while (true) {
                  Chunk k = q.take();
                  // in order: a chunk due before the one ahead of it (jitter) waits for it
                  long wait = k.due() - System.nanoTime();
                  while (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                    wait = k.due() - System.nanoTime();
                  }
                  if (k.data() == null) {
                    to.shutdownOutput();
                    failed = false;
                    return;
                  }
                  long cut = drops == null || !dropsEnabled ? -1 : drops.take(k.data().length);
                  if (cut >= 0) {
                    // the drop point falls in this chunk: what comes before it, then a reset
                    out.write(k.data(), 0, (int) cut);
                    out.flush();
                    forwarded.addAndGet(cut);
                    c.reset();
                    return;
                  }
                  out.write(k.data());
                  forwarded.addAndGet(k.data().length);
                  q.remove(k);
                }
              } catch (IOException | InterruptedException e) {
                // the connection broke
              } finally {
                q.kill();
                c.end(failed);
              }
            },
            label + " write");
    for (Thread t : threads) {
      t.setDaemon(true);
      t.start();
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // nothing left to do
    }
  }

  /**
   * {@code DelayProxy --listen HOST:PORT --target HOST:PORT --delay DURATION}: prints {@code
   * listening HOST:PORT} once it listens, then forwards until its standard input closes.
   */
  public static void main(String[] args) throws Exception {
    PrintStream out = System.out;
    InetSocketAddress listen = null;
    InetSocketAddress target = null;
    Duration delay = Duration.ZERO;
    List<String> a = List.of(args);
    try {
      for (int i = 0; i < a.size(); i += 2) {
        if (i + 1 >= a.size()) {
          throw new IllegalArgumentException(a.get(i) + " needs a value");
        }
        String v = a.get(i + 1);
        switch (a.get(i)) {
          case "--listen" -> listen = hostPort(v);
          case "--target" -> target = hostPort(v);
          case "--delay" -> delay = NetSpec.parse("1gbit," + v).delay();
          default -> throw new IllegalArgumentException("unknown option " + a.get(i));
        }
      }
      if (listen == null || target == null) {
        throw new IllegalArgumentException("--listen and --target are required");
      }
    } catch (IllegalArgumentException e) {
      System.err.println(
          "DelayProxy: "
              + e.getMessage()
              + " (usage: DelayProxy --listen HOST:PORT --target HOST:PORT [--delay 10ms])");
      System.exit(2);
      return;
    }
    InetSocketAddress t = target;
    try (DelayProxy p = start(listen, () -> t, delay, DEFAULT_MAX_QUEUED_BYTES)) {
      out.println(
          "listening " + p.address().getAddress().getHostAddress() + ":" + p.address().getPort());
      out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      while (in.readLine() != null) {
        // runs until the parent closes our input
      }
    }
  }

  static InetSocketAddress hostPort(String text) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("HOST:PORT expected, not '" + text + "'");
    }
    try {
      return new InetSocketAddress(
          InetAddress.getByName(text.substring(0, colon)),
          Integer.parseInt(text.substring(colon + 1)));
    } catch (IOException | NumberFormatException e) {
      throw new IllegalArgumentException("HOST:PORT expected, not '" + text + "'");
    }
  }
}
