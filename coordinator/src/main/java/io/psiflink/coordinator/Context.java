package io.psiflink.coordinator;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;

/**
 * What the coordinator's parts share: the configuration, the database, the peer coordinator, the
 * JSON mapper, the clock, and the certificate fingerprint this party's jobs present.
 */
record Context(
    CoordinatorConfig config,
    Db db,
    PeerClient peer,
    ObjectMapper json,
    Clock clock,
    String bridgeFingerprint) {

  String party() {
    return config.party();
  }

  String peerName() {
    return config.peer().name();
  }

  long now() {
    return clock.millis();
  }

  /** Appends one audit entry in a transaction of its own. */
  void audit(
      long at, String actor, String action, String objectType, String objectId, String detail) {
    db.tx(
        c -> {
          Store.audit(c, at, actor, action, objectType, objectId, detail);
          return null;
        });
  }
}
