package io.psiflink.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psiflink.api.ColumnType;
import io.psiflink.api.JoinMode;
import io.psiflink.api.OutputFormat;
import io.psiflink.api.PartyOptions;
import io.psiflink.api.Prefilter;
import io.psiflink.api.PublicSize;
import io.psiflink.api.Role;
import io.psiflink.coordinator.Model.ColumnSpec;
import io.psiflink.coordinator.Model.Decision;
import io.psiflink.coordinator.Model.Output;
import io.psiflink.coordinator.Model.Prefiltering;
import io.psiflink.coordinator.Model.RevealIntersection;
import io.psiflink.coordinator.Model.SessionRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The API's request bodies as typed records, each parsed once from JSON at the HTTP edge ({@link
 * HttpApi}): a malformed body is refused there with 400 naming the field; what needs this party's
 * state (its datasets, the peer, the clock) is checked by the part that handles it. Records sent to
 * the peer ({@link Offer}, {@link PeerDecision}, {@link PeerAbort}) are also what this coordinator
 * writes when it calls the peer.
 */
final class Requests {
  private Requests() {}

  static final Pattern DATASET_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

  /** A party's (or a helper's) name: its certificate's CN. */
  static final Pattern PARTY_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

  /** The least label size a query may ask for: the job's ({@code --label-bytes}). */
  static final int MIN_LABEL_BYTES = PartyOptions.LABEL_BYTES_MIN;

  /** The largest label size a query may ask for: the job's, the native library's bound. */
  static final int MAX_LABEL_BYTES = PartyOptions.LABEL_BYTES_MAX;

  /**
   * {@code POST /v1/datasets}.
   *
   * @param schema null: discover it from the files
   * @param keyColumns null when not given (the registry requires it once the schema is known)
   */
  record NewDataset(
      String name,
      String location,
      OutputFormat format,
      List<ColumnSpec> schema,
      List<String> keyColumns,
      List<String> revealColumns,
      List<String> filterColumns,
      String publicSize,
      RevealIntersection revealIntersection) {

    static NewDataset parse(JsonNode body) {
      object(body);
      String name = requireText(body, "name");
      if (!DATASET_NAME.matcher(name).matches()) {
        throw ApiException.badRequest("name", "must match " + DATASET_NAME.pattern());
      }
      String location = requireText(body, "location");
      OutputFormat format = Formats.parse(requireText(body, "format"), "format");
      JsonNode schemaNode = body.get("schema");
      List<ColumnSpec> schema =
          schemaNode == null || schemaNode.isNull() ? null : schema(schemaNode);
      String publicSize;
      try {
        publicSize =
            PublicSize.parse(
                    body.hasNonNull("publicSize")
                        ? body.get("publicSize").asText()
                        : PublicSize.DEFAULT.text())
                .text();
      } catch (IllegalArgumentException e) {
        throw ApiException.badRequest("publicSize", e.getMessage());
      }
      RevealIntersection reveal = RevealIntersection.ALLOWED;
      JsonNode revealNode = body.get("revealIntersection");
      if (revealNode != null && !revealNode.isNull()) {
        reveal =
            revealNode.isTextual()
                ? Model.fromWire(RevealIntersection.class, revealNode.asText())
                : null;
        if (reveal == null) {
          throw ApiException.badRequest(
              "revealIntersection", "must be allowed or never, not " + revealNode);
        }
      }
      return new NewDataset(
          name,
          location,
          format,
          schema,
          names(body, "keyColumns", true),
          names(body, "revealColumns", false),
          names(body, "filterColumns", false),
          publicSize,
          reveal);
    }

    /** A schema as given or discovered: non-empty, known types, no duplicate column. */
    static List<ColumnSpec> schema(JsonNode schemaNode) {
      if (!schemaNode.isArray() || schemaNode.isEmpty()) {
        throw ApiException.badRequest("schema", "must be a non-empty array of {name, type}");
      }
      List<ColumnSpec> schema = new ArrayList<>();
      Set<String> names = new HashSet<>();
      for (int i = 0; i < schemaNode.size(); i++) {
        JsonNode c = schemaNode.get(i);
        String f = "schema[" + i + "]";
        String cn = requireText(c, "name", f + ".name");
        String type = requireText(c, "type", f + ".type").toUpperCase(Locale.ROOT);
        try {
          ColumnType.valueOf(type);
        } catch (IllegalArgumentException e) {
          throw ApiException.badRequest(
              f + ".type",
              "unknown type "
                  + c.get("type").asText()
                  + "; types are "
                  + List.of(ColumnType.values()));
        }
        if (!names.add(cn)) {
          throw ApiException.badRequest(f + ".name", "duplicate column " + cn);
        }
        JsonNode nullable = c.get("nullable");
        if (nullable != null && !nullable.isBoolean()) {
          throw ApiException.badRequest(f + ".nullable", "must be true or false");
        }
        schema.add(new ColumnSpec(cn, type, nullable == null || nullable.asBoolean()));
      }
      return List.copyOf(schema);
    }

    /** A list of column names, or null when absent; names are checked against the schema later. */
    private static List<String> names(JsonNode body, String field, boolean required) {
      JsonNode n = body.get(field);
      if (n == null || n.isNull()) {
        return null;
      }
      if (!n.isArray() || (required && n.isEmpty())) {
        throw ApiException.badRequest(
            field, required ? "must list at least one column" : "must be an array of column names");
      }
      List<String> out = new ArrayList<>();
      for (int i = 0; i < n.size(); i++) {
        if (!n.get(i).isTextual()) {
          throw ApiException.badRequest(
              field + "[" + i + "]", "unknown column " + n.get(i) + "; column names are strings");
        }
        out.add(n.get(i).asText());
      }
      return List.copyOf(out);
    }
  }

