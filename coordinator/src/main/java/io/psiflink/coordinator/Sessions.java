package io.psiflink.coordinator;

import io.psiflink.api.Role;
import io.psiflink.coordinator.Model.AuditEntry;
import io.psiflink.coordinator.Model.Dataset;
import io.psiflink.coordinator.Model.QueryRecord;
import io.psiflink.coordinator.Model.SessionRecord;
import io.psiflink.coordinator.Model.SessionStatus;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sessions and this party's job of each: launch (through {@link JobLauncher}, when the config has a
 * job section), recovery after a restart, cancellation, the peer's abort, and the result.
 */
final class Sessions {
  private static final Logger LOG = LoggerFactory.getLogger(Sessions.class);

  /**
   * How often a session may be resumed here: each resume runs bins again, which lets a modified
   * peer job put other keys in them (docs/security.md); beyond it the query is approved again.
   */
  static final int MAX_RESUMES = 3;

  private final Context ctx;
  private final DatasetRegistry registry;

  /** Null when the config has no job section: sessions are recorded, nothing is launched. */
  private final JobLauncher launcher;

  private final JobSlots slots;

  Sessions(Context ctx, DatasetRegistry registry) {
    this.ctx = ctx;
    this.registry = registry;
    this.slots = new JobSlots(ctx);
    this.launcher =
        ctx.config().job() == null
            ? null
            : new JobLauncher(
                ctx.config(), ctx.db(), ctx.json(), ctx.clock(), this::abortAtPeer, this::jobEnded);
  }

  /** A job ended: its slot is free for the oldest queued session. */
  private void jobEnded() {
    launchCreated();
  }

  /**
   * Sessions whose job ran when this coordinator stopped: a job whose process outlived the
   * coordinator (job.onShutdown: leave, or a coordinator killed) is re-attached and followed to its
   * end; one that is gone (a child JVM stopped with the coordinator, or the flink client it
   * followed) fails its session, and the peer's job fails through the bridge.
   */
  void recover() {
    for (SessionRecord s : ctx.db().tx(c -> Store.sessionsWithStatus(c, SessionStatus.RUNNING))) {
      QueryRecord q = ctx.db().tx(c -> Store.query(c, s.queryId())).orElseThrow();
      Dataset local = ctx.db().tx(c -> Store.dataset(c, q.localDataset())).orElse(null);
      if (launcher == null || !launcher.reattach(launcher.twoParty(s, q, local))) {
        lost(s.id());
      }
    }
  }

  private void lost(String id) {
    String error = "the coordinator of " + ctx.party() + " restarted while the job ran";
    if (end(id, SessionStatus.FAILED, error, "job.failed")) {
      abortAtPeer(id, AbortCategory.INTERNAL);
    }
  }

  /** The launcher of this party's jobs, which n-party sessions share (null: none). */
  JobLauncher launcher() {
    return launcher;
  }

  /**
   * Launches the jobs of sessions approved but not launched, oldest first, as far as job slots are
   * free (the sweeper, and a job's end; none without a job).
   */
  void launchCreated() {
    if (launcher != null) {
      for (SessionRecord s : ctx.db().tx(c -> Store.sessionsWithStatus(c, SessionStatus.CREATED))) {
        launch(s.id());
      }
    }
  }

  /**
   * Launches this party's job of a session (no-op without a job config, or if launched). Party A's
   * coordinator starts both jobs: when it has a free job slot it asks B's coordinator to start B's
   * ({@code POST /v1/peer/sessions/{id}/start}), and starts its own once B's runs; a busy B leaves
   * the session queued at both. So neither job waits for a peer that is queued, and each
   * coordinator runs at most {@code job.maxConcurrentJobs} jobs.
   */
  void launch(String sessionId) {
    if (launcher == null) {
      return;
    }
    try {
      SessionRecord s = get(sessionId);
      if (s.status() != SessionStatus.CREATED) {
        return;
      }
      QueryRecord q = ctx.db().tx(c -> Store.query(c, s.queryId())).orElseThrow();
      if (!q.localSide().equals(Role.A) || !slots.reserve()) {
        return; // B's job starts when A's coordinator asks; or queued until a slot is free
      }
      try {
        Dataset local = activeOrFail(s, q);
        if (local == null || !peerStarted(s)) {
          return;
        }
        launcher.launch(s, q, local);
      } finally {
        slots.release();
      }
    } catch (RuntimeException e) {
      LOG.error("cannot launch the job of session {}", sessionId, e);
    }
  }

