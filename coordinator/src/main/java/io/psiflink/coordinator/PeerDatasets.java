package io.psiflink.coordinator;

import com.fasterxml.jackson.databind.JsonNode;
import io.psiflink.coordinator.Model.PublishedDataset;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The peer's published datasets, fetched from its coordinator to validate a query against. */
final class PeerDatasets {
  private static final Logger LOG = LoggerFactory.getLogger(PeerDatasets.class);

  private final Context ctx;

  PeerDatasets(Context ctx) {
    this.ctx = ctx;
  }

  /**
   * The peer's published dataset. {@code forPeer}: the caller is the peer (an offer it sent), which
   * hears that the fetch failed but not how (our view of its hosts and errors stays here, in the
   * log).
   */
  PublishedDataset fetch(String name, String field, boolean forPeer) {
    return fetch(ctx.peerName(), name, field, forPeer);
  }

  /** As above, from organisation {@code org}'s coordinator (an n-party join's party). */
  PublishedDataset fetch(String org, String name, String field, boolean forPeer) {
    try {
      JsonNode n = ctx.organisation(org).get("/v1/peer/datasets/" + PeerClient.segment(name));
      return ctx.json().treeToValue(n, PublishedDataset.class);
    } catch (PeerClient.PeerError e) {
      if (e.status == 404) {
        throw new ApiException(
                422, field + ": the peer " + org + " has no published dataset " + name)
            .with("field", field);
      }
      if (forPeer) {
        throw cannotFetchForPeer(name, field, e);
      }
      throw new ApiException(
              502,
              "the coordinator of "
                  + org
                  + " answered "
                  + e.status
                  + " for dataset "
                  + name
                  + ": "
                  + message(e))
          .with("field", field);
    } catch (IOException e) {
      if (forPeer) {
        throw cannotFetchForPeer(name, field, e);
      }
      throw new ApiException(502, "cannot reach the coordinator of " + org + ": " + e.getMessage())
          .with("field", field);
    }
  }

  /** The peer's error message, or its status. */
  static String message(PeerClient.PeerError e) {
    return e.body != null && e.body.has("error")
        ? e.body.get("error").asText()
        : "status " + e.status;
  }

  /** The answer to the peer whose dataset we could not fetch: no hosts, statuses or errors. */
  private static ApiException cannotFetchForPeer(String name, String field, Exception e) {
    LOG.warn("fetching the peer's dataset {}: {}", name, e.getMessage());
    return new ApiException(502, "cannot fetch the requester's dataset " + name)
        .with("field", field);
  }
}
