package io.psiflink.coordinator;

import io.psiflink.coordinator.Model.Direction;
import io.psiflink.coordinator.Model.GroupQueryRecord;
import io.psiflink.coordinator.Model.QueryRecord;

/**
 * One pass of the periodic sweep (CoordinatorServer schedules it): overdue pending queries expire,
 * outgoing queries still pending here are polled at the peer (its decision callback may have been
 * lost), and approved sessions not launched yet are launched.
 */
final class Sweeper {
  private final Context ctx;
  private final Queries queries;
  private final Offers offers;
  private final Sessions sessions;
  private final GroupQueries groupQueries;
  private final GroupOffers groupOffers;
  private final GroupApprovals groupApprovals;
  private final GroupSessions groupSessions;

  Sweeper(
      Context ctx,
      Queries queries,
      Offers offers,
      Sessions sessions,
      GroupQueries groupQueries,
      GroupOffers groupOffers,
      GroupApprovals groupApprovals,
      GroupSessions groupSessions) {
    this.ctx = ctx;
    this.queries = queries;
    this.offers = offers;
    this.sessions = sessions;
    this.groupQueries = groupQueries;
    this.groupOffers = groupOffers;
    this.groupApprovals = groupApprovals;
    this.groupSessions = groupSessions;
  }

  void sweep() {
    long now = ctx.now();
    queries.expireOverdue(now);
    for (QueryRecord q : queries.pendingOutgoing()) {
      offers.poll(q, now);
    }
    sessions.launchCreated();
    // n-party joins: P1 asks the parties that have not voted, the others ask P1 for the outcome
    groupQueries.expireOverdue(now);
    for (GroupQueryRecord q : groupQueries.pending(Direction.OUTGOING)) {
      groupOffers.poll(q);
    }
    for (GroupQueryRecord q : groupQueries.pending(Direction.INCOMING)) {
      groupApprovals.poll(q);
    }
    groupSessions.launchCreated();
  }
}
