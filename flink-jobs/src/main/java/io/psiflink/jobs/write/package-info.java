/**
 * The write step: the joined rows come in; the output party writes them with the connectors' sinks
 * to its staged output, and the quarantined rows to the quarantine, both committed only when the
 * job succeeded (the wiring lives in {@code PrivateJoinJob}). {@link
 * io.psiflink.jobs.write.BinJournal} keeps each completed bin's rows so that a failed run can be
 * resumed without redoing them.
 */
package io.psiflink.jobs.write;
