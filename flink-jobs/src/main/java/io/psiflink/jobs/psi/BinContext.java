package io.psiflink.jobs.psi;

import io.psiflink.api.JoinMode;
import io.psiflink.api.Role;
import io.psiflink.connectors.row.RowCodec;
import io.psiflink.jobs.session.BinKeys;
import io.psiflink.nativepsi.ProtocolInfo;
import io.psiflink.nativepsi.PsiRole;
import io.psiflink.query.JoinKind;
import java.io.Serializable;

/**
 * What every bin of one party's job shares: the session, the agreed parameters and how rows are
 * encoded. Public within the party's cluster: it travels in the job graph. The session's secrets do
 * not ({@link BinKeys}). Immutable.
 */
public final class BinContext implements Serializable {
  private static final long serialVersionUID = 5L;

  private final String session;
  private final Role role;
  private final int bins;
  private final int sigma;
  private final String protocol;
  private final String protocolParams;
  private final RowCodec ownCodec;
  private final RowCodec peerCodec;
  private final int[] output;
  private final int maxAttempts;
  private final boolean cardinality;
  private final JoinMode mode;
  private final int labelBytes;
  private final JoinKind kind;

  /**
   * @param role {@link Role#A} (PSI receiver, output party) or {@link Role#B} (PSI sender, which
   *     reveals its selected columns for intersecting keys)
   * @param ownCodec encoding of the columns this party keeps per row
   * @param peerCodec encoding of the columns the peer reveals (used by the output party)
   * @param output for the output party: per output column, {@code i >= 0} for this party's kept
   *     column i, {@code -1 - j} for the peer's revealed column j
   * @param cardinality the query asks only how many keys both tables hold: the PSI reveals only
   *     that count, to A, and no columns are exchanged
   * @param mode who learns the intersection: in {@link JoinMode#LABELED} B's columns travel in the
   *     PSI's labels of {@code labelBytes} bytes and B learns nothing
   * @param kind what A outputs ({@link JoinKind}); for SEMI and ANTI, B sends no columns
   */
  public BinContext(
      String session,
      Role role,
      int bins,
      int sigma,
      String protocol,
      String protocolParams,
      RowCodec ownCodec,
      RowCodec peerCodec,
      int[] output,
      int maxAttempts,
      boolean cardinality,
      JoinMode mode,
      int labelBytes,
      JoinKind kind) {
    if (!role.isParty() || role.parties() != 2) {
      throw new IllegalArgumentException(
          "a bin is exchanged between party A and party B, not " + role.label());
    }
    this.session = session;
    this.role = role;
    this.bins = bins;
    this.sigma = sigma;
    this.protocol = protocol;
    this.protocolParams = protocolParams;
    this.ownCodec = ownCodec;
    this.peerCodec = peerCodec;
    this.output = output.clone();
    this.maxAttempts = maxAttempts;
    this.cardinality = cardinality;
    this.mode = java.util.Objects.requireNonNull(mode, "mode");
    this.labelBytes = labelBytes;
    this.kind = java.util.Objects.requireNonNull(kind, "kind");
  }

  public String session() {
    return session;
  }

  /** This party's role: {@link Role#A} or {@link Role#B}. */
  public Role role() {
    return role;
  }

  /** The protocol role this party plays ({@link ProtocolRoles}: A receives, B sends). */
  public PsiRole psiRole() {
    return ProtocolRoles.of(role(), ProtocolInfo.byName(protocol));
  }

  /** The role's label, A or B, for messages. */
  public String party() {
    return role().label();
  }

  public int bins() {
    return bins;
  }

  public int sigma() {
    return sigma;
  }

  public String protocol() {
    return protocol;
  }

  public String protocolParams() {
    return protocolParams;
  }

  public RowCodec ownCodec() {
    return ownCodec;
  }

  public RowCodec peerCodec() {
    return peerCodec;
  }

  /** Per output column its source (see the constructor); a copy. */
  public int[] output() {
    return output.clone();
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  public boolean cardinality() {
    return cardinality;
  }

  public JoinMode mode() {
    return mode;
  }

  /**
   * Whether B's columns travel as the PSI's labels: the labeled mode of a query that has B's
   * columns to send (a count-only query has none: its PSI reveals only the count, to A; a semi- or
   * anti-join none either: its PSI tells only A which of its keys match).
   */
  public boolean labeled() {
    return mode == JoinMode.LABELED && !cardinality && kind.peerColumns();
  }

  /** Whether this party learns which of its keys intersect: all but B of the labeled mode. */
  public boolean learnsIntersection() {
    return mode.revealsIntersectionTo(role);
  }

  /** The labeled mode's label size in bytes. */
  public int labelBytes() {
    return labelBytes;
  }

  /** What A outputs: the query's join kind. */
  public JoinKind kind() {
    return kind;
  }
}