  /**
   * {@code POST /v1/queries}: exactly one of {@code sql} and {@code query} (the JSON form).
   *
   * @param bins null: the configured default (likewise sigma, protocol)
   * @param mode {@code both} (default) or {@code labeled}
   * @param labelBytes labeled mode's label size ({@link PartyOptions#DEFAULT_LABEL_BYTES} when not
   *     given); null in mode both
   * @param prefilter {@code none} (default) or {@code helper}
   * @param helper prefilter helper: the helper's name (one this coordinator registered); else null
   * @param filterBits prefilter helper: log2 of the filter's size, 0 (default) for the jobs' choice
   * @param filterHashes prefilter helper: hash functions per key, 0 (default) for the jobs' choice
   * @param expectedOverlapPpm prefilter auto: the share of the smaller table's keys expected in
   *     common, in millionths ({@link Prefiltering#ALL}, the default, assumes all)
   */
  record Submission(
      String localDataset,
      String peerDataset,
      Role role,
      Integer bins,
      Integer sigma,
      String protocol,
      JoinMode mode,
      Integer labelBytes,
      Prefilter prefilter,
      String helper,
      int filterBits,
      int filterHashes,
      int expectedOverlapPpm,
      String sql,
      QueryForm query,
      Output output) {

    static Submission parse(JsonNode body) {
      object(body);
      String localName = requireText(body, "localDataset");
      String peerName = requireText(body, "peerDataset");
      Role role =
          Roles.twoParty(body.hasNonNull("role") ? body.get("role").asText() : null, "role");
      Integer bins = intField(body, "bins", 0, 1 << 24);
      Integer sigma = intField(body, "sigma", 40, 128);
      String protocol = body.hasNonNull("protocol") ? body.get("protocol").asText() : null;
      JoinMode mode = JoinMode.BOTH;
      JsonNode modeNode = body.get("mode");
      if (modeNode != null && !modeNode.isNull()) {
        mode = modeNode.isTextual() ? modeOrNull(modeNode.asText()) : null;
        if (mode == null) {
          throw ApiException.badRequest("mode", "must be both or labeled, not " + modeNode);
        }
      }
      Integer labelBytes = intField(body, "labelBytes", MIN_LABEL_BYTES, MAX_LABEL_BYTES);
      if (mode == JoinMode.BOTH && labelBytes != null) {
        // ignoring it would let the submitter believe labels are padded to it
        throw ApiException.badRequest(
            "labelBytes", "is the label size of mode labeled; this query's mode is both");
      }
      if (mode == JoinMode.LABELED && labelBytes == null) {
        labelBytes = PartyOptions.DEFAULT_LABEL_BYTES;
      }
      Prefilter prefilter = Prefilter.NONE;
      JsonNode prefilterNode = body.get("prefilter");
      if (prefilterNode != null && !prefilterNode.isNull()) {
        prefilter = prefilterNode.isTextual() ? prefilterOrNull(prefilterNode.asText()) : null;
        if (prefilter == null) {
          throw ApiException.badRequest(
              "prefilter", "must be none, helper or auto, not " + prefilterNode);
        }
      }
      JsonNode helperNode = body.get("helper");
      String helper = null;
      if (helperNode != null && !helperNode.isNull()) {
        if (!helperNode.isTextual() || !PARTY_NAME.matcher(helperNode.asText()).matches()) {
          throw ApiException.badRequest(
              "helper", "must be a helper's name (" + PARTY_NAME.pattern() + ")");
        }
        helper = helperNode.asText();
      }
      Integer filterBits = intField(body, "filterBits", 0, PartyOptions.FILTER_BITS_MAX);
      if (filterBits != null && !Prefiltering.validBits(filterBits)) {
        throw ApiException.badRequest("filterBits", Prefiltering.bitsRule());
      }
      Integer filterHashes = intField(body, "filterHashes", 0, PartyOptions.FILTER_HASHES_MAX);
      Integer overlapPpm = shareField(body, "expectedOverlap");
      if (overlapPpm != null && prefilter != Prefilter.AUTO) {
        // ignoring it would let the submitter believe it steers something
        throw ApiException.badRequest(
            "expectedOverlap",
            "is an option of prefilter auto; this query's prefilter is " + prefilter.text());
      }
      if (prefilter == Prefilter.NONE) {
        // ignoring any of them would let the submitter believe a helper filters
        for (String[] f :
            new String[][] {
              {"helper", helper},
              {"filterBits", filterBits == null || filterBits == 0 ? null : "set"},
              {"filterHashes", filterHashes == null || filterHashes == 0 ? null : "set"}
            }) {
          if (f[1] != null) {
            throw ApiException.badRequest(
                f[0], "is an option of prefilter helper; this query's prefilter is none");
          }
        }
      } else {
        if (helper == null) {
          throw ApiException.badRequest(
              "helper",
              "is required with prefilter "
                  + prefilter.text()
                  + ": the name of a helper registered here (GET /v1/helpers)");
        }
        if (mode == JoinMode.LABELED) {
          throw ApiException.badRequest("prefilter", PREFILTER_LABELED);
        }
      }
      boolean hasSql = body.hasNonNull("sql");
      boolean hasJson = body.hasNonNull("query");
      if (hasSql == hasJson) {
        throw ApiException.badRequest(
            "sql",
            "give the query either as SQL text (sql) or in JSON"
                + " form (query), not "
                + (hasSql ? "both" : "neither"));
      }
      if (hasSql && (!body.get("sql").isTextual() || body.get("sql").asText().isBlank())) {
        throw ApiException.badRequest("sql", "must be non-empty SQL text");
      }
      return new Submission(
          localName,
          peerName,
          role,
          bins,
          sigma,
          protocol,
          mode,
          labelBytes,
          prefilter,
          helper,
          filterBits == null ? 0 : filterBits,
          filterHashes == null ? 0 : filterHashes,
          overlapPpm == null ? Prefiltering.ALL : overlapPpm,
          hasSql ? body.get("sql").asText() : null,
          hasJson ? QueryForm.parse(body.get("query")) : null,
          output(body.get("output")));
    }

    static Output output(JsonNode n) {
      if (n == null || n.isNull()) {
        return null;
      }
      if (!n.isObject()) {
        throw ApiException.badRequest("output", "must be an object {location, format}");
      }
      JsonNode loc = n.get("location");
      JsonNode fmt = n.get("format");
      if (loc != null && !loc.isNull() && (!loc.isTextual() || loc.asText().isBlank())) {
        throw ApiException.badRequest("output.location", "must be a non-empty path");
      }
      OutputFormat format =
          fmt == null || fmt.isNull()
              ? null
              : fmt.isTextual() && (fmt.asText().equals("avro") || fmt.asText().equals("csv"))
                  ? OutputFormat.parse(fmt.asText())
                  : null;
      if (fmt != null && !fmt.isNull() && format == null) {
        throw ApiException.badRequest("output.format", "must be avro or csv");
      }
      return new Output(loc == null || loc.isNull() ? null : loc.asText(), format);
    }
  }

