package io.psiflink.jobs.prefilter;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.helper.HelperClient;
import io.psiflink.helper.HelperException;
import io.psiflink.jobs.psi.PeerProtocolException;
import io.psiflink.jobs.psi.SealedBinStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the pre-filter's AND needs from others before this party's filter is complete, received
 * while the table is read, on threads of subtask 0 of {@link BloomPartial} (a task that runs from
 * the job's start; {@link PrefilterExchange} is deployed only once tokenizing is done): the
 * helper's deal ({@link HelperDeal}: the seed and, at A, m_σ) and, at the sender, the chooser's e
 * ({@link FilterAnd#receiveChoices}, stream {@link PrefilterLink#CHOICES_CHANNEL}). Both parties
 * reach the helper at their jobs' start, and on a slow link these 2 · 2^L bits cross while the
 * parties still tokenize. At the end of input the subtask hands all of it to the exchange as {@link
 * Received} records, which stay inside this party's job.
 */
final class PrefilterPrefetch implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PrefilterPrefetch.class);

  private final PrefilterLink link;
  private final PrefilterPlan plan;
  private final HelperDeal deal;
  private final BridgeClient client;
  private final CompletableFuture<long[][]> choices;
  private volatile SealedBinStream choicesStream;

  private PrefilterPrefetch(
      PrefilterLink link,
      PrefilterPlan plan,
      byte[] frameKey,
      HelperDeal deal,
      BridgeClient client) {
    this.link = link;
    this.plan = plan;
    this.deal = deal;
    this.client = client;
    if (client == null) {
      choices = CompletableFuture.completedFuture(null);
      return;
    }
    choices = new CompletableFuture<>();
    Thread t =
        new Thread(() -> receiveChoices(frameKey), "psi-prefilter-choices-" + link.role().label());
    t.setDaemon(true);
    t.start();
  }

  /** Starts receiving: from the helper, and at the sender from the chooser. */
  static PrefilterPrefetch start(PrefilterLink link, PrefilterPlan plan, byte[] frameKey)
      throws BridgeException {
    boolean sender = !link.role().equals(plan.chooser());
    LOG.info(
        "party {}: receiving the pre-filter's correlations from helper '{}'{} while the table is"
            + " read",
        link.role().label(),
        link.helper(),
        sender ? " and party " + link.role().peer().label() + "'s choices" : "");
    HelperDeal deal = HelperDeal.start(link.bridge(), link.helperRequest(plan.filterBits()));
    BridgeClient client = null;
    try {
      client = sender ? BridgeClient.connect(link.bridge().clientConfig()) : null;
      return new PrefilterPrefetch(link, plan, frameKey, deal, client);
    } catch (BridgeException | RuntimeException e) {
      deal.close();
      if (client != null) {
        client.close();
      }
      throw e;
    }
  }

  private void receiveChoices(byte[] frameKey) {
    try (BridgeStream raw = link.open(client, PrefilterLink.CHOICES_CHANNEL);
        SealedBinStream s =
            new SealedBinStream(raw, frameKey, SealedBinStream.PREFILTER, link.role())) {
      choicesStream = s;
      long[][] e = FilterAnd.receiveChoices(s, plan.filterBits(), link.role(), link.attempts());
      if (s.receive() != null) {
        throw new PeerProtocolException(
            "party " + link.role().peer().label() + " sent more than its choices");
      }
      s.finish();
      choices.complete(e);
    } catch (Throwable t) {
      choices.completeExceptionally(t);
    }
  }

  /**
   * Waits for everything and hands it on: the seed, at A every chunk of m_σ, at the sender every
   * chunk of e.
   *
   * @throws PrefilterExchange.PrefilterException if the helper or the peer failed, naming it (the
   *     helper's deal is awaited first: a peer whose helper failed aborts too)
   */
  void emit(Consumer<long[]> out)
      throws PrefilterExchange.PrefilterException, InterruptedException {
    HelperClient.Dealt dealt;
    long[][] e;
    try {
      dealt = deal.await();
      e = choices.get();
    } catch (HelperException | BridgeException ex) {
      throw link.failed(ex);
    } catch (ExecutionException ex) {
      throw link.failed(ex.getCause());
    }
    out.accept(Received.seed(dealt.seed()));
    if (link.role().equals(Role.A)) {
      for (int c = 0; c < HelperClient.chunks(plan.filterBits()); c++) {
        out.accept(Received.of(Received.M_SIGMA, c, deal.chunk(c)));
      }
    }
    for (int c = 0; e != null && c < e.length; c++) {
      out.accept(Received.of(Received.CHOICE, c, e[c]));
      e[c] = null;
    }
  }

  /** Stops what is still under way (its streams end with their clients). */
  @Override
  public void close() {
    try {
      deal.close();
    } finally {
      SealedBinStream s = choicesStream;
      if (s != null) {
        s.close();
      }
      if (client != null) {
        client.close();
      }
    }
  }
}
