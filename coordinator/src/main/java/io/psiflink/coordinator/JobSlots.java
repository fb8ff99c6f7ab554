package io.psiflink.coordinator;

/**
 * This party's job slots: at most {@code job.maxConcurrentJobs} jobs run at once (two-party and
 * n-party sessions together). A slot is reserved while a launch is decided (party A's coordinator
 * asks B's first) and then held by the running session itself, as the database counts it.
 */
final class JobSlots {
  private final Context ctx;
  private int reserved;

  JobSlots(Context ctx) {
    this.ctx = ctx;
  }

  /** Reserves a slot if one is free; the caller releases it once its job runs, or did not start. */
  synchronized boolean reserve() {
    CoordinatorConfig.Job job = ctx.config().job();
    if (job != null && running() + reserved >= job.maxConcurrentJobs()) {
      return false;
    }
    reserved++;
    return true;
  }

  synchronized void release() {
    reserved--;
  }

  /** The sessions whose job runs here now. */
  int running() {
    return ctx.db().tx(Store::runningJobs);
  }
}