  /**
   * The JSON form of a query (QueryValidator renders it as SQL):
   *
   * <pre>
   * {"select": [{"table": "a", "column": "spend", "as": "total"}, ...],
   *  "on":     [{"a": "card", "b": "card"}, ...],
   *  "where":  {"a": ["spend > 23"], "b": ["country = 'DE'"]}}
   * </pre>
   *
   * @param where each party's conditions on its own table, A's first
   */
  record QueryForm(List<Selected> select, List<KeyPair> on, Map<Role, List<String>> where) {
    /** A selected column of table {@code a} or {@code b}, with its output name (or null). */
    record Selected(Role table, String column, String as) {}

    /** One equality of the join: a's column = b's column. */
    record KeyPair(String a, String b) {}

    static QueryForm parse(JsonNode q) {
      if (q == null || !q.isObject()) {
        throw ApiException.badRequest("query", "must be an object with select, on and where");
      }
      JsonNode select = q.path("select");
      if (!select.isArray() || select.isEmpty()) {
        throw ApiException.badRequest("query.select", "must be a non-empty array");
      }
      List<Selected> selected = new ArrayList<>();
      for (int i = 0; i < select.size(); i++) {
        JsonNode item = select.get(i);
        String f = "query.select[" + i + "]";
        String table = text(item, "table", f);
        Role side = Roles.ofTable(table);
        if (side == null) {
          throw ApiException.badRequest(f + ".table", "must be a or b, not " + table);
        }
        String column = text(item, "column", f);
        selected.add(
            new Selected(side, column, item.hasNonNull("as") ? text(item, "as", f) : null));
      }
      JsonNode on = q.path("on");
      if (!on.isArray() || on.isEmpty()) {
        throw ApiException.badRequest("query.on", "must be a non-empty array of {a, b} pairs");
      }
      List<KeyPair> pairs = new ArrayList<>();
      for (int i = 0; i < on.size(); i++) {
        String f = "query.on[" + i + "]";
        String a = text(on.get(i), "a", f);
        pairs.add(new KeyPair(a, text(on.get(i), "b", f)));
      }
      Map<Role, List<String>> conditions = new LinkedHashMap<>();
      JsonNode where = q.path("where");
      if (!where.isMissingNode() && !where.isNull()) {
        if (!where.isObject()) {
          throw ApiException.badRequest("query.where", "must be an object {a: [...], b: [...]}");
        }
        where
            .fieldNames()
            .forEachRemaining(
                name -> {
                  if (Roles.ofTable(name) == null) {
                    throw ApiException.badRequest("query.where." + name, "tables are a and b");
                  }
                });
        for (Role r : List.of(Role.A, Role.B)) {
          String t = r.table();
          JsonNode list = where.path(t);
          if (list.isMissingNode()) {
            continue;
          }
          if (!list.isArray()) {
            throw ApiException.badRequest("query.where." + t, "must be an array of conditions");
          }
          List<String> conds = new ArrayList<>();
          for (int i = 0; i < list.size(); i++) {
            if (!list.get(i).isTextual() || list.get(i).asText().isBlank()) {
              throw ApiException.badRequest(
                  "query.where." + t + "[" + i + "]", "must be a non-empty SQL condition");
            }
            conds.add(list.get(i).asText());
          }
          conditions.put(r, List.copyOf(conds));
        }
      }
      return new QueryForm(List.copyOf(selected), List.copyOf(pairs), conditions);
    }

