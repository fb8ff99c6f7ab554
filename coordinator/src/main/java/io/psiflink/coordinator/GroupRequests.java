package io.psiflink.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psiflink.api.PartyOptions;
import io.psiflink.coordinator.Model.Decision;
import io.psiflink.coordinator.Model.GroupMember;
import io.psiflink.coordinator.Model.GroupSessionRecord;
import io.psiflink.coordinator.Model.Output;
import io.psiflink.coordinator.Model.QueryStatus;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The request bodies of n-party joins, parsed and checked before anything uses them: a submission
 * by this party, and what the parties' coordinators send each other (the offer, a party's vote,
 * P1's outcome). What another organisation sends is refused through a {@link Requests.Refusal},
 * which logs and audits it.
 */
final class GroupRequests {
  private GroupRequests() {}

  /** The most parties of one join: the job's and the provider's bound. */
  static final int MAX_PARTIES = 64;

  /** A party of a submission or an offer: its organisation and its dataset. */
  record Party(String party, String dataset) {}

  /**
   * {@code POST /v1/group-queries}: {@code parties[i]} holds the i-th table of the query's FROM;
   * the first is this party, which writes the result.
   */
  record Submission(
      String sql,
      List<Party> parties,
      String provider,
      Integer bins,
      Integer sigma,
      Output output) {

    static Submission parse(JsonNode body) {
      Requests.object(body);
      String sql = Requests.requireText(body, "sql");
      JsonNode list = body.get("parties");
      if (list == null || !list.isArray() || list.size() < 3 || list.size() > MAX_PARTIES) {
        throw ApiException.badRequest(
            "parties",
            "must list the 3 to "
                + MAX_PARTIES
                + " parties in the order of the query's tables: [{party, dataset}, ...], this"
                + " party first");
      }
      List<Party> parties = new ArrayList<>();
      for (int i = 0; i < list.size(); i++) {
        String f = "parties[" + i + "]";
        JsonNode p = list.get(i);
        if (p == null || !p.isObject()) {
          throw ApiException.badRequest(f, "must be an object {party, dataset}");
        }
        parties.add(
            new Party(
                name(p, "party", f, Requests.PARTY_NAME),
                name(p, "dataset", f, Requests.DATASET_NAME)));
      }
      String provider = Requests.requireText(body, "provider");
      if (!Requests.PARTY_NAME.matcher(provider).matches()) {
        throw ApiException.badRequest(
            "provider", "must be a provider's name (" + Requests.PARTY_NAME.pattern() + ")");
      }
      return new Submission(
          sql,
          List.copyOf(parties),
          provider,
          Requests.intField(body, "bins", 0, 1 << 24),
          Requests.intField(body, "sigma", PartyOptions.SIGMA.defaultValue(), 128),
          body.hasNonNull("output") ? Requests.Submission.output(body.get("output")) : null);
    }

    private static String name(JsonNode p, String key, String field, java.util.regex.Pattern re) {
      String v = Requests.requireText(p, key, field + "." + key);
      if (!re.matcher(v).matches()) {
        throw ApiException.badRequest(field + "." + key, "must match " + re.pattern());
      }
      return v;
    }
  }

  /**
   * {@code POST /v1/peer/group-queries}: P1's coordinator offers an n-party query to each other
   * party's. {@code parties} carries P1's job certificate pin (the others' come with their votes).
   */
  record Offer(
      String id,
      String requester,
      String sql,
      String fingerprint,
      List<GroupMember> parties,
      int bins,
      int sigma,
      String provider,
      String providerCertSha256,
      String requesterEndpoint,
      long expiresAt) {

    static Offer parse(JsonNode o, Requests.Refusal refuse) {
      Requests.object(o);
      String id = Requests.requireText(o, "id");
      if (!Confined.isUuid(id)) {
        throw refuse.refused("id", id, "must be a UUID in canonical form");
      }
      String requester = Requests.requireText(o, "requester");
      String sql = Requests.requireText(o, "sql");
      String fingerprint = Requests.requireText(o, "fingerprint");
      JsonNode list = o.get("parties");
      if (list == null || !list.isArray() || list.size() < 3 || list.size() > MAX_PARTIES) {
        throw refuse.refused(
            "parties",
            list == null ? null : list.toString(),
            "must list 3 to " + MAX_PARTIES + " parties");
      }
      List<GroupMember> parties = new ArrayList<>();
      Set<String> names = new HashSet<>();
      for (int i = 0; i < list.size(); i++) {
        JsonNode p = list.get(i);
        String party = p == null ? null : p.path("party").asText(null);
        String dataset = p == null ? null : p.path("dataset").asText(null);
        String fp =
            p == null || !p.hasNonNull("fingerprint") ? null : p.get("fingerprint").asText();
        if (party == null
            || !Requests.PARTY_NAME.matcher(party).matches()
            || dataset == null
            || !Requests.DATASET_NAME.matcher(dataset).matches()
            || !names.add(party)) {
          throw refuse.refused(
              "parties[" + i + "]",
              p == null ? null : p.toString(),
              "must be {party, dataset}, each party once");
        }
        if (i == 0 ? !Confined.isFingerprint(fp) : fp != null) {
          throw refuse.refused(
              "parties[" + i + "].fingerprint",
              fp,
              i == 0
                  ? "P1's job certificate pin is required (64 lower-case hex digits)"
                  : "only P1's pin is known before the others approve");
        }
        parties.add(new GroupMember(party, dataset, fp));
      }
      if (!parties.get(0).party().equals(requester)) {
        throw refuse.refused("parties[0].party", parties.get(0).party(), "P1 is the requester");
      }
      Integer bins = Requests.intField(o, "bins", 0, 1 << 24);
      Integer sigma = Requests.intField(o, "sigma", 40, 128);
      String provider = Requests.requireText(o, "provider");
      String pin = Requests.requireText(o, "providerCertSha256");
      if (!Confined.isFingerprint(pin)) {
        throw refuse.refused(
            "providerCertSha256", pin, "must be a SHA-256 in hex (64 lower-case digits)");
      }
      String endpoint = Requests.requireText(o, "requesterEndpoint");
      if (!Confined.isEndpoint(endpoint)) {
        throw refuse.refused("requesterEndpoint", endpoint, "must be HOST:PORT");
      }
      return new Offer(
          id,
          requester,
          sql,
          fingerprint,
          List.copyOf(parties),
          bins == null ? 0 : bins,
          sigma == null ? PartyOptions.SIGMA.defaultValue() : sigma,
          provider,
          pin,
          endpoint,
          o.path("expiresAt").asLong(0));
    }
  }

