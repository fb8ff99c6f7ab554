package io.psiflink.jobs.psi;

import io.psiflink.connectors.row.RowCodec;
import java.io.Serializable;

/**
 * What every bin of one party's job shares: the session, the agreed parameters and how rows are
 * encoded. Public within the party's cluster: it travels in the job graph. The session's secrets do
 * not ({@link BinKeys}).
 *
 * @param partyB false for party A (PSI receiver, output party), true for party B (PSI sender, which
 *     reveals its selected columns for intersecting keys)
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
    RowCodec ownCodec,
    RowCodec peerCodec,
    int[] output,
    int maxAttempts,
    boolean cardinality) implements Serializable {

  public String party() {
    return partyB ? "B" : "A";
  }
}
