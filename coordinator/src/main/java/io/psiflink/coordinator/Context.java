package io.psiflink.coordinator;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;
import java.util.Map;

/**
 * What the coordinator's parts share: the configuration, the database, the peer coordinator (and
 * those of every organisation, by name: n-party joins), the JSON mapper, the clock, and the
 * certificate fingerprint this party's jobs present.
 */
record Context(
    CoordinatorConfig config,
    Db db,
    PeerClient peer,
    Map<String, PeerClient> organisations,
    ObjectMapper json,
    Clock clock,
    String bridgeFingerprint) {

  /** The coordinator of organisation {@code name} (one of config.organisations()). */
  PeerClient organisation(String name) {
    PeerClient c = organisations.get(name);
    if (c == null) {
      throw new IllegalArgumentException(name + " is not an organisation of " + party());
    }
    return c;
  }

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
