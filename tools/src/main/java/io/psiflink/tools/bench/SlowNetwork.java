package io.psiflink.tools.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psiflink.api.Role;
import io.psiflink.tools.local.LocalJoin;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The network between the organisations of {@code ./psi bench join --net RATE,DELAY}:
 *
 * <pre>
 *   root namespace                                    | namespace psi-bench-PID
 *   party A ── lo ── relay ── lo ── DelayProxy(DELAY) ═veth+tbf═ forwarder ── lo ── party B
 *                                                                         └─ lo ── helper
 * </pre>
 *
 * Party A and the relay stay in the root namespace; party B's JVM runs in the {@link ShapedLink}'s
 * namespace and dials the bridge at 127.0.0.1 there (the relay's throwaway certificate names
 * 127.0.0.1), where a plain forwarder (a {@link DelayProxy} with no delay, a small JVM started in
 * the namespace) carries it over the veth pair to a {@link DelayProxy} in this JVM that holds each
 * byte for DELAY in each direction and hands it to the relay. Every byte between A and B thus
 * crosses the pair once (at RATE, each direction on its own tbf) and the delay once; neither
 * party's local traffic is shaped. With {@link Faults} the delaying proxy also resets B's
 * connections at random points and adds jitter ({@code --drop-every}, {@code --jitter}).
 */
public final class SlowNetwork implements AutoCloseable {
  private final ShapedLink link;
  private final DelayProxy delay;
  private final Process forwarder;
  private final int forwarderPort;
  private final AtomicReference<InetSocketAddress> target;

  private SlowNetwork(
      ShapedLink link,
      DelayProxy delay,
      Process forwarder,
      int forwarderPort,
      AtomicReference<InetSocketAddress> target) {
    this.link = link;
    this.delay = delay;
    this.forwarder = forwarder;
    this.forwarderPort = forwarderPort;
    this.target = target;
  }

  /** Whether this machine can make the link: root, and iproute2's {@code ip} and {@code tc}. */
  public static boolean available() {
    try {
      ShapedLink.tool("tc");
      ShapedLink.tool("ip");
      return "0".equals(ShapedLink.run(List.of("id", "-u")).trim());
    } catch (IOException e) {
      return false;
    }
  }

  /** Sets up the link, the delaying proxy and the forwarder in the namespace. */
  public static SlowNetwork start(NetSpec spec, PrintStream log) throws IOException {
    return start(spec, Faults.NONE, log);
  }

