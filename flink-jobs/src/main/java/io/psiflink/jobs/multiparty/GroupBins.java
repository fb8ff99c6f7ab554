package io.psiflink.jobs.multiparty;

import io.psiflink.api.Role;
import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.connectors.row.RowCodec;
import io.psiflink.jobs.bin.BinPlan;
import io.psiflink.jobs.bin.BinTable;
import io.psiflink.jobs.payload.BinOutput;
import io.psiflink.jobs.payload.BinPayload;
import io.psiflink.jobs.payload.GroupJoin;
import io.psiflink.jobs.psi.BinExchange;
import io.psiflink.jobs.psi.BinExchange.BinResult;
import io.psiflink.jobs.psi.BinExchange.BinStats;
import io.psiflink.jobs.psi.BinProtocol;
import io.psiflink.jobs.psi.PeerProtocolException;
import io.psiflink.jobs.psi.SealedBinStream;
import io.psiflink.jobs.session.JobSecrets;
import io.psiflink.jobs.session.TaskKeys;
import io.psiflink.provider.BinOutcome;
import io.psiflink.provider.ProviderException;
import io.psiflink.provider.ProviderLink;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.RuntimeContext;

/**
 * The bins of an n-party join. Each bin runs in two steps:
 *
 * <ol>
 *   <li>the multiparty PSI with the provider ({@link ProviderLink#runBin}): every party feeds its
 *       distinct tokens of the bin, padded with random dummies to the set size (the largest of the
 *       parties' public bounds); the provider learns nothing of them, and every party learns which
 *       of its tokens all n parties hold;
 *   <li>every other party sends the output party its revealed columns of those keys ({@link
 *       BinPayload}, sealed under their pair's frame key, on stream {@code
 *       group-payload-<bin>-P<j+1>}); the output party checks that each sent exactly its own
 *       intersecting keys, answers DONE to all ({@link BinExchange#done}: nothing after DONE fails
 *       the bin), and emits the n-way product ({@link GroupJoin}).
 * </ol>
 *
 * A failure at any party fails the attempt at all of them (the provider aborts every party's bin
 * stream, the output party every payload stream), so all retry the bin together.
 */
public final class GroupBins implements BinProtocol {
  private static final long serialVersionUID = 1L;

  private final String session;
  private final Role role;
  private final int bins;
  private final int sigma;
  private final int maxAttempts;
  private final RowCodec ownCodec;
  private final List<RowCodec> peerCodecs;
  private final int[] outParty;
  private final int[] outColumn;
  private final String secretsName;

  /**
   * @param role party i of n
   * @param peerCodecs at the output party, per party index the encoding of its revealed columns
   *     (index 0 unused); elsewhere empty
   * @param outParty at the output party, per output column the party that supplies it
   * @param outColumn per output column its index among that party's revealed columns
   * @param secretsName where the tasks read the session's {@link JobSecrets} ({@link
   *     JobSecrets#ship}), whose {@link JobSecrets#group()} holds the {@link TaskKeys}
   */
  public GroupBins(
      String session,
      Role role,
      int bins,
      int sigma,
      int maxAttempts,
      RowCodec ownCodec,
      List<RowCodec> peerCodecs,
      int[] outParty,
      int[] outColumn,
      String secretsName) {
    this.session = session;
    this.role = role;
    this.bins = bins;
    this.sigma = sigma;
    this.maxAttempts = maxAttempts;
    this.ownCodec = ownCodec;
    this.peerCodecs = List.copyOf(peerCodecs);
    this.outParty = outParty.clone();
    this.outColumn = outColumn.clone();
    this.secretsName = secretsName;
  }

  @Override
  public String party() {
    return role.label();
  }

  @Override
  public int maxAttempts() {
    return maxAttempts;
  }

  @Override
  public boolean learnsIntersection() {
    return true;
  }

  @Override
  public Runner open(RuntimeContext rc, SecureRandom random) throws Exception {
    TaskKeys keys = TaskKeys.decode(JobSecrets.read(rc, secretsName).group());
    ProviderLink link = ProviderLink.fromBytes(keys.link());
    return (client, bin, table, ownRows, attempt) ->
        run(keys, link, client, bin, table, ownRows, attempt);
  }