  /**
   * {@code POST /v1/peer/group-queries/{id}/decision}: a party's decision, sent to P1's
   * coordinator; an approval carries the pin of the certificate the party's job will present.
   */
  record Vote(Decision decision, String reason, String fingerprint) {

    static Vote parse(JsonNode body, Requests.Refusal refuse) {
      Requests.object(body);
      JsonNode d = body.get("decision");
      Decision decision =
          d != null && d.isTextual() ? Model.fromWire(Decision.class, d.asText()) : null;
      if (decision == null || decision == Decision.EXPIRED) {
        throw refuse.refused(
            "decision", d == null ? null : d.toString(), "must be approved or rejected");
      }
      String fp = body.hasNonNull("fingerprint") ? body.get("fingerprint").asText() : null;
      if (decision == Decision.APPROVED && !Confined.isFingerprint(fp)) {
        throw refuse.refused(
            "fingerprint", fp, "an approval carries the party's job certificate pin (SHA-256)");
      }
      JsonNode r = body.get("reason");
      String reason = r != null && r.isTextual() ? Confined.shortText(r.asText()) : null;
      return new Vote(decision, reason, decision == Decision.APPROVED ? fp : null);
    }
  }

  /**
   * {@code POST /v1/peer/group-queries/{id}/outcome}: P1's coordinator tells each party how the
   * query ended: approved by all (with the session), or rejected, refused, expired or failed (with
   * who ended it, no other party's words).
   *
   * @param decisions every party's decision as P1 recorded it (party, decision, when)
   */
  record Outcome(
      QueryStatus status,
      String reason,
      List<Model.GroupDecision> decisions,
      GroupSessionRecord session) {

    static Outcome parse(JsonNode body, ObjectMapper json, Requests.Refusal refuse) {
      Requests.object(body);
      JsonNode st = body.get("status");
      QueryStatus status =
          st != null && st.isTextual() ? Model.fromWire(QueryStatus.class, st.asText()) : null;
      if (status == null || status == QueryStatus.PENDING) {
        throw refuse.refused(
            "status", st == null ? null : st.toString(), "must be a final status of the query");
      }
      List<Model.GroupDecision> decisions = new ArrayList<>();
      GroupSessionRecord session = null;
      try {
        for (JsonNode d : body.path("decisions")) {
          decisions.add(json.treeToValue(d, Model.GroupDecision.class));
        }
        if (status == QueryStatus.APPROVED) {
          session = json.treeToValue(body.get("session"), GroupSessionRecord.class);
        }
      } catch (IOException | IllegalArgumentException e) {
        throw refuse.refused("session", null, "unreadable: " + e.getMessage());
      }
      if (status == QueryStatus.APPROVED && (session == null || session.parties() == null)) {
        throw refuse.refused("session", null, "an approval carries the session of the query");
      }
      for (Model.GroupDecision d : decisions) {
        if (d.party() == null || d.decision() == null) {
          throw refuse.refused("decisions", null, "each names its party and decision");
        }
      }
      JsonNode r = body.get("reason");
      return new Outcome(
          status,
          r != null && r.isTextual() ? Confined.shortText(r.asText()) : null,
          List.copyOf(decisions),
          session);
    }
  }
}
