package io.psiflink.coordinator;

import io.psiflink.coordinator.Model.SessionRecord;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks of what the peer coordinator sends that names things here (ids name rows and directories,
 * endpoints and fingerprints are dialled and pinned). A refusal is logged and audited ({@code
 * peer.refused}), and answered with 400 naming the field.
 */
final class PeerInput {
  private static final Logger LOG = LoggerFactory.getLogger(PeerInput.class);

  private final Context ctx;

  PeerInput(Context ctx) {
    this.ctx = ctx;
  }

  /** An id the peer supplied, checked as a canonical UUID. */
  String id(String field, String value, String objectType) {
    if (!Confined.isUuid(value)) {
      throw refused(field, value, objectType, null, "must be a UUID in canonical form");
    }
    return value;
  }

  /**
   * The ids and public parameters of a session the peer created are well-formed before anything
   * stores or uses them (the session id names our work directory and default output).
   */
  void checkSession(String queryId, SessionRecord s) {
    id("session.id", s.id(), "session");
    id("session.queryId", s.queryId(), "session");
    if (s.mode() == null) {
      // what each owner learns depends on it: never read as the default
      throw refused(
          "session.mode",
          null,
          "query",
          queryId,
          "the session must say who learns the intersection: both or labeled");
    }
    if (s.prefiltering() == null) {
      // whether a helper filters changes what each owner learns: never read as none
      throw refused(
          "session.prefiltering",
          null,
          "query",
          queryId,
          "the session must say whether a helper pre-filters: {\"prefilter\": \"none\"} at least");
    }
    for (String[] f :
        new String[][] {
          {"session.aEndpoint", s.aEndpoint()}, {"session.bEndpoint", s.bEndpoint()}
        }) {
      if (!Confined.isEndpoint(f[1])) {
        throw refused(f[0], f[1], "query", queryId, "must be HOST:PORT");
      }
    }
    for (String[] f :
        new String[][] {
          {"session.aFingerprint", s.aFingerprint()}, {"session.bFingerprint", s.bFingerprint()}
        }) {
      if (!Confined.isFingerprint(f[1])) {
        throw refused(
            f[0], f[1], "query", queryId, "must be a SHA-256 in hex (64 lower-case digits)");
      }
    }
  }

  /** Logs and audits a refused value of the peer; the caller throws the answer. */
  ApiException refused(String field, String value, String objectType, String objectId, String why) {
    return refused(ctx.peerName(), field, value, objectType, objectId, why);
  }

  /** As above, for a value organisation {@code from} sent (an n-party join's party). */
  ApiException refused(
      String from, String field, String value, String objectType, String objectId, String why) {
    // shortened, control characters escaped: the value is the peer's, it goes into our log
    String shown =
        value == null
            ? "null"
            : (value.length() > 80 ? value.substring(0, 80) + "..." : value)
                .replaceAll("\\p{Cntrl}", "?");
    LOG.warn("refused from {}: {} {} ({})", from, field, why, shown);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("field", field);
    d.put("value", shown);
    d.put("why", why);
    // the object is the refused id itself when the id is what was refused
    ctx.audit(
        ctx.now(),
        from,
        "peer.refused",
        objectType,
        objectId != null ? objectId : shown,
        Store.json(d));
    return ApiException.badRequest(field, why);
  }
}