    /** The conditions on {@code r}'s table (empty if none). */
    List<String> where(Role r) {
      return where.getOrDefault(r, List.of());
    }
  }

  /**
   * {@code POST /v1/peer/queries}: a query the peer's party submitted, for this party's approval
   * (the requester's coordinator writes it, the approver's parses it).
   */
  record Offer(
      String id,
      String requester,
      Role requesterSide,
      String requesterDataset,
      String approverDataset,
      String sql,
      String fingerprint,
      int bins,
      int sigma,
      String protocol,
      JoinMode mode,
      Integer labelBytes,
      Prefiltering prefiltering,
      String requesterEndpoint,
      String requesterFingerprint,
      long expiresAt) {

    /** {@code refuse}: the id names rows here, so a bad one is refused first, and audited. */
    static Offer parse(JsonNode offer, Refusal refuse) {
      object(offer);
      String id = requireText(offer, "id");
      if (!Confined.isUuid(id)) {
        throw refuse.refused("id", id, "must be a UUID in canonical form");
      }
      String requester = requireText(offer, "requester");
      Role requesterSide =
          Roles.twoParty(
              offer.hasNonNull("requesterSide") ? offer.get("requesterSide").asText() : null,
              "role");
      String requesterDataset = requireText(offer, "requesterDataset");
      String ownName = requireText(offer, "approverDataset");
      String sql = requireText(offer, "sql");
      String fingerprint = requireText(offer, "fingerprint");
      Integer bins = intField(offer, "bins", 0, 1 << 24);
      Integer sigma = intField(offer, "sigma", 40, 128);
      String protocol = requireText(offer, "protocol");
      // The mode decides what this party's owner learns: a missing or unknown one is refused (and
      // audited), never read as the default.
      JsonNode modeNode = offer.get("mode");
      JoinMode mode =
          modeNode != null && modeNode.isTextual() ? modeOrNull(modeNode.asText()) : null;
      if (mode == null) {
        throw refuse.refused(
            "mode",
            modeNode == null ? null : modeNode.toString(),
            "the offer must say who learns the intersection: both or labeled");
      }
      JsonNode lb = offer.get("labelBytes");
      Integer labelBytes = null;
      if (mode == JoinMode.LABELED) {
        if (lb == null
            || !lb.isInt()
            || lb.asInt() < MIN_LABEL_BYTES
            || lb.asInt() > MAX_LABEL_BYTES) {
          throw refuse.refused(
              "labelBytes",
              lb == null ? null : lb.toString(),
              "a labeled query carries its label size, an integer in ["
                  + MIN_LABEL_BYTES
                  + ", "
                  + MAX_LABEL_BYTES
                  + "]");
        }
        labelBytes = lb.asInt();
      } else if (lb != null && !lb.isNull()) {
        throw refuse.refused(
            "labelBytes", lb.toString(), "only a labeled query has a label size; its mode is both");
      }
      Prefiltering prefiltering = Requests.prefiltering(offer.get("prefiltering"), refuse);
      String endpoint = requireText(offer, "requesterEndpoint");
      String peerFingerprint = requireText(offer, "requesterFingerprint");
      return new Offer(
          id,
          requester,
          requesterSide,
          requesterDataset,
          ownName,
          sql,
          fingerprint,
          bins == null ? 0 : bins,
          sigma == null ? 40 : sigma,
          protocol,
          mode,
          labelBytes,
          prefiltering,
          endpoint,
          peerFingerprint,
          offer.path("expiresAt").asLong(0));
    }
  }

