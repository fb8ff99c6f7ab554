package io.psiflink.tools.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The rate-limited link of {@code ./psi bench join --net}: a network namespace ({@code
 * psi-bench-<pid>}) joined to the root namespace by a veth pair, with a {@code tbf} qdisc on each
 * end's egress, so each direction across the pair runs at the rate (full duplex). The benchmark
 * puts party B's JVM in the namespace; what crosses the pair is then exactly B's traffic with the
 * relay, i.e. everything between the two organisations, while each party's own traffic (its
 * MiniCluster on its loopback) is not shaped.
 *
 * <p>Needs root and {@code ip}/{@code tc} (iproute2). {@link #close} deletes the namespace (which
 * takes the veth pair and both qdiscs with it); a shutdown hook does the same on Ctrl-C, and {@link
 * #create} first removes namespaces left by benchmarks that died without cleaning up.
 */
public final class ShapedLink implements AutoCloseable {
  static final String PREFIX = "psi-bench-";

  private final NetSpec spec;
  private final String namespace;
  private final String rootAddress;
  private final String nsAddress;
  private final String ip;
  private final Thread hook;
  private boolean closed;

  private ShapedLink(
      NetSpec spec, String namespace, String rootAddress, String nsAddress, String ip) {
    this.spec = spec;
    this.namespace = namespace;
    this.rootAddress = rootAddress;
    this.nsAddress = nsAddress;
    this.ip = ip;
    this.hook = new Thread(this::deleteQuietly, "delete " + namespace);
  }

  /**
   * Creates the namespace, the veth pair and the qdiscs.
   *
   * @throws IOException with a message saying what is missing (root, ip, tc) or which command
   *     failed and what it printed
   */
  public static ShapedLink create(NetSpec spec, PrintStream log) throws IOException {
    String ip = tool("ip");
    String tc = tool("tc");
    if (!"0".equals(run(List.of("id", "-u")).trim())) {
      throw new IOException(
          "--net needs root (network namespaces and tc qdiscs); run ./psi bench join as root");
    }
    removeStale(ip, log);
    long pid = ProcessHandle.current().pid();
    String ns = PREFIX + pid;
    // a /30 of 10.213.0.0/16 per pid, so that two benchmarks at once do not collide
    int a = (int) ((pid >> 6) & 0xff);
    int b = (int) ((pid & 0x3f) << 2);
    String base = String.format(Locale.ROOT, "10.213.%d.", a);
    String root = base + (b + 1);
    String inNs = base + (b + 2);
    String vr = "psib" + pid;
    String vn = "psin" + pid;
    ShapedLink link = new ShapedLink(spec, ns, root, inNs, ip);
    Runtime.getRuntime().addShutdownHook(link.hook);
    try {
      run(List.of(ip, "netns", "add", ns));
      run(List.of(ip, "link", "add", vr, "type", "veth", "peer", "name", vn));
      run(List.of(ip, "link", "set", vn, "netns", ns));
      run(List.of(ip, "addr", "add", root + "/30", "dev", vr));
      run(List.of(ip, "link", "set", vr, "up"));
      run(List.of(ip, "-n", ns, "addr", "add", inNs + "/30", "dev", vn));
      run(List.of(ip, "-n", ns, "link", "set", vn, "up"));
      run(List.of(ip, "-n", ns, "link", "set", "lo", "up"));
      // root -> namespace (A to B) and namespace -> root (B to A), each at the rate
      run(tbf(List.of(tc), vr, spec));
      run(tbf(List.of(ip, "netns", "exec", ns, tc), vn, spec));
    } catch (IOException e) {
      link.close();
      throw e;
    }
    log.printf(
        Locale.ROOT,
        "== --net %s: namespace %s (%s) <-> root (%s), tbf rate %s burst %d limit %d on both ends%n",
        spec.text(),
        ns,
        inNs,
        root,
        spec.tcRate(),
        spec.tbfBurstBytes(),
        spec.tbfLimitBytes());
    return link;
  }

  private static List<String> tbf(List<String> tc, String dev, NetSpec spec) {
    List<String> cmd = new ArrayList<>(tc);
    cmd.addAll(
        List.of(
            "qdisc",
            "add",
            "dev",
            dev,
            "root",
            "tbf",
            "rate",
            spec.tcRate(),
            "burst",
            Long.toString(spec.tbfBurstBytes()),
            "limit",
            Long.toString(spec.tbfLimitBytes())));
    return cmd;
  }

  public NetSpec spec() {
    return spec;
  }

  public String namespace() {
    return namespace;
  }

  /** The root namespace's end of the pair: where B reaches the relay side. */
  public String rootAddress() {
    return rootAddress;
  }

  /** The namespace's end of the pair. */
  public String namespaceAddress() {
    return nsAddress;
  }

  /** Prefix of a command that runs it inside the namespace. */
  public List<String> exec() {
    return List.of(ip, "netns", "exec", namespace);
  }

  /** Deletes the namespace (idempotent). */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    deleteQuietly();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // shutting down: the hook runs (or ran) anyway
    }
  }

  private void deleteQuietly() {
    try {
      // a process still inside keeps the namespace alive after its name is gone: stop them first
      for (String p : run(List.of(ip, "netns", "pids", namespace)).split("\\s+")) {
        if (!p.isBlank()) {
          ProcessHandle.of(Long.parseLong(p.trim())).ifPresent(ProcessHandle::destroyForcibly);
        }
      }
      run(List.of(ip, "netns", "del", namespace));
    } catch (IOException | RuntimeException e) {
      // already gone
    }
  }

  /** Deletes {@code psi-bench-<pid>} namespaces whose benchmark process no longer runs. */
  private static void removeStale(String ip, PrintStream log) throws IOException {
    for (String line : run(List.of(ip, "netns", "list")).split("\n")) {
      String name = line.trim().split("\\s+")[0];
      if (!name.startsWith(PREFIX)) {
        continue;
      }
      long pid;
      try {
        pid = Long.parseLong(name.substring(PREFIX.length()));
      } catch (NumberFormatException e) {
        continue;
      }
      if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
        continue;
      }
      log.println("== removing the stale namespace " + name + " of a benchmark that died");
      run(List.of(ip, "netns", "del", name));
    }
  }

  /** The path of {@code name} on PATH or in /usr/sbin, /sbin. */
  static String tool(String name) throws IOException {
    List<String> dirs = new ArrayList<>();
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(File.pathSeparator)));
    }
    dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
    for (String d : dirs) {
      Path p = Path.of(d, name);
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    throw new IOException(
        "--net needs '"
            + name
            + "' (Debian package iproute2), which is not on PATH nor in /usr/sbin or /sbin");
  }

  /** Runs {@code cmd}, returns its output; a non-zero exit is an IOException with the output. */
  static String run(List<String> cmd) throws IOException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    StringBuilder out = new StringBuilder();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        out.append(line).append('\n');
      }
    }
    try {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", cmd) + ": no answer in 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted: " + String.join(" ", cmd), e);
    }
    if (p.exitValue() != 0) {
      throw new IOException(
          String.join(" ", cmd) + " failed (exit " + p.exitValue() + "): " + out.toString().trim());
    }
    return out.toString();
  }
}
