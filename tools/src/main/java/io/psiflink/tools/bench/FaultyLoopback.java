package io.psiflink.tools.bench;

import io.psiflink.api.Role;
import io.psiflink.tools.local.LocalJoin;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code ./psi bench join --drop-every/--jitter} without {@code --net}: a {@link DelayProxy}
 * injecting the faults between party B (and the helper) and the relay, all on loopback, so a fault
 * drill needs neither root nor tc. Party A dials the relay directly, as with {@link SlowNetwork}:
 * every byte between the organisations crosses the proxy once.
 */
public final class FaultyLoopback implements AutoCloseable {
  private final DelayProxy proxy;
  private final AtomicReference<InetSocketAddress> target;

  private FaultyLoopback(DelayProxy proxy, AtomicReference<InetSocketAddress> target) {
    this.proxy = proxy;
    this.target = target;
  }

  /** Starts the proxy; its target is the relay, set when a run's relay listens ({@link #hooks}). */
  public static FaultyLoopback start(Duration delay, Faults faults) throws IOException {
    InetAddress lo = InetAddress.getLoopbackAddress();
    // until a run sets the relay, connections go nowhere (port 1) and are closed
    AtomicReference<InetSocketAddress> target = new AtomicReference<>(new InetSocketAddress(lo, 1));
    DelayProxy p =
        DelayProxy.start(
            new InetSocketAddress(lo, 0),
            target::get,
            delay,
            DelayProxy.DEFAULT_MAX_QUEUED_BYTES,
            faults);
    return new FaultyLoopback(p, target);
  }

  /** {@link LocalJoin}'s hooks for one run: B's and the helper's bridge through the proxy. */
  public LocalJoin.Hooks hooks() {
    return new LocalJoin.Hooks() {
      @Override
      public int bridgePort(Role party, int relayPort) {
        if (!party.equals(Role.B) && !party.equals(Role.HELPER)) {
          return relayPort;
        }
        target.set(new InetSocketAddress(InetAddress.getLoopbackAddress(), relayPort));
        return proxy.address().getPort();
      }
    };
  }

  /** Connections reset on purpose so far. */
  public long connectionsDropped() {
    return proxy.connectionsDropped();
  }

  public Faults faults() {
    return proxy.faults();
  }

  @Override
  public void close() throws IOException {
    proxy.close();
  }
}
