package io.psiflink.coordinator;

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

  Sweeper(Context ctx, Queries queries, Offers offers, Sessions sessions) {
    this.ctx = ctx;
    this.queries = queries;
    this.offers = offers;
    this.sessions = sessions;
  }

  void sweep() {
    long now = ctx.now();
    queries.expireOverdue(now);
    for (QueryRecord q : queries.pendingOutgoing()) {
      offers.poll(q, now);
    }
    sessions.launchCreated();
  }
}
