package io.psiflink.jobs.psi;

import io.psiflink.api.JoinMode;
import io.psiflink.jobs.token.Tokens;
import io.psiflink.nativepsi.ProtocolInfo;
import io.psiflink.nativepsi.PsiParams;
import java.util.stream.Collectors;

/**
 * The job's demands on a native protocol, checked against what the library says of it ({@link
 * ProtocolInfo}) before anything starts: which output mode a query needs, and which protocols offer
 * it.
 */
public final class ProtocolChoice {
  private ProtocolChoice() {}

  /**
   * The output mode the job runs a bin with: a count-only query reveals only the intersection's
   * size to the receiver; a join lets each party learn its own intersecting keys (A joins, B sends
   * the columns of its matching rows), or in the labeled mode only A, B's columns travelling as
   * labels of the PSI; a labeled semi- or anti-join ({@code peerColumns} false) needs no labels:
   * only A learns which of its keys match.
   */
  public static PsiParams.Output output(boolean countOnly, JoinMode mode, boolean peerColumns) {
    if (countOnly) {
      return PsiParams.Output.CARDINALITY;
    }
    if (mode == JoinMode.LABELED) {
      return peerColumns ? PsiParams.Output.LABELS : PsiParams.Output.RECEIVER;
    }
    return PsiParams.Output.BOTH;
  }

  /**
   * The protocol of that name, checked to be a two-party protocol that takes the job's {@value
   * Tokens#BYTES}-byte tokens and has the output mode the query needs.
   *
   * @throws IllegalArgumentException naming the known protocols for an unknown name, or the
   *     protocols that would do when this one cannot
   */
  public static ProtocolInfo check(
      String name, boolean countOnly, JoinMode mode, boolean peerColumns) {
    ProtocolInfo p = ProtocolInfo.byName(name);
    if (p.parties() != 2) {
      throw new IllegalArgumentException(
          "protocol "
              + name
              + " is for "
              + p.parties()
              + " parties; this job joins two (two-party protocols: "
              + which(2, null)
              + ")");
    }
    if (!p.acceptsElementLength(Tokens.BYTES)) {
      throw new IllegalArgumentException(
          "protocol "
              + name
              + " takes elements of "
              + p.elementLenMin()
              + ".."
              + p.elementLenMax()
              + " bytes, not the job's "
              + Tokens.BYTES
              + "-byte tokens");
    }
    PsiParams.Output needed = output(countOnly, mode, peerColumns);
    if (!p.supports(needed)) {
      throw new IllegalArgumentException(
          (countOnly
                  ? "SELECT COUNT(DISTINCT ...) needs a protocol that can reveal only the count"
                  : needed == PsiParams.Output.LABELS
                      ? "the labeled mode needs a protocol whose sender can attach labels"
                      : "a join needs a protocol in which both parties learn their common keys")
              + " (--protocol "
              + which(2, needed)
              + "): "
              + name
              + " offers output "
              + p.outputs().stream().map(PsiParams.Output::value).collect(Collectors.joining("/")));
    }
    return p;
  }

  private static String which(int parties, PsiParams.Output output) {
    String names =
        ProtocolInfo.all().stream()
            .filter(p -> p.parties() == parties && (output == null || p.supports(output)))
            .map(ProtocolInfo::name)
            .collect(Collectors.joining(" or "));
    return names.isEmpty() ? "none in this library" : names;
  }
}
