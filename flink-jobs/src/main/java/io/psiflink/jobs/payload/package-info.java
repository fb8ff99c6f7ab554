/**
 * The payload step: the intersecting tokens of a bin come in; party B sends its revealed columns of
 * them, party A checks them against its own rows and the joined rows (or the count) go out as a
 * {@link io.psiflink.jobs.payload.BinOutput} ({@link io.psiflink.jobs.payload.BinPayload}).
 */
package io.psiflink.jobs.payload;
