package io.psiflink.jobs.psi;

import io.psiflink.connectors.row.RowCodec;
import java.io.Serializable;

/**
 * What every bin of one party's job shares: the session, the agreed parameters, this party's secrets
 * for the session, and how rows are encoded. Secrets stay inside the party's own Flink cluster (they
 * travel in the job graph to its task managers, never to the peer or the bridge).
 *
 * @param partyB false for party A (PSI receiver, output party), true for party B (PSI sender, which
 *     reveals its selected columns for intersecting keys)
 * @param setup this party's exported protocol setup (secret key material)
 * @param payloadKey 32-byte key sealing the revealed columns
 * @param ownCodec encoding of the columns this party keeps per row
 * @param peerCodec encoding of the columns the peer reveals (used by the output party)
 * @param output for the output party: per output column, {@code i >= 0} for this party's kept column
 *     i, {@code -1 - j} for the peer's revealed column j
 * @param cardinality the query asks only how many keys both tables hold: the PSI reveals only that
 *     count, to A, and no columns are exchanged
 */
public record BinContext(
    String session,
    boolean partyB,
    int bins,
    int sigma,
    String protocol,
    String protocolParams,
    byte[] setup,
    byte[] payloadKey,
    RowCodec ownCodec,
    RowCodec peerCodec,
    int[] output,
    int maxAttempts,
    boolean cardinality) implements Serializable {

  public String party() {
    return partyB ? "B" : "A";
  }
}
