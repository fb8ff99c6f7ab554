package io.psiflink.jobs.prefilter;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.helper.HelperClient;
import io.psiflink.helper.HelperException;
import io.psiflink.helper.HelperRequest;
import io.psiflink.jobs.psi.BridgeEndpoint;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * What the helper deals to this party, received on a thread of its own ({@link PrefilterPrefetch},
 * from the job's start): its seed and, at A, all of m_σ (2^L bits, kept in memory until handed on).
 */
final class HelperDeal implements AutoCloseable {
  private final BridgeClient client;
  private final long[][] chunks;
  private final CompletableFuture<HelperClient.Dealt> result = new CompletableFuture<>();
  private final Thread thread;

  private HelperDeal(BridgeClient client, HelperRequest request, BridgeEndpoint bridge) {
    this.client = client;
    this.chunks =
        request.role().equals(Role.A)
            ? new long[HelperClient.chunks(request.filterBits())][]
            : null;
    this.thread =
        new Thread(
            () -> {
              try {
                result.complete(
                    HelperClient.receive(
                        client,
                        bridge.credentials(),
                        request,
                        (c, words) -> chunks[c] = words.clone()));
              } catch (Throwable t) {
                result.completeExceptionally(t);
              }
            },
            "psi-prefilter-helper-" + request.role().label());
    thread.setDaemon(true);
  }

  /** Connects to the relay and starts receiving; {@link #close} ends it early. */
  static HelperDeal start(BridgeEndpoint bridge, HelperRequest request) throws BridgeException {
    HelperDeal deal = new HelperDeal(BridgeClient.connect(bridge.clientConfig()), request, bridge);
    deal.thread.start();
    return deal;
  }

  /**
   * Waits for the helper's whole deal.
   *
   * @throws HelperException as {@link HelperClient#receive} throws it
   * @throws BridgeException as {@link HelperClient#receive} throws it
   */
  HelperClient.Dealt await() throws HelperException, BridgeException, InterruptedException {
    try {
      return result.get();
    } catch (ExecutionException e) {
      Throwable t = e.getCause();
      if (t instanceof HelperException h) {
        throw h;
      }
      if (t instanceof BridgeException b) {
        throw b;
      }
      if (t instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException("receiving from the helper failed: " + t, t);
    }
  }

  /** Chunk c of m_σ (party A, after {@link #await}); the caller's to change. */
  long[] chunk(int c) {
    long[] words = chunks[c];
    chunks[c] = null; // used once: let it go
    return words;
  }

  /** Stops receiving if still under way (the stream ends with the client) and frees m_σ. */
  @Override
  public void close() {
    try {
      client.close();
    } finally {
      if (chunks != null) {
        java.util.Arrays.fill(chunks, null);
      }
    }
  }
}
