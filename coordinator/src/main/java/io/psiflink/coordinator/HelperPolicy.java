package io.psiflink.coordinator;

import io.psiflink.api.JoinMode;
import io.psiflink.coordinator.CoordinatorConfig.Helper;
import io.psiflink.coordinator.Model.Prefiltering;
import io.psiflink.coordinator.Model.RevealIntersection;

/**
 * When a query may be pre-filtered by a helper (the server-aided sample filter), checked by the
 * requester at submission and by the approver on the offer, each against its own registry.
 *
 * <p>The pre-filter tells each party its candidates, a superset of the intersection, and the other
 * party's candidate count: so it is refused wherever a party must learn less than that: mode
 * labeled (B learns nothing of the intersection), a count-only query (A learns only a number), a
 * dataset registered with {@code revealIntersection: never}. The helper must be one this
 * coordinator registered, with the pin the query carries.
 */
final class HelperPolicy {
  private HelperPolicy() {}

  /**
   * Refuses (400, field {@code prefilter}) a pre-filter with mode labeled or a count-only query.
   */
  static void checkQuery(Prefiltering p, JoinMode mode, boolean countOnly) {
    if (!p.helped()) {
      return;
    }
    if (mode == JoinMode.LABELED) {
      throw ApiException.badRequest("prefilter", Requests.PREFILTER_LABELED);
    }
    if (countOnly) {
      throw ApiException.badRequest("prefilter", Requests.PREFILTER_COUNT);
    }
  }

  /**
   * Refuses (400, field {@code prefilter}) a pre-filter of a query on a dataset whose owner must
   * never learn an intersection: its candidates would tell it a superset of one.
   *
   * @param owner whose dataset, in words ("this party's", "the peer bob's")
   */
  static void checkDataset(
      Prefiltering p, String dataset, RevealIntersection setting, String owner) {
    if (p.helped() && setting == RevealIntersection.NEVER) {
      throw ApiException.badRequest(
          "prefilter",
          "prefilter helper cannot run on dataset "
              + dataset
              + " ("
              + owner
              + "), registered with revealIntersection: never: the pre-filter tells its owner its"
              + " candidates, a superset of the intersection");
    }
  }

  /**
   * The registered helper a submission names (400, field {@code helper}, if it is not registered
   * here).
   */
  static Helper registered(CoordinatorConfig config, String name) {
    return Registrations.registered(config.party(), config.helpers(), "helper", name);
  }

  /**
   * The approver's check of an offer's helper against its own registry: unknown, or registered with
   * another pin, is refused (422, field {@code helper}) naming the helper.
   */
  static Helper approve(CoordinatorConfig config, Prefiltering p) {
    return Registrations.approve(
        config.party(), config.helpers(), "helper", p.helper(), p.helperCertSha256());
  }
}
