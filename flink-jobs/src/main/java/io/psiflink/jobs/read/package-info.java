/**
 * The read step: the party's table comes in through the connectors' sources (wired in {@code
 * PrivateJoinJob}); this step estimates its size before the handshake ({@link
 * io.psiflink.jobs.read.SizeEstimate}) and adds up the rows read and tokenized (counted where they
 * are batched for the bins) into the public n the peer learns ({@link
 * io.psiflink.jobs.read.PublicRowCount}).
 */
package io.psiflink.jobs.read;
