package io.psiflink.jobs.psi;

import io.psiflink.bridge.BridgeClient;
import io.psiflink.jobs.bin.BinTable;
import java.io.Serializable;
import java.security.SecureRandom;
import org.apache.flink.api.common.functions.RuntimeContext;

/**
 * What each bin of a party's job runs once its rows are collected ({@link BinPsiOperator}): the
 * two-party exchange with the peer ({@link PairBins}), or the n-party one through the provider
 * ({@link io.psiflink.jobs.multiparty.GroupBins}). It travels in the job graph, so it holds no
 * secret: {@link #open} reads the session's keys from the distributed cache on the task.
 */
public interface BinProtocol extends Serializable {
  /** This party's label, for logs. */
  String party();

  /** Attempts per bin before the job fails. */
  int maxAttempts();

  /** Whether this party's logs may tell how many keys of a bin intersect. */
  boolean learnsIntersection();

  /** The task's runner of bins, with the session's keys read from the distributed cache. */
  Runner open(RuntimeContext rc, SecureRandom random) throws Exception;

  /** Runs bins on one task, one at a time, on the task's network thread. */
  interface Runner {
    /**
     * Runs attempt {@code attempt} (1 for the first) of {@code bin} to completion and returns what
     * it emits, checked; on failure every stream it opened is aborted, so that the peers fail the
     * same attempt.
     *
     * @param ownRows this party's public n, over all bins
     */
    BinExchange.BinResult run(
        BridgeClient client, int bin, BinTable table, long ownRows, int attempt) throws Exception;
  }
}