  /**
   * Party A's coordinator asks to start B's job of session {@code id} ({@code id} checked and
   * known): started (or nothing to start: no job here), or 409 while this coordinator's job slots
   * are all taken or the session cannot start here.
   */
  SessionRecord peerStart(String id) {
    SessionRecord s = get(id);
    if (launcher == null) {
      return s;
    }
    QueryRecord q = ctx.db().tx(c -> Store.query(c, s.queryId())).orElseThrow();
    if (s.status() == SessionStatus.CREATED && q.localSide().equals(Role.B)) {
      if (!slots.reserve()) {
        throw ApiException.conflict("busy: every job slot of " + ctx.party() + " is taken")
            .with("busy", true);
      }
      try {
        Dataset local = activeOrFail(s, q);
        if (local != null) {
          launcher.launch(s, q, local);
        }
      } finally {
        slots.release();
      }
    }
    SessionRecord now = get(id);
    if (now.status() != SessionStatus.RUNNING) {
      throw ApiException.conflict("session " + id + " is " + now.status().wire() + " here")
          .with("sessionStatus", now.status().wire());
    }
    return now;
  }

  /** Whether B's coordinator started B's job (a busy or unreachable B: not yet). */
  private boolean peerStarted(SessionRecord s) {
    try {
      ctx.peer().post("/v1/peer/sessions/" + PeerClient.segment(s.id()) + "/start", Map.of());
      return true;
    } catch (PeerClient.PeerError e) {
      if (e.status != 409 || e.body == null || !e.body.path("busy").asBoolean()) {
        LOG.warn("{} did not start session {}: {}", ctx.peerName(), s.id(), e.getMessage());
      }
      return false;
    } catch (IOException e) {
      LOG.warn("cannot ask {} to start session {}: {}", ctx.peerName(), s.id(), e.getMessage());
      return false;
    }
  }

  /** This party's dataset of the session, or null after failing the session (it was retired). */
  private Dataset activeOrFail(SessionRecord s, QueryRecord q) {
    Dataset local = registry.active(q.localDataset()).orElse(null);
    if (local == null) {
      end(
          s.id(),
          SessionStatus.FAILED,
          "dataset " + q.localDataset() + " is no longer active at " + ctx.party(),
          "job.failed");
      abortAtPeer(s.id(), AbortCategory.DATASET_UNAVAILABLE);
    }
    return local;
  }

