package io.psiflink.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psiflink.api.Role;
import io.psiflink.coordinator.Model.QueryRecord;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The typed request records against JSON written out by hand, and the API's JSON of the enums. */
class RequestsTest {
  private static final ObjectMapper JSON = CoordinatorServer.mapper();

  private static JsonNode json(String s) throws Exception {
    return JSON.readTree(s.replace('\'', '"'));
  }

  private static ApiException refused(Runnable r) {
    return assertThrows(ApiException.class, r::run);
  }

  @Test
  void aSubmissionInJsonFormRendersTheSqlOfTheSubset() throws Exception {
    Requests.Submission s =
        Requests.Submission.parse(
            json(
                "{'localDataset': 'p',"
                    + " 'peerDataset': 'c', 'role': 'b', 'query': {'select': [{'table': 'b', 'column':"
                    + " 'spend', 'as': 'total'}, {'table': 'a', 'column': 'e`mail'}], 'on': [{'a': 'card',"
                    + " 'b': 'card'}], 'where': {'b': ['spend > 23'], 'a': ['country = x']}}}"));
    assertEquals(Role.B, s.role());
    assertNull(s.bins());
    assertNull(s.sql());
    assertEquals(
        "SELECT b.`spend` AS `total`, a.`e``mail` FROM a JOIN b ON a.`card` = b.`card`"
            + " WHERE (country = x) AND (spend > 23)",
        QueryValidator.render(s.query()));
  }

  @Test
  void malformedSubmissionsNameTheirField() throws Exception {
    assertEquals(
        "role",
        refused(
                () ->
                    Requests.Submission.parse(
                        uncheck(
                            "{'localDataset': 'p',"
                                + " 'peerDataset': 'c', 'role': 'helper', 'sql': 'x'}")))
            .body()
            .get("field"));
    assertEquals(
        "sigma",
        refused(
                () ->
                    Requests.Submission.parse(
                        uncheck(
                            "{'localDataset': 'p',"
                                + " 'peerDataset': 'c', 'sigma': 39, 'sql': 'x'}")))
            .body()
            .get("field"));
    assertTrue(
        refused(
                () ->
                    Requests.Submission.parse(
                        uncheck(
                            "{'localDataset': 'p',"
                                + " 'peerDataset': 'c', 'sql': 'x', 'query': {}}")))
            .getMessage()
            .contains("both"));
    assertEquals(
        "query.select[0].table",
        refused(
                () ->
                    Requests.Submission.parse(
                        uncheck(
                            "{'localDataset': 'p', 'peerDataset': 'c', 'query': {'select': [{'table': 'c',"
                                + " 'column': 'x'}], 'on': [{'a': 'k', 'b': 'k'}]}}")))
            .body()
            .get("field"));
    assertEquals(
        "query.where.c",
        refused(
                () ->
                    Requests.Submission.parse(
                        uncheck(
                            "{'localDataset': 'p', 'peerDataset': 'c', 'query': {'select': [{'table': 'a',"
                                + " 'column': 'x'}], 'on': [{'a': 'k', 'b': 'k'}], 'where': {'c': []}}}")))
            .body()
            .get("field"));
  }

  @Test
  void aPeerRefusalGoesThroughTheRefusalFirst() {
    String[] seen = new String[1];
    Requests.Refusal refuse =
        (field, value, why) -> {
          seen[0] = field + "=" + value;
          return ApiException.badRequest(field, why);
        };
    refused(() -> Requests.Offer.parse(uncheck("{'id': '../x'}"), refuse));
    assertEquals("id=../x", seen[0]);
    refused(
        () -> Requests.PeerAbort.parse(uncheck("{'category': 'cancelled', 'why': 'x'}"), refuse));
    assertEquals("why=null", seen[0]);
    assertEquals(
        AbortCategory.TIMEOUT,
        Requests.PeerAbort.parse(uncheck("{'category': 'timeout'}"), refuse).category());
  }

  @Test
  void theApiShowsEnumsInLowerCaseAndRolesByLabel() throws Exception {
    QueryRecord q =
        new QueryRecord(
            "i",
            Model.Direction.OUTGOING,
            "alice",
            "bob",
            Role.B,
            "p",
            "c",
            "s",
            "f",
            1,
            40,
            "kkrt",
            io.psiflink.api.JoinMode.BOTH,
            null,
            Model.Prefiltering.NONE,
            "e",
            "fp",
            Model.QueryStatus.PENDING,
            null,
            1,
            2,
            null,
            null);
    JsonNode n = JSON.valueToTree(q);
    assertEquals("outgoing", n.path("direction").asText());
    assertEquals("B", n.path("localSide").asText());
    assertEquals("pending", n.path("status").asText());
    assertEquals(q, JSON.treeToValue(n, QueryRecord.class));
    assertEquals(
        "{\"category\":\"dataset_unavailable\"}",
        JSON.writeValueAsString(new Requests.PeerAbort(AbortCategory.DATASET_UNAVAILABLE)));
    Model.SessionRecord s =
        JSON.treeToValue(
            json(
                "{'id': 's', 'queryId': 'q', 'status':"
                    + " 'running', 'progress': {'phase': 'bin_spill', 'binsDone': 0}}"),
            Model.SessionRecord.class);
    assertEquals(Model.SessionStatus.RUNNING, s.status());
    assertEquals(Model.Phase.BIN_SPILL, s.progress().phase());
    assertEquals(
        Map.of("decision", "rejected"),
        Map.of("decision", JSON.valueToTree(Model.Decision.REJECTED).asText()));
    assertEquals(
        List.of("pending", "approved", "rejected", "expired", "refused", "failed"),
        List.of(Model.QueryStatus.values()).stream().map(Model.QueryStatus::wire).toList());
  }

  private static JsonNode uncheck(String s) {
    try {
      return json(s);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
