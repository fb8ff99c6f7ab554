/**
 * The read step: the party's table comes in through the connectors' sources (wired in {@code
 * PrivateJoinJob}); this step estimates its size before the handshake ({@link
 * io.psiflink.jobs.read.SizeEstimate}) and counts the rows read and tokenized into the public n the
 * peer learns ({@link io.psiflink.jobs.read.RowCount}, {@link
 * io.psiflink.jobs.read.PublicRowCount}).
 */
package io.psiflink.jobs.read;