  /**
   * An offer's {@code prefiltering} ({prefilter, helper, helperCertSha256, filterBits,
   * filterHashes}). It changes what this party's owner learns: a missing or malformed one is
   * refused (and audited), never read as none.
   */
  static Prefiltering prefiltering(JsonNode n, Refusal refuse) {
    if (n == null || !n.isObject()) {
      throw refuse.refused(
          "prefiltering",
          n == null ? null : n.toString(),
          "the offer must say whether a helper pre-filters: {\"prefilter\": \"none\"} at least");
    }
    JsonNode p = n.get("prefilter");
    Prefilter prefilter = p != null && p.isTextual() ? prefilterOrNull(p.asText()) : null;
    if (prefilter == null) {
      throw refuse.refused(
          "prefiltering.prefilter",
          p == null ? null : p.toString(),
          "must be none, helper or auto");
    }
    for (String f : List.of("filterBits", "filterHashes", "expectedOverlapPpm")) {
      JsonNode v = n.get(f);
      if (v != null && !v.isNull() && !v.isInt()) {
        throw refuse.refused("prefiltering." + f, v.toString(), "must be an integer");
      }
    }
    for (String f : List.of("helper", "helperCertSha256")) {
      JsonNode v = n.get(f);
      if (v != null && !v.isNull() && !v.isTextual()) {
        throw refuse.refused("prefiltering." + f, v.toString(), "must be a string");
      }
    }
    try {
      return new Prefiltering(
          prefilter,
          n.hasNonNull("helper") ? n.get("helper").asText() : null,
          n.hasNonNull("helperCertSha256") ? n.get("helperCertSha256").asText() : null,
          n.path("filterBits").asInt(0),
          n.path("filterHashes").asInt(0),
          n.path("expectedOverlapPpm").asInt(Prefiltering.ALL));
    } catch (IllegalArgumentException e) {
      throw refuse.refused("prefiltering", n.toString(), e.getMessage());
    }
  }