  /**
   * Where a session not launched yet waits: at A, its place among the sessions queued for a job
   * slot ({@code queued}: their ids, oldest first); at B, for A's coordinator to start it. Null
   * once launched (or without a job here).
   */
  private Map<String, Object> queue(SessionRecord s, List<String> queued) {
    if (launcher == null || s.status() != SessionStatus.CREATED) {
      return null;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    if (!s.partyA().equals(ctx.party())) {
      m.put("waitingFor", s.partyA());
      return m;
    }
    m.put("position", queued.indexOf(s.id()) + 1);
    m.put("of", queued.size());
    m.put("jobSlots", ctx.config().job().maxConcurrentJobs());
    return m;
  }

  /** The sessions queued here for a job slot (this party is A), oldest first. */
  private static List<String> queuedAtA(List<SessionRecord> all, String party) {
    return all.stream()
        .filter(x -> x.status() == SessionStatus.CREATED && x.partyA().equals(party))
        .map(SessionRecord::id)
        .toList();
  }

  /**
   * A session as the API shows it: the record, and while it is queued where it waits ({@code
   * queue}, absent otherwise: the session a query view embeds or a peer sends is the same).
   */
  Map<String, Object> view(String id) {
    SessionRecord s = get(id);
    List<String> queued =
        s.status() == SessionStatus.CREATED
            ? queuedAtA(
                ctx.db().tx(c -> Store.sessionsWithStatus(c, SessionStatus.CREATED)), ctx.party())
            : List.of();
    return view(s, queued, ctx.db().tx(c -> Store.sessionResumes(c, id)));
  }

  /** Every session as the API shows it (one read of the sessions, one of their resume counts). */
  List<Map<String, Object>> views() {
    List<SessionRecord> all = list();
    List<String> queued = queuedAtA(all, ctx.party());
    Map<String, Integer> resumes = ctx.db().tx(Store::sessionResumes);
    return all.stream().map(s -> view(s, queued, resumes.getOrDefault(s.id(), 0))).toList();
  }

  private Map<String, Object> view(SessionRecord s, List<String> queued, int resumes) {
    @SuppressWarnings("unchecked")
    Map<String, Object> m = ctx.json().convertValue(s, LinkedHashMap.class);
    // how often it was resumed (POST .../resume; absent before the first): the Airflow sensor
    // resumes up to its limit
    if (resumes > 0) {
      m.put("resumes", resumes);
    }
    Map<String, Object> queue = queue(s, queued);
    if (queue != null) {
      m.put("queue", queue);
    }
    return m;
  }

  private boolean end(String id, SessionStatus status, String error, String action) {
    return end(id, status, error, action, error);
  }

  /** As above, with {@code detail} as the audit entry's details instead of the error. */
  private boolean end(String id, SessionStatus status, String error, String action, String detail) {
    long now = ctx.now();
    return ctx.db()
        .tx(
            c -> {
              if (!Store.endSession(c, id, status, error, null, null, null, now)) {
                return false;
              }
              Store.audit(c, now, ctx.party(), action, "session", id, detail);
              return true;
            });
  }

  /**
   * This party cancels a session: its job stops, the peer is told (its job stops too).
   *
   * @param principal the label of the token that cancelled (audited)
   */
  SessionRecord cancel(String id, String principal) {
    SessionRecord s = get(id);
    if (!end(
        id, SessionStatus.CANCELLED, null, "job.cancelled", principalDetail(principal, null))) {
      throw ApiException.conflict(
          "session " + id + " has already ended: " + get(id).status().wire());
    }
    if (launcher != null) {
      launcher.stop(id);
    }
    abortAtPeer(s.id(), AbortCategory.CANCELLED);
    return get(id);
  }

  /**
   * Resumes a failed session ({@code POST /v1/sessions/{id}/resume}, at either party): the peer's
   * coordinator agrees first (its side must have failed too), then both create the session again
   * and launch as usual, A's coordinator starting both jobs; the jobs run with {@code --resume}, so
   * the bins A's job committed are not redone. Only a failed session resumes: a cancelled one was
   * ended on purpose, a succeeded one is done.
   *
   * @param principal the label of the token that resumed (audited)
   */
  SessionRecord resume(String id, String principal) {
    SessionRecord s = get(id);
    if (s.status() != SessionStatus.FAILED) {
      throw ApiException.conflict(
              "session "
                  + id
                  + " is "
                  + s.status().wire()
                  + ": only a failed session can be resumed (a cancelled or succeeded one is"
                  + " submitted again)")
          .with("sessionStatus", s.status().wire());
    }
    checkResumeLimit(id);
    try {
      ctx.peer().post("/v1/peer/sessions/" + PeerClient.segment(id) + "/resume", Map.of());
    } catch (PeerClient.PeerError e) {
      // the peer's words are not repeated: only its status, as one of ours
      String theirs = e.body == null ? "" : e.body.path("sessionStatus").asText("");
      boolean known =
          java.util.Arrays.stream(SessionStatus.values()).anyMatch(x -> x.wire().equals(theirs));
      throw ApiException.conflict(
              ctx.peerName()
                  + " does not resume session "
                  + id
                  + " (HTTP "
                  + e.status
                  + (known ? ", the session is " + theirs + " there" : "")
                  + ")")
          .with("peerSessionStatus", known ? theirs : null);
    } catch (IOException e) {
      throw new ApiException(
          503,
          "cannot reach " + ctx.peerName() + " to resume session " + id + ": " + e.getMessage());
    }
    resumeHere(id, principal);
    launchCreated();
    return get(id);
  }

  /**
   * The peer's coordinator resumes session {@code id} ({@code id} checked and known): this side
   * must have failed too (or be resumed already: a repeated call is answered alike). A side whose
   * job succeeded has forgotten the keys a resumed run needs: the query is submitted again.
   */
  SessionRecord peerResume(String id) {
    SessionRecord s = get(id);
    if (s.status() == SessionStatus.CREATED && ctx.db().tx(c -> Store.sessionResumes(c, id)) > 0) {
      return s;
    }
    if (s.status() != SessionStatus.FAILED) {
      throw ApiException.conflict(
              "session "
                  + id
                  + " is "
                  + s.status().wire()
                  + " at "
                  + ctx.party()
                  + ": only a failed session can be resumed")
          .with("sessionStatus", s.status().wire());
    }
    resumeHere(id, "peer " + ctx.peerName());
    launchCreated();
    return get(id);
  }

  /** Refuses a session resumed {@link #MAX_RESUMES} times here. */
  private void checkResumeLimit(String id) {
    if (ctx.db().tx(c -> Store.sessionResumes(c, id)) >= MAX_RESUMES) {
      throw ApiException.conflict(
          "session "
              + id
              + " was resumed "
              + MAX_RESUMES
              + " times at "
              + ctx.party()
              + ", the most it allows: submit the query again");
    }
  }

  private void resumeHere(String id, String principal) {
    checkResumeLimit(id);
    long now = ctx.now();
    ctx.db()
        .tx(
            c -> {
              if (Store.resumeSession(c, id, SessionStatus.FAILED)) {
                Store.audit(
                    c,
                    now,
                    ctx.party(),
                    "session.resumed",
                    "session",
                    id,
                    principalDetail(principal, "resume " + Store.sessionResumes(c, id)));
              }
              return null;
            });
  }

  /** A session id the peer sends: a canonical UUID (else refused, audited) of a known session. */
  String peerSessionId(PeerInput peerInput, String id) {
    peerInput.id("id", id, "session");
    get(id); // 404 if unknown
    return id;
  }

  /**
   * The peer tells this coordinator that its side of a session ended early ({@code id} checked and
   * known: {@link #peerSessionId}).
   */
  SessionRecord peerAbort(String id, Requests.PeerAbort abort) {
    String error = "the peer " + ctx.peerName() + " ended the session: " + abort.category().wire();
    if (end(id, SessionStatus.FAILED, error, "session.aborted_by_peer") && launcher != null) {
      launcher.stop(id);
    }
    return get(id);
  }

  /**
   * The audit detail of a party's decision: the principal (its token's label) and the reason; a
   * plain reason (or null) when no principal is known (a call from inside this process).
   */
  static String principalDetail(String principal, String reason) {
    if (principal == null) {
      return reason;
    }
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("principal", principal);
    if (reason != null) {
      d.put("reason", reason);
    }
    return Store.json(d);
  }

  private void abortAtPeer(String id, AbortCategory category) {
    try {
      ctx.peer()
          .post(
              "/v1/peer/sessions/" + PeerClient.segment(id) + "/abort",
              new Requests.PeerAbort(category));
    } catch (IOException | PeerClient.PeerError e) {
      // the peer's job still fails through the bridge, within its timeouts
      LOG.warn("cannot tell {} that session {} ended: {}", ctx.peerName(), id, e.getMessage());
      ctx.audit(ctx.now(), ctx.party(), "peer.notify_failed", "session", id, e.getMessage());
    }
  }

  /** Where party A's joined table is, with the job's summary; 409 before success, 404 at B. */
  Map<String, Object> result(String id) {
    SessionRecord s = get(id);
    QueryRecord q = ctx.db().tx(c -> Store.query(c, s.queryId())).orElseThrow();
    if (!q.localSide().equals(Role.A)) {
      throw ApiException.notFound(
          "result of session "
              + id
              + ": party B receives no rows (the"
              + " joined table is written at party A, "
              + s.partyA()
              + ")");
    }
    if (s.status() != SessionStatus.SUCCEEDED) {
      String why =
          switch (s.status()) {
            case FAILED -> "failed: " + s.error();
            case CANCELLED -> "was cancelled";
            default -> "is " + s.status().wire() + "; the result exists once it succeeded";
          };
      throw ApiException.conflict("session " + id + " " + why)
          .with("sessionStatus", s.status().wire());
    }
    String summary = ctx.db().tx(c -> Store.sessionSummary(c, id));
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

  List<SessionRecord> list() {
    return ctx.db().tx(Store::sessions);
  }

  SessionRecord get(String id) {
    return ctx.db()
        .tx(c -> Store.session(c, id))
        .orElseThrow(() -> ApiException.notFound("session " + id));
  }

  List<AuditEntry> audit(long after, int limit) {
    return ctx.db().tx(c -> Store.audit(c, after, limit));
  }

  /** Stops the jobs this coordinator runs (on shutdown). */
  void close() {
    if (launcher != null) {
      launcher.close();
    }
  }
}
