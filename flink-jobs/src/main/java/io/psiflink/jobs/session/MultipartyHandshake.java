package io.psiflink.jobs.session;

import com.google.protobuf.ByteString;
import io.psiflink.api.Column;
import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.bridge.PartyCredentials;
import io.psiflink.jobs.bin.BinPlan;
import io.psiflink.jobs.control.v1.GroupKeys;
import io.psiflink.jobs.psi.ControlMessages;
import io.psiflink.jobs.psi.Frames;
import io.psiflink.jobs.psi.PeerProtocolException;
import io.psiflink.jobs.psi.SealedBinStream;
import io.psiflink.jobs.session.SessionHandshake.Exchange;
import io.psiflink.jobs.session.SessionHandshake.HandshakeException;
import io.psiflink.jobs.session.SessionHandshake.LocalFacts;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The control handshake of an n-party session (the multiparty join), among the parties only: the
 * provider takes no part in it and never holds its keys.
 *
 * <ol>
 *   <li>The output party (index 0) and every other party j run the two-party HELLO exchange of
 *       {@link SessionHandshake} on their own stream {@code (session, "group-control-P<j+1>")}:
 *       signed HELLOs naming the whole group (every party's name, the provider's), certificates
 *       checked and pinned, the same query, protocol, σ and key types. Their X25519 agreement gives
 *       the pair's frame key, which seals everything else between them (the group's keys here, the
 *       revealed columns of every bin later).
 *   <li>Once every pair agreed, the output party draws the token key, the bin seed and the group
 *       secret of the protocol (the parties' shared secret that blinds the joint decryption), fixes
 *       the bin count, and sends them to each party sealed under their pair's key. A party that
 *       fails any check ends every stream with the reason, so no party goes on alone.
 * </ol>
 *
 * <p>Other parties never talk to each other: what one learns of another is the group's names.
 */
public final class MultipartyHandshake {
  static final int TOKEN_KEY_BYTES = 32;
  static final int BIN_SEED_BYTES = 16;
  public static final int GROUP_SECRET_BYTES = 32;

  private MultipartyHandshake() {}

  /**
   * What the handshake establishes for one party.
   *
   * @param tokenKey HMAC key of the token PRF, the same at every party
   * @param binSeed SipHash key of the bin hash, the same at every party
   * @param groupSecret the protocol's group secret, the same at every party
   * @param bins the agreed bin count
   * @param pairKeys per party index, the frame key this party shares with it: at the output party
   *     one per other party (null at index 0); at another party only index 0 is set
   * @param revealed at the output party, per party index the columns it reveals (index 0: none
   *     listed); elsewhere empty lists
   * @param named at the output party, per party index every column of its table the query names
   *     (index 0: none listed); elsewhere empty lists
   */
  public record GroupSecrets(
      byte[] tokenKey,
      byte[] binSeed,
      byte[] groupSecret,
      int bins,
      List<byte[]> pairKeys,
      List<List<Column>> revealed,
      List<List<Column>> named) {}

  /** The control channel of the output party and party {@code j} (0-based, j ≥ 1). */
  static String channel(int j) {
    return "group-control-P" + (j + 1);
  }

  /**
   * Runs this party's side. {@code facts} names the group ({@link LocalFacts#multiparty()}) and
   * this party's role ({@code Role.party(i, n)}); {@code pins} holds, per party index, the SHA-256
   * of its certificate the session names, or null to accept any certificate of its name.
   */
  public static GroupSecrets run(
      BridgeClient client, String session, PartyCredentials me, LocalFacts facts, List<byte[]> pins)
      throws BridgeException, PeerProtocolException, HandshakeException {
    if (facts.multiparty() == null) {
      throw new IllegalArgumentException("not an n-party session");
    }
    return facts.role().index() == 0
        ? asOutputParty(client, session, me, facts, pins)
        : asParty(client, session, me, facts, pins.get(0));
  }

  private static GroupSecrets asParty(
      BridgeClient client, String session, PartyCredentials me, LocalFacts facts, byte[] pin)
      throws BridgeException, PeerProtocolException, HandshakeException {
    int n = facts.multiparty().parties().size();
    LocalFacts pair = facts.withPeer(facts.multiparty().parties().get(0), pin);
    try (BridgeStream stream = client.open(session, channel(facts.role().index()))) {
      try {
        Exchange x = SessionHandshake.exchangeHellos(stream, session, me, pair);
        SessionHandshake.agree(pair, x.peer(), null);
        byte[] key = frameKey(x);
        GroupKeys keys;
        try (SealedBinStream sealed =
            new SealedBinStream(stream, key, SealedBinStream.CONTROL, Role.B)) {
          byte[] f = sealed.receive();
          keys =
              ControlMessages.parse(
                  GroupKeys.parser(),
                  Frames.body(f, Frames.GROUP_KEYS, "waiting for the output party's group keys"),
                  "the output party's group keys");
        }
        check(keys, facts);
        end(stream);
        List<byte[]> pairKeys = new ArrayList<>();
        pairKeys.add(key);
        for (int j = 1; j < n; j++) {
          pairKeys.add(null);
        }
        return new GroupSecrets(
            keys.getTokenKey().toByteArray(),
            keys.getBinSeed().toByteArray(),
            keys.getGroupSecret().toByteArray(),
            keys.getBins(),
            pairKeys,
            emptyLists(n),
            emptyLists(n));
      } catch (PeerProtocolException | HandshakeException | RuntimeException e) {
        stream.abort("party " + facts.role().label() + " stopped the handshake: " + e.getMessage());
        throw e;
      }
    }
  }

  /** One pair's outcome at the output party. */
  private record Pair(BridgeStream stream, Exchange exchange, int bins, byte[] key) {}

  private static GroupSecrets asOutputParty(
      BridgeClient client, String session, PartyCredentials me, LocalFacts facts, List<byte[]> pins)
      throws BridgeException, PeerProtocolException, HandshakeException {
    List<String> parties = facts.multiparty().parties();
    int n = parties.size();
    List<BridgeStream> streams = new ArrayList<>();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            n - 1,
            r -> {
              Thread t = new Thread(r, "psi group handshake");
              t.setDaemon(true);
              return t;
            });
    try {
      // every pair at once: the parties arrive in any order
      List<Future<Pair>> futures = new ArrayList<>();
      for (int j = 1; j < n; j++) {
        int jj = j;
        futures.add(
            pool.submit(
                () -> {
                  BridgeStream s = client.open(session, channel(jj));
                  synchronized (streams) {
                    streams.add(s);
                  }
                  LocalFacts pair = facts.withPeer(parties.get(jj), pins.get(jj));
                  Exchange x = SessionHandshake.exchangeHellos(s, session, me, pair);
                  int bins = SessionHandshake.agree(pair, x.peer(), null);
                  return new Pair(s, x, bins, frameKey(x));
                }));
      }
      List<Pair> pairs = new ArrayList<>();
      for (Future<Pair> f : futures) {
        pairs.add(await(f));
      }
      int bins = pairs.stream().mapToInt(Pair::bins).max().orElseThrow();
      SecureRandom random = new SecureRandom();
      byte[] tokenKey = new byte[TOKEN_KEY_BYTES];
      byte[] binSeed = new byte[BIN_SEED_BYTES];
      byte[] groupSecret = new byte[GROUP_SECRET_BYTES];
      random.nextBytes(tokenKey);
      random.nextBytes(binSeed);
      random.nextBytes(groupSecret);
      GroupKeys keys =
          GroupKeys.newBuilder()
              .setTokenKey(ByteString.copyFrom(tokenKey))
              .setBinSeed(ByteString.copyFrom(binSeed))
              .setGroupSecret(ByteString.copyFrom(groupSecret))
              .setBins(bins)
              .build();
      for (Pair p : pairs) {
        try (SealedBinStream sealed =
            new SealedBinStream(p.stream(), p.key(), SealedBinStream.CONTROL, Role.A)) {
          sealed.send(Frames.GROUP_KEYS, keys);
        }
      }
      for (Pair p : pairs) {
        end(p.stream());
      }
      List<byte[]> pairKeys = new ArrayList<>();
      List<List<Column>> revealed = new ArrayList<>();
      List<List<Column>> named = new ArrayList<>();
      pairKeys.add(null);
      revealed.add(List.of());
      named.add(List.of());
      for (int j = 1; j < n; j++) {
        Pair p = pairs.get(j - 1);
        pairKeys.add(p.key());
        revealed.add(p.exchange().peer().revealed());
        named.add(p.exchange().peer().named());
      }
      return new GroupSecrets(tokenKey, binSeed, groupSecret, bins, pairKeys, revealed, named);
    } catch (PeerProtocolException | HandshakeException | BridgeException | RuntimeException e) {
      synchronized (streams) {
        for (BridgeStream s : streams) {
          s.abort("party " + facts.role().label() + " stopped the handshake: " + e.getMessage());
        }
      }
      throw e;
    } finally {
      pool.shutdownNow();
      synchronized (streams) {
        streams.forEach(BridgeStream::close);
      }
    }
  }

  /** A pair's outcome, or its failure as the exception it threw. */
  private static Pair await(Future<Pair> f)
      throws BridgeException, PeerProtocolException, HandshakeException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HandshakeException("interrupted", e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof BridgeException b) {
        throw b;
      }
      if (c instanceof PeerProtocolException p) {
        throw p;
      }
      if (c instanceof HandshakeException h) {
        throw h;
      }
      if (c instanceof RuntimeException r) {
        throw r;
      }
      throw new HandshakeException(String.valueOf(c), c);
    }
  }

  private static byte[] frameKey(Exchange x) {
    byte[] prk = x.prk();
    try {
      return Hkdf.expand(prk, "group pair frame key", 32);
    } finally {
      Arrays.fill(prk, (byte) 0);
    }
  }

  /** The group keys as the output party sent them: lengths, and the bins this party asked for. */
  private static void check(GroupKeys k, LocalFacts facts) throws PeerProtocolException {
    if (k.getTokenKey().size() != TOKEN_KEY_BYTES
        || k.getBinSeed().size() != BIN_SEED_BYTES
        || k.getGroupSecret().size() != GROUP_SECRET_BYTES
        || k.getBins() < 1
        || k.getBins() > BinPlan.MAX_BINS
        || (facts.binsRequested() > 0 && k.getBins() != facts.binsRequested())) {
      throw new PeerProtocolException(
          "the output party's group keys have keys of "
              + k.getTokenKey().size()
              + "/"
              + k.getBinSeed().size()
              + "/"
              + k.getGroupSecret().size()
              + " bytes and "
              + Integer.toUnsignedString(k.getBins())
              + " bins (expected 32/16/32 bytes and "
              + (facts.binsRequested() > 0
                  ? Integer.toString(facts.binsRequested())
                  : "1 to " + BinPlan.MAX_BINS)
              + " bins)");
    }
  }

  /** Both directions end cleanly: this side finishes, the peer sends nothing more. */
  private static void end(BridgeStream stream) throws BridgeException, PeerProtocolException {
    stream.finish();
    if (stream.receive() != null) {
      throw new PeerProtocolException("peer sent frames after the handshake");
    }
  }

  private static List<List<Column>> emptyLists(int n) {
    List<List<Column>> l = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      l.add(List.of());
    }
    return l;
  }
}
