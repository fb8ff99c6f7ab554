package io.psiflink.provider;

import static io.psiflink.provider.ProviderBed.assertMentions;
import static io.psiflink.provider.ProviderBed.failure;

import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeClientConfig;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.ThrowawayPki;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A party against a provider double that holds the session's link keys (it set the session up
 * honestly) but then answers a bin wrongly: the party refuses, naming what was wrong, and tells the
 * provider why.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostileProviderTest {
  @TempDir static Path dir;
  private static ThrowawayPki pki;
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @BeforeAll
  static void createPki() {
    pki = ProviderBed.pki(dir);
  }

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  /** What the double does once it opened party A's BIN_HELLO. */
  @FunctionalInterface
  private interface Answer {
    void answer(BridgeStream s, SealedLink link, byte[] partyNonce) throws Exception;
  }

  /** Sets a two-party session up, then lets the double answer party A's bin 0. */
  private ProviderException against(Answer answer) throws Exception {
    try (ProviderBed bed = new ProviderBed(pki)) {
      ProviderService real = bed.provider();
      List<ProviderLink> links = ProviderBed.links(bed.connectAll(pool, "hostile", 2, ""));
      real.close();
      byte[] key = links.get(0).linkKey();
      try (BridgeClient fake =
          BridgeClient.connect(
              BridgeClientConfig.defaults(
                  "127.0.0.1", bed.relay.port(), bed.creds(ProviderBed.PROVIDER)))) {
        fake.listen(
            call ->
                pool.submit(
                    () -> {
                      BridgeStream s = fake.open(call.session(), call.channel());
                      byte[] f = s.receive();
                      byte[] nonce = Arrays.copyOfRange(f, 4, 36);
                      SealedLink link = new SealedLink(s, 0, 0, false, null, "P1").withKey(key);
                      link.keyIn(nonce, new byte[0]);
                      link.open(f, 36); // a valid BIN_HELLO
                      answer.answer(s, link, nonce);
                      return null;
                    }));
        Future<List<Future<BinOutcome>>> runs =
            pool.submit(
                () ->
                    bed.runBin(
                        pool,
                        links.subList(0, 1),
                        0,
                        0,
                        new byte[32],
                        ProviderBed.sets(30, 5, 20, 20)));
        return failure(runs.get(30, TimeUnit.SECONDS).get(0));
      }
    }
  }

  /** Seals {@code start} behind the provider nonce, both directions keyed for the run. */
  private static void sendStart(BridgeStream s, SealedLink link, byte[] pn, byte[] start)
      throws Exception {
    byte[] on = new byte[32];
    on[0] = 7;
    link.keyOut(pn, on);
    s.send(link.seal(on, start, 0, start.length));
  }

  @Test
  void aBinStartWithoutThisPartysNonceIsRefused() throws Exception {
    assertMentions(
        against(
            (s, link, pn) ->
                sendStart(
                    s, link, pn, ProviderWire.binStart(21, List.of(new byte[32], new byte[32])))),
        "provider 'provider' sent 2 party nonces for 2 parties, or not this party's at its index");
  }

  @Test
  void aSetSizeBelowThePartysDemandIsRefused() throws Exception {
    assertMentions(
        against((s, link, pn) -> sendStart(s, link, pn, ProviderWire.binStart(5, List.of(pn, pn)))),
        "provider 'provider' set the bin's set size to 5, not between this party's demand 21");
  }

  @Test
  void aBinStartSealedForAnotherRunIsRefused() throws Exception {
    assertMentions(
        against(
            (s, link, pn) -> {
              byte[] start = ProviderWire.binStart(21, List.of(pn, pn));
              link.keyOut(pn, new byte[32]); // sealed under another provider nonce than it sends
              byte[] f = link.seal(new byte[0], start, 0, start.length);
              s.send(
                  ByteBuffer.allocate(32 + f.length)
                      .put(new byte[31])
                      .put((byte) 1)
                      .put(f)
                      .array());
            }),
        "frame 0 from provider 'provider' failed authentication");
  }

  @Test
  void aProviderThatEndsTheStreamBeforeBinStartIsRefused() throws Exception {
    assertMentions(
        against((s, link, pn) -> s.finish()),
        "provider 'provider' ended the stream before its BIN_START");
  }
}
