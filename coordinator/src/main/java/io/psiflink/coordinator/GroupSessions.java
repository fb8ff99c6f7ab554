package io.psiflink.coordinator;

import io.psiflink.coordinator.Model.Dataset;
import io.psiflink.coordinator.Model.GroupMember;
import io.psiflink.coordinator.Model.GroupQueryRecord;
import io.psiflink.coordinator.Model.GroupSessionRecord;
import io.psiflink.coordinator.Model.SessionStatus;
import io.psiflink.coordinator.Store.SessionTable;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sessions of n-party joins and this party's job of each, as {@link Sessions} for two parties:
 * launch (through the same {@link JobLauncher}), recovery after a restart, cancellation, another
 * party's abort and the result. Aborts go through P1's coordinator: a party tells P1, P1 tells
 * every other party.
 */
final class GroupSessions {
  private static final Logger LOG = LoggerFactory.getLogger(GroupSessions.class);

  private final Context ctx;
  private final DatasetRegistry registry;

  /** Null when the config has no job section: sessions are recorded, nothing is launched. */
  private final JobLauncher launcher;

  GroupSessions(Context ctx, DatasetRegistry registry, JobLauncher launcher) {
    this.ctx = ctx;
    this.registry = registry;
    this.launcher = launcher;
  }

  /** The audit detail of a new session: its query, parties, provider and every decision. */
  static String audit(GroupQueryRecord q, GroupSessionRecord s, List<Model.GroupDecision> ds) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("queryId", q.id());
    m.put("bins", q.bins());
    m.put("sigma", q.sigma());
    m.put("provider", q.provider());
    m.put("providerCertSha256", q.providerCertSha256());
    m.put("bridge", s.endpoint());
    m.put(
        "parties",
        s.parties().stream()
            .map(p -> p.party() + ":" + p.dataset() + ":" + p.fingerprint())
            .toList());
    m.put(
        "decisions",
        ds.stream().map(d -> Map.of("party", d.party(), "decision", d.decision().wire())).toList());
    return Store.json(m);
  }

  /**
   * Sessions whose job ran when this coordinator stopped: re-attached if the job outlived it, else
   * failed (as for two parties, Sessions.recover).
   */
  void recover() {
    for (GroupSessionRecord s : ctx.db().tx(c -> GroupStore.sessions(c, SessionStatus.RUNNING))) {
      GroupQueryRecord q = query(s);
      Dataset local = ctx.db().tx(c -> Store.dataset(c, q.local().dataset())).orElse(null);
      if (launcher == null || !launcher.reattach(launcher.group(s, q, local, this::abortOthers))) {
        String error = "the coordinator of " + ctx.party() + " restarted while the job ran";
        if (end(s.id(), SessionStatus.FAILED, error, "job.failed", null)) {
          abortOthers(s.id(), AbortCategory.INTERNAL);
        }
      }
    }
  }

  /** Launches the jobs of sessions created but not launched (the sweeper). */
  void launchCreated() {
    if (launcher != null) {
      for (GroupSessionRecord s : ctx.db().tx(c -> GroupStore.sessions(c, SessionStatus.CREATED))) {
        launch(s.id());
      }
    }
  }

  /** Launches this party's job of a session (no-op without a job config, or if launched). */
  void launch(String id) {
    if (launcher == null) {
      return;
    }
    try {
      GroupSessionRecord s = get(id);
      if (s.status() != SessionStatus.CREATED) {
        return;
      }
      GroupQueryRecord q = query(s);
      Dataset local = registry.active(q.local().dataset()).orElse(null);
      if (local == null) {
        if (end(
            id,
            SessionStatus.FAILED,
            "dataset " + q.local().dataset() + " is no longer active at " + ctx.party(),
            "job.failed",
            null)) {
          abortOthers(id, AbortCategory.DATASET_UNAVAILABLE);
        }
        return;
      }
      launcher.launchGroup(s, q, local, this::abortOthers);
    } catch (RuntimeException e) {
      LOG.error("cannot launch the job of group session {}", id, e);
    }
  }

  /** This party cancels a session: its job stops, the other parties' coordinators are told. */
  GroupSessionRecord cancel(String id, String principal) {
    get(id);
    if (!end(
        id,
        SessionStatus.CANCELLED,
        null,
        "job.cancelled",
        Sessions.principalDetail(principal, null))) {
      throw ApiException.conflict(
          "group session " + id + " has already ended: " + get(id).status().wire());
    }
    if (launcher != null) {
      launcher.stop(id);
    }
    abortOthers(id, AbortCategory.CANCELLED);
    return get(id);
  }

  /**
   * Organisation {@code from} tells this coordinator that its side of session {@code id} ended
   * early: P1 may hear it from any party of the session (and tells the rest), another party only
   * from P1.
   */
  GroupSessionRecord peerAbort(String id, String from, AbortCategory category) {
    GroupSessionRecord s = get(id);
    List<GroupMember> ps = s.parties();
    boolean p1Here = ps.get(0).party().equals(ctx.party());
    boolean allowed =
        p1Here
            ? ps.stream().anyMatch(p -> p.party().equals(from)) && !from.equals(ctx.party())
            : ps.get(0).party().equals(from);
    if (!allowed) {
      throw ApiException.notFound("group session " + id);
    }
    String error = from + " ended the session: " + category.wire();
    if (end(id, SessionStatus.FAILED, error, "session.aborted_by_peer", error)) {
      if (launcher != null) {
        launcher.stop(id);
      }
      if (p1Here) {
        tell(s, category, from);
      }
    }
    return get(id);
  }

  /** Tells the other parties that this party's side of session {@code id} ended early. */
  void abortOthers(String id, AbortCategory category) {
    tell(get(id), category, null);
  }

  /** P1 tells every party but itself and {@code except}; another party tells P1. */
  private void tell(GroupSessionRecord s, AbortCategory category, String except) {
    List<GroupMember> ps = s.parties();
    List<String> to =
        ps.get(0).party().equals(ctx.party())
            ? ps.stream().skip(1).map(GroupMember::party).filter(p -> !p.equals(except)).toList()
            : List.of(ps.get(0).party());
    for (String org : to) {
      try {
        ctx.organisation(org)
            .post(
                "/v1/peer/group-sessions/" + PeerClient.segment(s.id()) + "/abort",
                new Requests.PeerAbort(category));
      } catch (IOException | PeerClient.PeerError | IllegalArgumentException e) {
        // its job still fails through the bridge, within its timeouts
        LOG.warn("cannot tell {} that group session {} ended: {}", org, s.id(), e.getMessage());
        ctx.audit(ctx.now(), ctx.party(), "peer.notify_failed", "session", s.id(), org);
      }
    }
  }

  /** Where P1's joined table is, with the job's summary; 409 before success, 404 at others. */
  Map<String, Object> result(String id) {
    GroupSessionRecord s = get(id);
    GroupQueryRecord q = query(s);
    if (q.localIndex() != 0) {
      throw ApiException.notFound(
          "result of group session "
              + id
              + ": only P1 ("
              + s.parties().get(0).party()
              + ") receives the joined table");
    }
    if (s.status() != SessionStatus.SUCCEEDED) {
      throw ApiException.conflict(
              "group session "
                  + id
                  + (s.status() == SessionStatus.FAILED
                      ? " failed: " + s.error()
                      : " is " + s.status().wire() + "; the result exists once it succeeded"))
          .with("sessionStatus", s.status().wire());
    }
    String summary = ctx.db().tx(c -> Store.sessionSummary(c, SessionTable.GROUP, id));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("location", s.result().location());
    m.put("format", s.result().format().text());
    m.put("rowsOut", s.result().rowsOut());
    try {
      m.put("summary", summary == null ? null : ctx.json().readTree(summary));
    } catch (IOException e) {
      m.put("summary", null);
    }
    return m;
  }

  List<GroupSessionRecord> list() {
    return ctx.db().tx(c -> GroupStore.sessions(c, null));
  }

  GroupSessionRecord get(String id) {
    return ctx.db()
        .tx(c -> GroupStore.session(c, id))
        .orElseThrow(() -> ApiException.notFound("group session " + id));
  }

  private GroupQueryRecord query(GroupSessionRecord s) {
    return ctx.db().tx(c -> GroupStore.query(c, s.queryId())).orElseThrow();
  }

  private boolean end(String id, SessionStatus status, String error, String action, String detail) {
    long now = ctx.now();
    return ctx.db()
        .tx(
            c -> {
              if (!Store.endSession(
                  c, SessionTable.GROUP, id, status, error, null, null, null, now)) {
                return false;
              }
              Store.audit(
                  c, now, ctx.party(), action, "session", id, detail == null ? error : detail);
              return true;
            });
  }
}