  /** {@link #start(NetSpec, PrintStream)} with a delaying proxy that injects {@code faults}. */
  public static SlowNetwork start(NetSpec spec, Faults faults, PrintStream log) throws IOException {
    ShapedLink link = ShapedLink.create(spec, log);
    DelayProxy delay = null;
    Process fwd = null;
    try {
      AtomicReference<InetSocketAddress> target =
          new AtomicReference<>(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1));
      delay =
          DelayProxy.start(
              new InetSocketAddress(InetAddress.getByName(link.rootAddress()), 0),
              target::get,
              spec.delay(),
              DelayProxy.DEFAULT_MAX_QUEUED_BYTES,
              faults);
      List<String> cmd = jvmIn(link, DelayProxy.class);
      cmd.addAll(
          List.of(
              "--listen",
              "127.0.0.1:0",
              "--target",
              link.rootAddress() + ":" + delay.address().getPort(),
              "--delay",
              "0ms"));
      fwd = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      BufferedReader r =
          new BufferedReader(new InputStreamReader(fwd.getInputStream(), StandardCharsets.UTF_8));
      String line = r.readLine();
      if (line == null || !line.startsWith("listening ")) {
        throw new IOException("the forwarder in namespace " + link.namespace() + " did not start");
      }
      int port = DelayProxy.hostPort(line.substring("listening ".length())).getPort();
      return new SlowNetwork(link, delay, fwd, port, target);
    } catch (IOException | RuntimeException e) {
      if (fwd != null) {
        fwd.destroyForcibly();
      }
      if (delay != null) {
        delay.close();
      }
      link.close();
      throw e;
    }
  }

  /** The command line of a small JVM inside the link's namespace running {@code main} of ours. */
  private static List<String> jvmIn(ShapedLink link, Class<?> main) {
    List<String> cmd = new ArrayList<>(link.exec());
    cmd.addAll(
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            "-cp",
            System.getProperty("java.class.path"),
            main.getName()));
    return cmd;
  }

  public NetSpec spec() {
    return link.spec();
  }

  /** B's connections the delaying proxy reset on purpose so far. */
  public long connectionsDropped() {
    return delay.connectionsDropped();
  }

  /** The namespace party B runs in. */
  public String namespace() {
    return link.namespace();
  }

  /**
   * {@link LocalJoin}'s hooks for one run: party B and the helper in the namespace, their bridge
   * connections through the forwarder and the delaying proxy to the relay. So every byte between A
   * and either of them crosses the link, as between organisations; B's few bytes with the helper (a
   * seed) cross it twice.
   */
  public LocalJoin.Hooks hooks() {
    return new LocalJoin.Hooks() {
      @Override
      public int bridgePort(Role party, int relayPort) {
        if (!remote(party)) {
          return relayPort;
        }
        target.set(new InetSocketAddress(InetAddress.getLoopbackAddress(), relayPort));
        return forwarderPort;
      }

      @Override
      public List<String> launchPrefix(Role party) {
        return remote(party) ? link.exec() : List.of();
      }

      private boolean remote(Role party) {
        return party.equals(Role.B) || party.equals(Role.HELPER);
      }
    };
  }

  /**
   * Measures the path B's bridge connection takes (forwarder, veth with tbf, delaying proxy) with
   * {@link NetProbe}: round trip and throughput each way of about two seconds' worth of the rate.
   */
  public JsonNode measure(PrintStream log) throws IOException, InterruptedException {
    long bytes = Math.max(1 << 20, Math.min(256L << 20, spec().rateBytesPerSecond() * 2));
    // the link as it is, without drops: a drop would break the probe's connection
    delay.dropsEnabled(false);
    try (NetProbe.Server server = new NetProbe.Server()) {
      target.set(server.address());
      List<String> cmd = jvmIn(link, NetProbe.class);
      cmd.addAll(List.of("127.0.0.1:" + forwarderPort, Long.toString(bytes)));
      Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IOException("the link probe failed: " + out);
      }
      JsonNode m = Json.parse(out);
      log.printf(
          java.util.Locale.ROOT,
          "== link measured: round trip %s ms (2 x %s expected), A->B %.1f Mbit/s, B->A %.1f"
              + " Mbit/s (rate %s)%n",
          m.path("rtt_ms").asText(),
          spec().text().split(",")[1],
          m.path("a_to_b_bits_per_second").asDouble() / 1e6,
          m.path("b_to_a_bits_per_second").asDouble() / 1e6,
          spec().text().split(",")[0]);
      return m;
    } finally {
      delay.dropsEnabled(true);
    }
  }

  /** The setting as the benchmark's JSON records it. */
  public ObjectNode toJson() {
    ObjectNode n = Json.object();
    n.put("spec", spec().text());
    n.put("rate_bits_per_second", spec().rateBitsPerSecond());
    n.put("delay_ms", Json.three(spec().delay().toNanos() / 1e6));
    n.put("tbf_burst_bytes", spec().tbfBurstBytes());
    n.put("tbf_limit_bytes", spec().tbfLimitBytes());
    n.put(
        "shaped",
        "party B and the helper in namespace "
            + link.namespace()
            + "; they <-> relay over veth + tbf");
    return n;
  }

  @Override
  public void close() throws IOException {
    try {
      forwarder.getOutputStream().close(); // its end of input: it exits
      if (!forwarder.waitFor(5, TimeUnit.SECONDS)) {
        forwarder.destroyForcibly();
      }
    } catch (InterruptedException e) {
      forwarder.destroyForcibly();
      Thread.currentThread().interrupt();
    } finally {
      delay.close();
      link.close();
    }
  }
}
