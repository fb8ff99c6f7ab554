package io.psiflink.jobs.session;

import io.psiflink.api.Column;
import io.psiflink.jobs.prefilter.PrefilterPlan;
import java.util.List;

/**
 * What the control handshake establishes for one session: the keys both jobs derived (known to no
 * one else), this party's protocol setup, and the public facts both agreed on.
 *
 * @param tokenKey HMAC key of the token PRF (32 bytes)
 * @param binSeed SipHash key of the bin hash (16 bytes)
 * @param frameKey key sealing every bin frame end to end (32 bytes, see SealedBinStream)
 * @param setup this party's exported protocol setup (secret)
 * @param bins the agreed bin count m
 * @param peerParty the peer's authenticated party name
 * @param peerKeys the peer's key columns, in ON order
 * @param peerRevealed the columns the peer reveals, in the order it sends them
 * @param peerNamed every column of the peer's table that the query names (keys, revealed,
 *     filtered), in the peer's table order: all the peer tells of its schema
 * @param prefilter the agreed prefilter, or null when the session has none
 * @param filterKey the prefilter's position key (FF1 key ‖ hash key, 32 bytes), or null
 * @param resumedBins in a resumed run the bins party A committed in an earlier one (both parties
 *     skip them), else null
 */
public record SessionSecrets(
    byte[] tokenKey,
    byte[] binSeed,
    byte[] frameKey,
    byte[] setup,
    int bins,
    String peerParty,
    List<Column> peerKeys,
    List<Column> peerRevealed,
    List<Column> peerNamed,
    PrefilterPlan prefilter,
    byte[] filterKey,
    java.util.BitSet resumedBins) {

  /**
   * The secrets of a resumed run: the token key, bin seed and prefilter key of the first run (rows
   * must land in the bins they were committed under), this run's fresh frame key and setup.
   */
  public SessionSecrets resumedWith(ResumeState state) {
    return new SessionSecrets(
        state.tokenKey(),
        state.binSeed(),
        frameKey,
        setup,
        bins,
        peerParty,
        peerKeys,
        peerRevealed,
        peerNamed,
        prefilter,
        state.filterKey(),
        resumedBins);
  }
}
