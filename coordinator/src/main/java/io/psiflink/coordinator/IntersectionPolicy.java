package io.psiflink.coordinator;

import io.psiflink.api.JoinMode;
import io.psiflink.api.Role;
import io.psiflink.coordinator.Model.RevealIntersection;

/**
 * A dataset registered with {@code revealIntersection: never}: its owner must never learn an
 * intersection with it, not even its size. Checked by the requester at submission (its own dataset,
 * and the peer's as published) and by the approver on the offer (its own dataset, independently).
 *
 * <p>Who learns what (Disclosure): party A, the output party, always learns its matching rows (or,
 * for a count-only query, their number); party B learns which of its keys match in mode {@code
 * both} and nothing in mode {@code labeled}; a count-only query tells B nothing in either mode.
 */
final class IntersectionPolicy {
  private IntersectionPolicy() {}

  /** Whether the party playing {@code side} learns the intersection (or its size). */
  static boolean learns(Role side, JoinMode mode, boolean countOnly) {
    return Role.A.equals(side) || (mode == JoinMode.BOTH && !countOnly);
  }

  /**
   * Refuses (422) a query that would tell the owner of {@code dataset}, playing {@code side}, the
   * intersection when the dataset says {@code never}. The error names the dataset, the setting and
   * what would reveal it.
   *
   * @param owner whose dataset, in words ("this party's", "the peer bob's")
   */
  static void check(
      String dataset,
      RevealIntersection setting,
      String owner,
      Role side,
      JoinMode mode,
      boolean countOnly) {
    if (setting != RevealIntersection.NEVER || !learns(side, mode, countOnly)) {
      return;
    }
    String head =
        "dataset "
            + dataset
            + " ("
            + owner
            + ") is registered with revealIntersection: never, but ";
    if (Role.A.equals(side)) {
      throw new ApiException(
              422,
              head
                  + "this query has it as table a: party A receives the join, so its owner would"
                  + " learn "
                  + (countOnly ? "the number of common keys" : "which of its keys match")
                  + "; it may only be table b of a query in mode labeled")
          .with("field", "role")
          .with("dataset", dataset);
    }
    throw new ApiException(
            422,
            head
                + "this query runs in mode both, which tells party B (its owner) which of its keys"
                + " match; submit it with mode labeled (B then learns nothing of the"
                + " intersection)")
        .with("field", "mode")
        .with("dataset", dataset);
  }
}