  /** The payload stream of the output party and party {@code j}. */
  static String payloadChannel(int bin, int j) {
    return "group-payload-" + bin + "-P" + (j + 1);
  }

  private BinResult run(
      TaskKeys keys,
      ProviderLink link,
      BridgeClient client,
      int bin,
      BinTable table,
      long ownRows,
      int attempt)
      throws BridgeException, PeerProtocolException {
    long started = System.nanoTime();
    long bound = BinPlan.bound(ownRows, bins, sigma);
    if (table.distinct() > bound) {
      // the public bound holds except with probability 2^-σ; the set size would tell otherwise
      throw new IllegalStateException(
          "bin " + bin + " of party " + role.label() + " is over the public bound " + bound);
    }
    BinOutcome outcome;
    try {
      outcome =
          link.runBin(
              client,
              bin,
              attempt,
              bound,
              keys.groupSecret(),
              table.elements(table.distinct(), Role.A),
              table.distinct());
    } catch (ProviderException e) {
      throw new PeerProtocolException("bin " + bin + " with the provider: " + e.getMessage());
    }
    long psiDone = System.nanoTime();
    int[] intersecting = table.byToken(outcome.intersection());
    BinOutput output;
    long rowsOut;
    if (role.index() == 0) {
      GroupJoin join = receiveAll(keys, client, bin, table, intersecting);
      output = join;
      rowsOut = join.rows();
    } else {
      rowsOut = sendToOutputParty(keys, client, bin, table, intersecting);
      output = BinOutput.NONE;
    }
    return new BinResult(
        new BinStats(
            intersecting.length,
            rowsOut,
            outcome.bytesSent(),
            outcome.bytesReceived(),
            psiDone - started,
            System.nanoTime() - psiDone),
        output);
  }

  /** Party j ≥ 1: its columns of the intersecting keys to the output party, then its DONE. */
  private long sendToOutputParty(
      TaskKeys keys, BridgeClient client, int bin, BinTable table, int[] intersecting)
      throws BridgeException, PeerProtocolException {
    BridgeStream raw = client.open(session, payloadChannel(bin, role.index()));
    try (SealedBinStream stream = new SealedBinStream(raw, keys.pairKeys().get(0), bin, Role.B)) {
      long rows = BinPayload.send(stream, table, intersecting);
      BinExchange.done(stream, false);
      raw.close();
      return rows;
    } catch (BridgeException | PeerProtocolException | RuntimeException e) {
      raw.abort("bin " + bin + " failed at party " + role.label() + ": " + e.getMessage());
      raw.close();
      throw e;
    }
  }

  /**
   * The output party: every other party's columns of the intersecting keys, each checked, then DONE
   * to all; only then the bin counts as done anywhere.
   */
  private GroupJoin receiveAll(
      TaskKeys keys, BridgeClient client, int bin, BinTable table, int[] intersecting)
      throws BridgeException, PeerProtocolException {
    int n = role.parties();
    List<BridgeStream> raws = new ArrayList<>();
    List<SealedBinStream> streams = new ArrayList<>();
    try {
      // all streams first: every party opens its own as soon as its PSI is done
      for (int j = 1; j < n; j++) {
        BridgeStream raw = client.open(session, payloadChannel(bin, j));
        raws.add(raw);
        streams.add(new SealedBinStream(raw, keys.pairKeys().get(j), bin, Role.A));
      }
      List<BinPayload.PeerRows> rows = new ArrayList<>();
      for (int j = 1; j < n; j++) {
        try {
          rows.add(
              BinPayload.receiveRows(streams.get(j - 1), table, intersecting, peerCodecs.get(j)));
        } catch (PeerProtocolException e) {
          throw new PeerProtocolException("party P" + (j + 1) + "'s columns: " + e.getMessage());
        }
      }
      GroupJoin join = new GroupJoin(table, intersecting, ownCodec, rows, outParty, outColumn);
      for (SealedBinStream s : streams) {
        BinExchange.done(s, true);
      }
      raws.forEach(BridgeStream::close);
      return join;
    } catch (BridgeException | PeerProtocolException | RuntimeException e) {
      for (BridgeStream raw : raws) {
        raw.abort("bin " + bin + " failed at party " + role.label() + ": " + e.getMessage());
        raw.close();
      }
      throw e;
    } finally {
      streams.forEach(SealedBinStream::close);
    }
  }
}
