package io.psiflink.jobs.psi;

import io.psiflink.bridge.BridgeClient;
import io.psiflink.bridge.BridgeException;
import io.psiflink.bridge.BridgeStream;
import io.psiflink.jobs.bin.BinTable;
import io.psiflink.jobs.session.JobSecrets;
import io.psiflink.nativepsi.PsiException;
import java.security.SecureRandom;
import org.apache.flink.api.common.functions.RuntimeContext;

/** The bins of a two-party join: each a {@link BinExchange} with the peer on stream "bin-<bin>". */
public final class PairBins implements BinProtocol {
  private static final long serialVersionUID = 1L;

  private final BinContext ctx;
  private final String secretsName;

  /**
   * @param secretsName where the tasks read the session's {@link JobSecrets} ({@link
   *     JobSecrets#ship})
   */
  public PairBins(BinContext ctx, String secretsName) {
    this.ctx = ctx;
    this.secretsName = secretsName;
  }

  @Override
  public String party() {
    return ctx.party();
  }

  @Override
  public int maxAttempts() {
    return ctx.maxAttempts();
  }

  @Override
  public boolean learnsIntersection() {
    return ctx.learnsIntersection();
  }

  @Override
  public Runner open(RuntimeContext rc, SecureRandom random) throws Exception {
    BinExchange exchange = new BinExchange(ctx, JobSecrets.read(rc, secretsName).binKeys(), random);
    return (client, bin, table, ownRows, attempt) -> run(exchange, client, bin, table, ownRows);
  }

  private BinExchange.BinResult run(
      BinExchange exchange, BridgeClient client, int bin, BinTable table, long ownRows)
      throws Exception {
    BridgeStream stream = null;
    try {
      stream = client.open(ctx.session(), "bin-" + bin);
      BinExchange.BinResult r = exchange.exchange(stream, bin, table, ownRows);
      stream.close();
      return r;
    } catch (BridgeException | PeerProtocolException | PsiException e) {
      if (stream != null) {
        stream.abort("bin " + bin + " failed at party " + ctx.party() + ": " + e.getMessage());
        stream.close();
      }
      throw e;
    }
  }
}
