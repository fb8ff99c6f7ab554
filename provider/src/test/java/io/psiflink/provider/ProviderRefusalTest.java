package io.psiflink.provider;

import static io.psiflink.provider.ProviderBed.PROVIDER;
import static io.psiflink.provider.ProviderBed.X;
import static io.psiflink.provider.ProviderBed.assertMentions;
import static io.psiflink.provider.ProviderBed.failure;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgePeerException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.HelloCrypto;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.bridge.ThrowawayPki;
import io.psiflink.provider.proto.v1.Signed;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the provider refuses, and how a run fails: every party learns a clear reason that names the
 * cause and the party at fault, within the provider's timeouts, and the provider serves on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProviderRefusalTest {
  private static final String A = ProviderBed.PARTIES.get(0);
  private static final String B = ProviderBed.PARTIES.get(1);
  private static final String C = ProviderBed.PARTIES.get(2);
  private static final String D = ProviderBed.PARTIES.get(3);
  private static final byte[] SECRET = new byte[32];

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

  private static ProviderRequest request(String session, List<String> parties, int index) {
    return new ProviderRequest(session, PROVIDER, null, parties, index, "");
  }

  private Future<ProviderLink> connect(ProviderBed bed, String as, ProviderRequest r) {
    return pool.submit(() -> ProviderClient.connect(bed.client(as), r, bed.creds(as)));
  }

  /** A party double's signed HELLO for {@code r} on the setup channel of {@code channelIndex}. */
  private static BridgeStream hello(
      ProviderBed bed, String as, ProviderRequest r, int channelIndex, UnaryOperator<Signed> tamper)
      throws Exception {
    PartyCredentials me = bed.creds(as);
    byte[] hello = ProviderWire.partyHello(r, me, HelloCrypto.x25519().getPublic().getEncoded());
    Signed signed = Signed.parseFrom(ProviderWire.sign(me, "party hello", r.session(), hello));
    BridgeStream s =
        bed.client(as).open(r.session(), ProviderWire.setupChannel(channelIndex), PROVIDER);
    s.send(tamper.apply(signed).toByteArray());
    return s;
  }

  private static void assertRefused(BridgeStream s, String... why) {
    BridgePeerException e = assertThrows(BridgePeerException.class, s::receive);
    assertMentions(e, "provider 'provider' refused");
    assertMentions(e, why);
  }

  @Test
  void aPartyTheProviderDoesNotServeIsRefusedAndSoIsAListNamingIt() throws Exception {
    try (ProviderBed bed = new ProviderBed(pki)) {
      bed.provider();
      List<String> parties = List.of(A, B, X);
      Future<ProviderLink> a = connect(bed, A, request("with-x", parties, 0));
      Future<ProviderLink> x = connect(bed, X, request("with-x", parties, 2));
      assertMentions(
          failure(a),
          "provider 'provider' aborted the session's setup",
          "names party 'party-x', which is not among the parties this provider serves");
      assertMentions(failure(x), "party 'party-x' is not among the parties this provider serves");
    }
  }

  @Test
  void aHelloWhoseIndexIsNotItsNameOrItsChannelIsRefused() throws Exception {
    try (ProviderBed bed = new ProviderBed(pki)) {
      bed.provider();
      List<String> parties = List.of(A, B, C);
      // party A claims index 1, where the list names party B
      assertRefused(
          hello(bed, A, request("index", parties, 1), 1, s -> s),
          "the HELLO names 'party-b' at its index 1 but the relay authenticated 'party-a'");
      // index 0 on the channel of P2
      assertRefused(
          hello(bed, A, request("channel", parties, 0), 1, s -> s),
          "the HELLO gives index 0 of 3 parties on the channel of P2");
    }
  }

  @Test
  void aTamperedSignatureIsRefused() throws Exception {
    try (ProviderBed bed = new ProviderBed(pki)) {
      bed.provider();
      assertRefused(
          hello(
              bed,
              A,
              request("tampered", List.of(A, B, C), 0),
              0,
              s -> {
                byte[] sig = s.getSignature().toByteArray();
                sig[sig.length / 2] ^= 1;
                return s.toBuilder().setSignature(ByteString.copyFrom(sig)).build();
              }),
          "the signature of the HELLO does not verify");
      // and a HELLO another party's key signed
      PartyCredentials b = bed.creds(B);
      ProviderRequest r = request("foreign", List.of(A, B, C), 0);
      assertRefused(
          hello(
              bed,
              A,
              r,
              0,
              s ->
                  Signed.newBuilder()
                      .setHello(s.getHello())
                      .setSignature(
                          ByteString.copyFrom(
                              HelloCrypto.sign(
                                  b,
                                  ProviderWire.MAGIC,
                                  "party hello",
                                  r.session(),
                                  s.getHello().toByteArray())))
                      .build()),
          "the signature of the HELLO does not verify");
    }
  }

  @Test
  void partiesThatDisagreeOnTheListOrTheParametersAreAllRefused() throws Exception {
    try (ProviderBed bed = new ProviderBed(pki)) {
      bed.provider();
      Future<ProviderLink> a = connect(bed, A, request("lists", List.of(A, B, C), 0));
      Future<ProviderLink> b = connect(bed, B, request("lists", List.of(A, B, D), 1));
      for (Future<ProviderLink> f : List.of(a, b)) {
        assertMentions(failure(f), "the parties disagree on the session", "names parties");
      }
      Future<ProviderLink> a2 = connect(bed, A, request("params", List.of(A, B), 0));
      Future<ProviderLink> b2 =
          connect(
              bed, B, new ProviderRequest("params", PROVIDER, null, List.of(A, B), 1, "fpr=1e-9"));
      for (Future<ProviderLink> f : List.of(a2, b2)) {
        assertMentions(failure(f), "the parties disagree on the session", "'fpr=1e-9'");
      }
    }
  }

  @Test
  void whenAPartyDoesNotArriveEveryoneLearnsWhoIsMissing() throws Exception {
    try (ProviderBed bed = new ProviderBed(pki)) {
      bed.provider(bed.config(Duration.ofMillis(1500), Duration.ofSeconds(20)));
      List<String> parties = List.of(A, B, C);
      long start = System.nanoTime();
      Future<ProviderLink> a = connect(bed, A, request("two-of-three", parties, 0));
      Future<ProviderLink> b = connect(bed, B, request("two-of-three", parties, 1));
      for (Future<ProviderLink> f : List.of(a, b)) {
        assertMentions(
            failure(f),
            "P3 ('party-c') did not reach provider 'provider' within PT1.5S for the setup of"
                + " session two-of-three (2 of 3 parties arrived)");
      }
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertTrue(ms < 10_000, "failed after " + ms + " ms");

      // and a bin that one party never runs
      List<ProviderLink> links = ProviderBed.links(bed.connectAll(pool, "bin-missing", 3, ""));
      ProviderBed.Sets sets = ProviderBed.sets(11, 5, 20, 20, 20);
      List<Future<BinOutcome>> runs = bed.runBin(pool, links.subList(0, 2), 4, 0, SECRET, sets);
      for (Future<BinOutcome> f : runs) {
        assertMentions(
            failure(f),
            "P3 ('party-c') did not reach provider 'provider' within PT1.5S for bin 4 of session"
                + " bin-missing");
      }
    }
  }

  @Test
  void partiesThatDisagreeOnTheAttemptAreAllRefused() throws Exception {
    try (ProviderBed bed = new ProviderBed(pki)) {
      bed.provider();
      List<ProviderLink> links = ProviderBed.links(bed.connectAll(pool, "attempts", 3, ""));
      ProviderBed.Sets sets = ProviderBed.sets(12, 5, 20, 20, 20);
      List<Future<BinOutcome>> runs = new ArrayList<>();
      runs.addAll(bed.runBin(pool, links.subList(0, 2), 0, 0, SECRET, sets));
      runs.addAll(bed.runBin(pool, links.subList(2, 3), 0, 1, SECRET, sets));
      for (Future<BinOutcome> f : runs) {
        assertMentions(
            failure(f),
            "the parties disagree on the attempt of bin 0: P1 ('party-a') 0, P2 ('party-b') 0,"
                + " P3 ('party-c') 1");
      }
      // the session serves on: the same bin, next attempt, all parties
      List<Future<BinOutcome>> again = bed.runBin(pool, links, 0, 2, SECRET, sets);
      for (int p = 0; p < 3; p++) {
        org.junit.jupiter.api.Assertions.assertArrayEquals(
            sets.expected()[p], again.get(p).get(30, TimeUnit.SECONDS).intersection());
      }
    }
  }

  @Test
  void aDemandAboveTheProvidersMaximumFailsTheBinNamingTheParty() throws Exception {
    try (ProviderBed bed = new ProviderBed(pki)) {
      bed.provider(bed.config(Duration.ofSeconds(20), Duration.ofSeconds(20), 21));
      List<ProviderLink> links = ProviderBed.links(bed.connectAll(pool, "too-large", 3, ""));
      // demands 21, 22, 23 (count + 1 + index)
      List<Future<BinOutcome>> runs =
          bed.runBin(pool, links, 0, 0, SECRET, ProviderBed.sets(13, 5, 20, 20, 20));
      assertMentions(
          failure(runs.get(2)), "asks for set size 23, more than this provider's maximum 21");
      assertMentions(
          failure(runs.get(0)),
          "P3 ('party-c') broke off bin 0 of session too-large: asks for set size 23");
    }
  }

  @Test
  void aPartyPinningAnotherCertificateStopsAndTheOthersLearnWho() throws Exception {
    try (ProviderBed bed = new ProviderBed(pki)) {
      bed.provider();
      List<String> parties = List.of(A, B, C);
      Future<ProviderLink> a = connect(bed, A, request("pinned", parties, 0));
      Future<ProviderLink> b = connect(bed, B, request("pinned", parties, 1));
      Future<ProviderLink> c =
          connect(bed, C, new ProviderRequest("pinned", PROVIDER, new byte[32], parties, 2, ""));
      assertMentions(
          failure(c), "rejected the HELLO of provider 'provider'", "is not the pinned one");
      for (Future<ProviderLink> f : List.of(a, b)) {
        assertMentions(failure(f), "P3 ('party-c') broke off the setup of session pinned");
      }
    }
  }

  /** Party C's double: a valid BIN_HELLO for bin 0, then it reads BIN_START and returns. */
  private static BridgeStream binHelloOfC(ProviderBed bed, BridgeClient client, ProviderLink c)
      throws Exception {
    BridgeStream s = client.open(c.request().session(), ProviderWire.binChannel(0, 2), PROVIDER);
    SealedLink link = new SealedLink(s, 0, 0, true, null, "provider").withKey(c.linkKey());
    byte[] nonce = new byte[32];
    link.keyOut(nonce, new byte[0]);
    byte[] hello = ProviderWire.binHello(0, 0, 40);
    s.send(link.seal(ByteBuffer.allocate(36).putInt(0).put(nonce).array(), hello, 0, hello.length));
    if (s.receive() == null) {
      throw new AssertionError("no BIN_START");
    }
    return s;
  }

  @Test
  void aPartySilentMidBinFailsTheOthersNamingItWithinTheIdleTimeout() throws Exception {
    try (ProviderBed bed = new ProviderBed(pki)) {
      bed.provider(bed.config(Duration.ofSeconds(20), Duration.ofSeconds(2)));
      List<ProviderLink> links = ProviderBed.links(bed.connectAll(pool, "silent", 3, ""));
      List<Future<BinOutcome>> runs =
          bed.runBin(pool, links.subList(0, 2), 0, 0, SECRET, ProviderBed.sets(14, 5, 20, 20, 20));
      BridgeStream c = binHelloOfC(bed, bed.client(C), links.get(2));
      long start = System.nanoTime();
      for (Future<BinOutcome> f : runs) {
        assertMentions(
            failure(f),
            "P3 ('party-c') broke off bin 0 of session silent",
            "kept the provider waiting for PT2S in ONLINE round 0");
      }
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertTrue(ms < 8_000, "failed after " + ms + " ms, not within the idle timeout");
      BridgePeerException toC = assertThrows(BridgePeerException.class, c::receive);
      assertMentions(toC, "kept the provider waiting for PT2S");
    }
  }

  @Test
  void aPartyVanishingMidBinFailsTheOthersNamingIt() throws Exception {
    try (ProviderBed bed = new ProviderBed(pki)) {
      bed.provider(bed.config(Duration.ofSeconds(20), Duration.ofSeconds(20)));
      List<ProviderLink> links = ProviderBed.links(bed.connectAll(pool, "vanish", 3, ""));
      List<Future<BinOutcome>> runs =
          bed.runBin(pool, links.subList(0, 2), 0, 0, SECRET, ProviderBed.sets(15, 5, 20, 20, 20));
      BridgeClient client = bed.client(C);
      binHelloOfC(bed, client, links.get(2));
      long start = System.nanoTime();
      client.close(); // gone, as a crashed task
      for (Future<BinOutcome> f : runs) {
        assertMentions(failure(f), "P3 ('party-c') broke off bin 0 of session vanish", "left in");
      }
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertTrue(ms < 5_000, "failed after " + ms + " ms");
    }
  }

  @Test
  void garbageMidBinFailsTheBinNamingTheSenderAndTheProviderServesOn() throws Exception {
    try (ProviderBed bed = new ProviderBed(pki)) {
      bed.provider();
      List<ProviderLink> links = ProviderBed.links(bed.connectAll(pool, "garbage", 3, ""));
      ProviderBed.Sets sets = ProviderBed.sets(16, 5, 20, 20, 20);
      List<Future<BinOutcome>> runs = bed.runBin(pool, links.subList(0, 2), 0, 0, SECRET, sets);
      BridgeStream c = binHelloOfC(bed, bed.client(C), links.get(2));
      c.send(new byte[200]); // not sealed under C's key
      for (Future<BinOutcome> f : runs) {
        assertMentions(
            failure(f), "P3 ('party-c') broke off bin 0", "frame 1 from P3 ('party-c') failed");
      }
      List<Future<BinOutcome>> again = bed.runBin(pool, links, 0, 1, SECRET, sets);
      for (int p = 0; p < 3; p++) {
        org.junit.jupiter.api.Assertions.assertArrayEquals(
            sets.expected()[p], again.get(p).get(30, TimeUnit.SECONDS).intersection());
      }
    }
  }
}