  /**
   * {@code POST /v1/peer/queries/{id}/decision}: the approver's decision, with the session it
   * created when it approved.
   */
  record PeerDecision(Decision decision, String reason, Long decidedAt, SessionRecord session) {

    static PeerDecision parse(JsonNode body, ObjectMapper json) {
      object(body);
      String text = requireText(body, "decision");
      Decision decision = Model.fromWire(Decision.class, text);
      if (decision == null) {
        throw ApiException.badRequest("decision", "must be approved, rejected or expired");
      }
      String reason = body.hasNonNull("reason") ? body.get("reason").asText() : null;
      SessionRecord session = null;
      if (decision == Decision.APPROVED) {
        try {
          session = json.treeToValue(body.get("session"), SessionRecord.class);
        } catch (IOException | IllegalArgumentException e) {
          throw ApiException.badRequest("session", "unreadable: " + e.getMessage());
        }
        if (session == null || session.id() == null) {
          throw ApiException.badRequest("session", "an approval carries the session of the query");
        }
        if (session.mode() == null) {
          throw ApiException.badRequest(
              "session.mode", "the session must say who learns the intersection: both or labeled");
        }
      }
      return new PeerDecision(
          decision,
          reason,
          body.hasNonNull("decidedAt") ? body.get("decidedAt").asLong() : null,
          session);
    }
  }

  /** {@code POST /v1/peer/sessions/{id}/abort}: only the category crosses, no free text. */
  record PeerAbort(AbortCategory category) {

