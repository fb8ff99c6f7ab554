/**
 * The write step: the joined rows come in; the output party writes them with the connectors' sinks
 * to its staged output, and the quarantined rows to the quarantine, both committed only when the
 * job succeeded. The wiring lives in {@code PrivateJoinJob} for now; this package holds no class
 * yet.
 */
package io.psiflink.jobs.write;
