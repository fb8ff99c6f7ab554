package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** openapi.yaml describes exactly the routes the server implements, with their statuses. */
class OpenApiTest {
  @TempDir Path dir;

  @Test
  void everyRouteIsDescribedAndEveryDescribedRouteExists() throws Exception {
    JsonNode spec;
    try (InputStream in = OpenApiTest.class.getResourceAsStream("/openapi.yaml")) {
      spec = new ObjectMapper(new YAMLFactory()).readTree(in);
    }
    assertTrue(spec.path("openapi").asText().startsWith("3."), "OpenAPI 3");
    TreeSet<String> described = new TreeSet<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = spec.path("paths").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> path = it.next();
      for (Iterator<String> m = path.getValue().fieldNames(); m.hasNext(); ) {
        String method = m.next();
        if (!method.equals("parameters")) {
          described.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
        }
      }
    }
    try (Parties p =
        new Parties(
            dir, party -> "jdbc:sqlite:" + dir.resolve(party + ".db"), Duration.ofHours(1))) {
      TreeSet<String> implemented = new TreeSet<>();
      for (HttpApi.Route r : p.alice.routes()) {
        implemented.add(r.method() + " " + r.path());
        JsonNode op = spec.path("paths").path(r.path()).path(r.method().toLowerCase(Locale.ROOT));
        JsonNode responses = op.path("responses");
        assertTrue(
            responses.has(String.valueOf(r.status())),
            r.method() + " " + r.path() + " should describe its status " + r.status());
        if (r.kind() != null) {
          assertTrue(
              responses.has("401") && responses.has("403"),
              r.method() + " " + r.path() + " should describe 401 and 403");
        } else {
          assertTrue(
              op.path("security").isArray() && op.path("security").isEmpty(),
              r.path() + " is public: security: []");
        }
        for (Iterator<String> codes = responses.fieldNames(); codes.hasNext(); ) {
          String code = codes.next();
          assertTrue(code.matches("[1-5][0-9][0-9]"), code);
        }
      }
      assertEquals(described, implemented);
      // the served description is the file
      Client.Reply served = p.client(p.alice, null).get("/openapi.yaml");
      assertEquals(200, served.status());
      try (InputStream in = OpenApiTest.class.getResourceAsStream("/openapi.yaml")) {
        assertEquals(
            new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8), served.raw());
      }
    }
  }

  @Test
  void everySchemaReferenceResolves() throws Exception {
    String text;
    try (InputStream in = OpenApiTest.class.getResourceAsStream("/openapi.yaml")) {
      text = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
    JsonNode spec = new ObjectMapper(new YAMLFactory()).readTree(text);
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\\$ref: \"#/components/(schemas|responses)/([A-Za-z]+)\"")
            .matcher(text);
    int refs = 0;
    while (m.find()) {
      refs++;
      assertTrue(spec.path("components").path(m.group(1)).has(m.group(2)), m.group());
    }
    assertTrue(refs > 20);
    Files.writeString(dir.resolve("ok"), "checked " + refs);
  }

  @Test
  void theModesTheLabelSizesAndTheRevealSettingsAreTheCodes() throws Exception {
    JsonNode schemas;
    try (InputStream in = OpenApiTest.class.getResourceAsStream("/openapi.yaml")) {
      schemas = new ObjectMapper(new YAMLFactory()).readTree(in).path("components").path("schemas");
    }
    assertEquals(
        java.util.Arrays.stream(io.psiflink.api.JoinMode.values())
            .map(io.psiflink.api.JoinMode::text)
            .toList(),
        words(schemas.path("JoinMode").path("enum")));
    assertEquals(
        java.util.Arrays.stream(Model.RevealIntersection.values())
            .map(Model.RevealIntersection::wire)
            .toList(),
        words(schemas.path("RevealIntersection").path("enum")));
    for (JsonNode n :
        new JsonNode[] {
          schemas.path("LabelBytes"),
          schemas.path("QueryRequest").path("properties").path("labelBytes")
        }) {
      assertEquals(Requests.MIN_LABEL_BYTES, n.path("minimum").asInt(), n.toString());
      assertEquals(Requests.MAX_LABEL_BYTES, n.path("maximum").asInt(), n.toString());
    }
    assertEquals(
        io.psiflink.api.PartyOptions.DEFAULT_LABEL_BYTES,
        schemas.path("QueryRequest").path("properties").path("labelBytes").path("default").asInt());
  }

  @Test
  void thePrefilterAndItsBoundsAreTheCodes() throws Exception {
    JsonNode schemas;
    try (InputStream in = OpenApiTest.class.getResourceAsStream("/openapi.yaml")) {
      schemas = new ObjectMapper(new YAMLFactory()).readTree(in).path("components").path("schemas");
    }
    assertEquals(
        java.util.Arrays.stream(io.psiflink.api.Prefilter.values())
            .map(io.psiflink.api.Prefilter::text)
            .toList(),
        words(schemas.path("Prefilter").path("enum")));
    JsonNode request = schemas.path("QueryRequest").path("properties");
    for (JsonNode n : new JsonNode[] {schemas.path("FilterBits"), request.path("filterBits")}) {
      assertEquals(0, n.path("minimum").asInt(), n.toString());
      assertEquals(io.psiflink.api.PartyOptions.FILTER_BITS_MAX, n.path("maximum").asInt());
    }
    assertTrue(
        schemas
            .path("FilterBits")
            .path("description")
            .asText()
            .contains(
                io.psiflink.api.PartyOptions.FILTER_BITS_MIN
                    + " to "
                    + io.psiflink.api.PartyOptions.FILTER_BITS_MAX));
    for (JsonNode n : new JsonNode[] {schemas.path("FilterHashes"), request.path("filterHashes")}) {
      assertEquals(0, n.path("minimum").asInt(), n.toString());
      assertEquals(io.psiflink.api.PartyOptions.FILTER_HASHES_MAX, n.path("maximum").asInt());
    }
    // what the API serves: the records' fields, as Jackson writes them
    assertEquals(
        words(schemas.path("Prefiltering").path("properties"), true),
        java.util.Arrays.stream(Model.Prefiltering.class.getRecordComponents())
            .map(java.lang.reflect.RecordComponent::getName)
            .toList());
    assertEquals(
        words(schemas.path("Helper").path("properties"), true),
        java.util.Arrays.stream(CoordinatorConfig.Helper.class.getRecordComponents())
            .map(java.lang.reflect.RecordComponent::getName)
            .toList());
    assertEquals(
        words(schemas.path("HelperDisclosure").path("properties"), true),
        java.util.Arrays.stream(Disclosure.HelperText.class.getRecordComponents())
            .map(java.lang.reflect.RecordComponent::getName)
            .toList());
  }

  /** The field names of an object's properties, in order. */
  private static java.util.List<String> words(JsonNode properties, boolean names) {
    java.util.List<String> out = new java.util.ArrayList<>();
    properties.fieldNames().forEachRemaining(out::add);
    return out;
  }

  private static java.util.List<String> words(JsonNode array) {
    java.util.List<String> out = new java.util.ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