    /** Refuses anything but {@code {"category": "<one of the set>"}} through {@code refuse}. */
    static PeerAbort parse(JsonNode body, Refusal refuse) {
      JsonNode cat = body == null ? null : body.get("category");
      AbortCategory category =
          cat != null && cat.isTextual() ? AbortCategory.parse(cat.asText()) : null;
      if (category == null) {
        throw refuse.refused(
            "category",
            cat == null ? null : cat.toString(),
            "must be one of "
                + java.util.Arrays.stream(AbortCategory.values())
                    .map(AbortCategory::wire)
                    .toList());
      }
      java.util.Iterator<String> fields = body.fieldNames();
      while (fields.hasNext()) {
        String f = fields.next();
        if (!f.equals("category")) {
          throw refuse.refused(f, null, "an abort carries only its category");
        }
      }
      return new PeerAbort(category);
    }
  }

  /** How a request from the peer is refused: logged and audited ({@link PeerInput#refused}). */
  @FunctionalInterface
  interface Refusal {
    ApiException refused(String field, String value, String why);
  }

  /** {@code POST /v1/queries/{id}/approve} and {@code .../reject}: an optional reason. */
  static String reason(JsonNode body) {
    JsonNode r = body == null ? null : body.get("reason");
    if (r == null || r.isNull()) {
      return null;
    }
    if (!r.isTextual()) {
      throw ApiException.badRequest("reason", "must be a string");
    }
    return r.asText();
  }

  /** Why a labeled query cannot be pre-filtered (the requester's and the approver's words). */
  static final String PREFILTER_LABELED =
      "prefilter helper cannot run with mode labeled: the pre-filter would tell B its candidates,"
          + " a superset of the intersection, where mode labeled tells B nothing of it";

  /** Why a count-only query cannot be pre-filtered. */
  static final String PREFILTER_COUNT =
      "prefilter helper cannot run with a count-only query (COUNT): the pre-filter would tell A"
          + " its candidates, a superset of the intersection, where a count tells A only a number";

  // ------------------------------------------------------------------ helpers

  /** A prefilter's text (any case), or null if it is none. */
  private static Prefilter prefilterOrNull(String text) {
    try {
      return Prefilter.parse(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** A join mode's text (any case), or null if it is none. */
  private static JoinMode modeOrNull(String text) {
    try {
      return JoinMode.parse(text);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  static void object(JsonNode body) {
    if (body == null || !body.isObject()) {
      throw ApiException.badRequest("body", "must be a JSON object");
    }
  }

  /** An optional integer in [min, max]; null when absent. */
  /** A share in [0, 1] given as a JSON number, in millionths; null when absent. */
  private static Integer shareField(JsonNode body, String field) {
    JsonNode n = body.get(field);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isNumber() || !(n.asDouble() >= 0 && n.asDouble() <= 1)) {
      throw ApiException.badRequest(field, "must be a number in [0, 1]");
    }
    return (int) Math.round(n.asDouble() * Prefiltering.ALL);
  }

  static Integer intField(JsonNode body, String field, int min, int max) {
    JsonNode n = body.get(field);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isInt() || n.asInt() < min || n.asInt() > max) {
      throw ApiException.badRequest(field, "must be an integer in [" + min + ", " + max + "]");
    }
    return n.asInt();
  }

  static String requireText(JsonNode body, String name) {
    return requireText(body, name, name);
  }

  static String requireText(JsonNode body, String name, String field) {
    JsonNode v = body == null ? null : body.get(name);
    if (v == null || !v.isTextual() || v.asText().isBlank()) {
      throw ApiException.badRequest(field, "is required (a non-empty string)");
    }
    return v.asText();
  }

  private static String text(JsonNode node, String name, String field) {
    JsonNode v = node == null ? null : node.get(name);
    if (v == null || !v.isTextual() || v.asText().isEmpty()) {
      throw ApiException.badRequest(field + "." + name, "must be a non-empty string");
    }
    return v.asText();
  }
}
