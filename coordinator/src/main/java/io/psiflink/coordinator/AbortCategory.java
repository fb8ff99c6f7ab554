package io.psiflink.coordinator;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * Why a session ended early, as the peer's coordinator is told it ({@code POST
 * /v1/peer/sessions/{id}/abort}, body {@code {"category": "..."}}). Only this fixed category
 * crosses to the other organisation: the details (bad-row and overflow counts, local paths, host
 * names and connection errors) stay in this party's session status, log and audit log. An abort
 * with any other category is refused.
 */
enum AbortCategory {
  /** A party cancelled the session. */
  CANCELLED,
  /** The party's dataset was retired before its job started. */
  DATASET_UNAVAILABLE,
  /** The party's input was refused (too many bad rows, a schema that does not fit, ...). */
  INPUT_REJECTED,
  /** The exchange with the other job failed (handshake, bridge, a bin's protocol). */
  PROTOCOL_ERROR,
  /** Something waited too long (the peer's stream, a bin, the job). */
  TIMEOUT,
  /** Anything else, including a coordinator restart while the job ran. */
  INTERNAL;

  /** The category in the wire form (lower case). */
  @JsonValue
  String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The category of {@code s} (wire form), or null if it is not one. */
  static AbortCategory parse(String s) {
    for (AbortCategory c : values()) {
      if (c.wire().equals(s)) {
        return c;
      }
    }
    return null;
  }

  /**
   * The category of a failed job, from its local explanation (which is never sent): the first rule
   * that matches wins.
   */
  static AbortCategory ofJobError(String error) {
    String e = error == null ? "" : error.toLowerCase(Locale.ROOT);
    if (e.contains("bad row")
        || e.contains("bad-row")
        || e.contains("quarantin")
        || e.contains("schema")
        || e.contains("no such column")
        || e.contains("cannot read")) {
      return INPUT_REJECTED;
    }
    if (e.contains("timed out") || e.contains("timeout") || e.contains("deadline")) {
      return TIMEOUT;
    }
    if (e.contains("peer")
        || e.contains("protocol")
        || e.contains("handshake")
        || e.contains("bridge")
        || e.contains("bin ")
        || e.contains("overflow")) {
      return PROTOCOL_ERROR;
    }
    return INTERNAL;
  }
}
